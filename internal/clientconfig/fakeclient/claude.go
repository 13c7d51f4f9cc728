package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Claude Code 2.1's `claude mcp`, as commands/mcp/addCommand.ts and the
// documented scopes (code.claude.com/docs/en/mcp) define it.

func claudeConfigPath() string {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, ".claude.json")
	}
	return filepath.Join(home(), ".claude.json")
}

func claudeMCP(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "Usage: claude mcp [options] [command]")
		return 1
	}
	switch args[0] {
	case "add":
		return claudeAdd(args[1:])
	case "get":
		return claudeGet(args[1:])
	case "list":
		return claudeList()
	case "remove":
		return claudeRemove(args[1:])
	}
	fmt.Fprintf(os.Stderr, "error: unknown command '%s'\n", args[0])
	return 1
}

// commanderParse parses like commander.js: options anywhere before "--",
// a variadic option (-e, -H) taking every following word up to the next
// word that starts with "-"; after "--" everything is an operand.
func commanderParse(args []string, valued map[string]string, variadic map[string]bool) (opts map[string][]string, operands []string, err error) {
	opts = map[string][]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			operands = append(operands, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			operands = append(operands, a)
			continue
		}
		name, val, hasVal := strings.Cut(a, "=")
		long, ok := valued[name]
		if !ok {
			return nil, nil, fmt.Errorf("error: unknown option '%s'", name)
		}
		if hasVal {
			opts[long] = append(opts[long], val)
			continue
		}
		if i+1 >= len(args) {
			return nil, nil, fmt.Errorf("error: option '%s' argument missing", name)
		}
		i++
		opts[long] = append(opts[long], args[i])
		for variadic[long] && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			i++
			opts[long] = append(opts[long], args[i])
		}
	}
	return opts, operands, nil
}

var claudeAddOptions = map[string]string{"-s": "scope", "--scope": "scope", "-t": "transport", "--transport": "transport",
	"-e": "env", "--env": "env", "-H": "header", "--header": "header"}

func claudeAdd(args []string) int {
	opts, operands, err := commanderParse(args, claudeAddOptions, map[string]bool{"env": true, "header": true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if len(operands) < 2 {
		fmt.Fprintln(os.Stderr, "error: missing required argument 'commandOrUrl'")
		return 1
	}
	name, target, rest := operands[0], operands[1], operands[2:]
	scope := last(opts["scope"], "local")
	if scope != "local" && scope != "user" && scope != "project" {
		fmt.Fprintf(os.Stderr, "Invalid scope: %s. Must be one of: local, user, project\n", scope)
		return 1
	}
	transport := last(opts["transport"], "stdio")
	var entry map[string]any
	switch transport {
	case "stdio":
		env := map[string]any{}
		for _, kv := range opts["env"] {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				fmt.Fprintf(os.Stderr, "Invalid environment variable format: %s, environment variables should be added as: -e KEY1=value1 -e KEY2=value2\n", kv)
				return 1
			}
			env[k] = v
		}
		anyArgs := []any{}
		for _, a := range rest {
			anyArgs = append(anyArgs, a)
		}
		entry = map[string]any{"type": "stdio", "command": target, "args": anyArgs, "env": env}
	case "http", "sse":
		headers := map[string]any{}
		for _, h := range opts["header"] {
			k, v, ok := strings.Cut(h, ":")
			if !ok || strings.TrimSpace(k) == "" {
				fmt.Fprintf(os.Stderr, "Invalid header format: \"%s\". Expected format: \"Header-Name: value\"\n", h)
				return 1
			}
			headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		entry = map[string]any{"type": transport, "url": target}
		if len(headers) > 0 {
			entry["headers"] = headers
		}
	default:
		fmt.Fprintf(os.Stderr, "Invalid transport type: %s. Must be one of: stdio, sse, http\n", transport)
		return 1
	}
	servers, save, err := claudeScope(scope)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if _, ok := servers[name]; ok {
		fmt.Fprintf(os.Stderr, "MCP server %s already exists in %s config\n", name, scope)
		return 1
	}
	servers[name] = entry
	if err := save(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if transport == "stdio" {
		fmt.Printf("Added stdio MCP server %s with command: %s %s to %s config\n", name, target, strings.Join(rest, " "), scope)
	} else {
		fmt.Printf("Added %s MCP server %s with URL: %s to %s config\n", strings.ToUpper(transport), name, target, scope)
	}
	fmt.Printf("File modified: %s\n", claudeScopeFile(scope))
	return 0
}

func last(v []string, def string) string {
	if len(v) == 0 {
		return def
	}
	return v[len(v)-1]
}

func claudeScopeFile(scope string) string {
	if scope == "project" {
		wd, _ := os.Getwd()
		return filepath.Join(wd, ".mcp.json")
	}
	return claudeConfigPath()
}

// claudeScope returns the scope's server map and a function that saves it.
func claudeScope(scope string) (map[string]any, func() error, error) {
	path := claudeScopeFile(scope)
	doc, err := readJSON(path)
	if err != nil {
		return nil, nil, err
	}
	save := func() error { return writeJSON(path, doc) }
	switch scope {
	case "local":
		wd, _ := os.Getwd()
		return object(object(object(doc, "projects"), wd), "mcpServers"), save, nil
	default:
		return object(doc, "mcpServers"), save, nil
	}
}

var claudeScopeNames = map[string]string{
	"local":   "Local config (private to you in this project)",
	"project": "Project config (shared via .mcp.json)",
	"user":    "User config (available in all your projects)",
}

// claudeFind looks a name up in precedence order: local, project, user.
func claudeFind(name string) (scope string, entry map[string]any) {
	for _, s := range []string{"local", "project", "user"} {
		servers, _, err := claudeScope(s)
		if err != nil {
			continue
		}
		if e, ok := servers[name].(map[string]any); ok {
			return s, e
		}
	}
	return "", nil
}

var claudeVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// claudeExpand is Claude Code's ${VAR} and ${VAR:-default} expansion; an
// unset variable without a default stays as written.
func claudeExpand(s string) string {
	return claudeVar.ReplaceAllStringFunc(s, func(m string) string {
		g := claudeVar.FindStringSubmatch(m)
		if v, ok := os.LookupEnv(g[1]); ok {
			return v
		}
		if g[2] != "" {
			return g[3]
		}
		return m
	})
}

func claudeEndpoint(e map[string]any) endpoint {
	var ep endpoint
	if u, ok := e["url"].(string); ok {
		ep.url = claudeExpand(u)
		ep.headers = map[string]string{}
		for k, v := range strMap(e["headers"]) {
			ep.headers[k] = claudeExpand(v)
		}
		return ep
	}
	ep.command, _ = e["command"].(string)
	ep.command = claudeExpand(ep.command)
	for _, a := range strs(e["args"]) {
		ep.args = append(ep.args, claudeExpand(a))
	}
	ep.env = map[string]string{}
	for k, v := range strMap(e["env"]) {
		ep.env[k] = claudeExpand(v)
	}
	return ep
}

func claudeStatus(e map[string]any) string {
	if err := probe(claudeEndpoint(e)); err != nil {
		return "✗ Failed to connect"
	}
	return "✔ Connected"
}

func claudeDescribe(e map[string]any) string {
	if u, ok := e["url"].(string); ok {
		return u + " (" + strings.ToUpper(fmt.Sprint(e["type"])) + ")"
	}
	cmd, _ := e["command"].(string)
	return strings.TrimSpace(cmd + " " + strings.Join(strs(e["args"]), " "))
}

func claudeList() int {
	type row struct{ name, scope string }
	var rows []row
	seen := map[string]bool{}
	entries := map[string]map[string]any{}
	for _, s := range []string{"local", "project", "user"} {
		servers, _, err := claudeScope(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		names := make([]string, 0, len(servers))
		for n := range servers {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				rows = append(rows, row{n, s})
				entries[n], _ = servers[n].(map[string]any)
			}
		}
	}
	if len(rows) == 0 {
		fmt.Println("No MCP servers configured. Use `claude mcp add` to add a server.")
		return 0
	}
	fmt.Print("Checking MCP server health...\n\n")
	for _, r := range rows {
		e := entries[r.name]
		fmt.Printf("%s: %s - %s\n", r.name, claudeDescribe(e), claudeStatus(e))
	}
	return 0
}

func claudeGet(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "error: missing required argument 'name'")
		return 1
	}
	name := args[0]
	scope, e := claudeFind(name)
	if e == nil {
		fmt.Fprintf(os.Stderr, "No MCP server named %q. Run `claude mcp add` to add one.\n", name) // as Claude Code 2.1.332
		return 1
	}
	fmt.Printf("%s:\n  Scope: %s\n  Status: %s\n  Type: %v\n", name, claudeScopeNames[scope], claudeStatus(e), e["type"])
	if u, ok := e["url"].(string); ok {
		fmt.Printf("  URL: %s\n", u)
		if h := strMap(e["headers"]); len(h) > 0 {
			fmt.Println("  Headers:")
			for k, v := range h {
				fmt.Printf("    %s: %s\n", k, v)
			}
		}
	} else {
		fmt.Printf("  Command: %v\n  Args: %s\n", e["command"], strings.Join(strs(e["args"]), " "))
		if env := strMap(e["env"]); len(env) > 0 {
			fmt.Println("  Environment:")
			for k, v := range env {
				fmt.Printf("    %s=%s\n", k, v)
			}
		}
	}
	fmt.Printf("\nTo remove this server, run: claude mcp remove \"%s\" -s %s\n", name, scope)
	return 0
}

func claudeRemove(args []string) int {
	opts, operands, err := commanderParse(args, map[string]string{"-s": "scope", "--scope": "scope"}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if len(operands) != 1 {
		fmt.Fprintln(os.Stderr, "error: missing required argument 'name'")
		return 1
	}
	name := operands[0]
	scopes := opts["scope"]
	if len(scopes) == 0 {
		for _, s := range []string{"local", "project", "user"} {
			if servers, _, err := claudeScope(s); err == nil && servers[name] != nil {
				scopes = append(scopes, s)
			}
		}
		if len(scopes) == 0 {
			fmt.Fprintf(os.Stderr, "No MCP server found with name: %s\n", name)
			return 1
		}
		if len(scopes) > 1 {
			fmt.Fprintf(os.Stderr, "MCP server \"%s\" exists in multiple scopes: %s; give -s SCOPE\n", name, strings.Join(scopes, ", "))
			return 1
		}
	}
	scope := scopes[len(scopes)-1]
	servers, save, err := claudeScope(scope)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if servers[name] == nil {
		fmt.Fprintf(os.Stderr, "No %s-scoped MCP server found with name: %s\n", scope, name)
		return 1
	}
	delete(servers, name)
	if err := save(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("Removed MCP server %s from %s config\nFile modified: %s\n", name, scope, claudeScopeFile(scope))
	return 0
}
