package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Gemini CLI 0.61's `gemini mcp`, as packages/cli/src/commands/mcp/add.ts,
// list.ts and remove.ts define it. User settings are
// $GEMINI_CLI_HOME/.gemini/settings.json (default: the home directory);
// project settings are ./.gemini/settings.json.

func geminiHome() string {
	if d := os.Getenv("GEMINI_CLI_HOME"); d != "" {
		return d
	}
	return home()
}

func geminiSettingsPath(scope string) string {
	if scope == "user" {
		return filepath.Join(geminiHome(), ".gemini", "settings.json")
	}
	wd, _ := os.Getwd()
	return filepath.Join(wd, ".gemini", "settings.json")
}

func geminiMCP(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "gemini mcp <command>\n\nCommands:\n  gemini mcp add <name> <commandOrUrl> [args...]\n  gemini mcp remove <name>\n  gemini mcp list")
		return 1
	}
	switch args[0] {
	case "add":
		return geminiAdd(args[1:])
	case "list":
		return geminiList()
	case "remove":
		return geminiRemove(args[1:])
	}
	fmt.Fprintf(os.Stderr, "Unknown command: %s\n", args[0])
	return 1
}

var geminiValued = map[string]string{"-s": "scope", "--scope": "scope", "-t": "transport", "--transport": "transport", "--type": "transport",
	"-e": "env", "--env": "env", "-H": "header", "--header": "header", "--timeout": "timeout", "--description": "description",
	"--include-tools": "include-tools", "--exclude-tools": "exclude-tools"}

// yargsParse parses as add.ts configures yargs: known options take one
// value each, --trust is a flag, an unknown option is a server argument
// ("unknown-options-as-args"), and what follows "--" is appended to the
// server arguments ("populate--").
func yargsParse(args []string) (opts map[string][]string, positional, dashdash []string, err error) {
	opts = map[string][]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			dashdash = args[i+1:]
			break
		}
		if a == "--trust" {
			opts["trust"] = append(opts["trust"], "true")
			continue
		}
		name, val, hasVal := strings.Cut(a, "=")
		long, ok := geminiValued[name]
		if !ok {
			positional = append(positional, a)
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, nil, nil, fmt.Errorf("Not enough arguments following: %s", strings.TrimLeft(name, "-"))
			}
			i++
			val = args[i]
		}
		opts[long] = append(opts[long], val)
	}
	return opts, positional, dashdash, nil
}

func geminiAdd(args []string) int {
	opts, pos, dashdash, err := yargsParse(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if len(pos) < 2 {
		fmt.Fprintln(os.Stderr, "Not enough non-option arguments: got", len(pos), "need at least 2")
		return 1
	}
	name, target := pos[0], pos[1]
	serverArgs := append(append([]string{}, pos[2:]...), dashdash...)
	scope := last(opts["scope"], "project")
	if scope != "user" && scope != "project" {
		fmt.Fprintf(os.Stderr, "Invalid values:\n  Argument: scope, Given: %q, Choices: \"user\", \"project\"\n", scope)
		return 1
	}
	wd, _ := os.Getwd()
	if scope == "project" && filepath.Clean(wd) == filepath.Clean(geminiHome()) {
		fmt.Fprintln(os.Stderr, "Error: Please use --scope user to edit settings in the home directory.")
		return 1
	}
	transport := last(opts["transport"], "stdio")
	entry := map[string]any{}
	switch transport {
	case "http", "sse":
		headers := map[string]any{}
		for _, h := range opts["header"] {
			k, v, _ := strings.Cut(h, ":")
			if strings.TrimSpace(k) != "" && strings.TrimSpace(v) != "" {
				headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
		}
		entry["url"], entry["type"] = target, transport
		if len(headers) > 0 {
			entry["headers"] = headers
		}
	case "stdio":
		entry["command"] = target
		list := []any{}
		for _, a := range serverArgs {
			list = append(list, a)
		}
		entry["args"] = list
		env := map[string]any{}
		for _, kv := range opts["env"] {
			// add.ts splits on every "=" and keeps the first two parts.
			parts := strings.Split(kv, "=")
			if len(parts) >= 2 && parts[0] != "" && parts[1] != "" {
				env[parts[0]] = parts[1]
			}
		}
		if len(env) > 0 {
			entry["env"] = env
		}
	default:
		fmt.Fprintf(os.Stderr, "Invalid values:\n  Argument: transport, Given: %q, Choices: \"stdio\", \"sse\", \"http\"\n", transport)
		return 1
	}
	if t := last(opts["timeout"], ""); t != "" {
		n, err := strconv.Atoi(t)
		if err != nil {
			fmt.Fprintf(os.Stderr, "Invalid timeout %q\n", t)
			return 1
		}
		entry["timeout"] = n
	}
	if len(opts["trust"]) > 0 {
		entry["trust"] = true
	}
	path := geminiSettingsPath(scope)
	doc, err := readJSON(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	servers := object(doc, "mcpServers")
	existed := servers[name] != nil
	if existed {
		fmt.Printf("MCP server \"%s\" is already configured within %s settings.\n", name, scope)
	}
	servers[name] = entry
	if err := writeJSON(path, doc); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if existed {
		fmt.Printf("MCP server \"%s\" updated in %s settings.\n", name, scope)
	} else {
		fmt.Printf("MCP server \"%s\" added to %s settings. (%s)\n", name, scope, transport)
	}
	return 0
}

var geminiVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// geminiExpand is settings.json's variable resolution: $VAR and ${VAR};
// an unset variable stays as written.
func geminiExpand(s string) string {
	return geminiVar.ReplaceAllStringFunc(s, func(m string) string {
		g := geminiVar.FindStringSubmatch(m)
		name := g[1] + g[2]
		if v, ok := os.LookupEnv(name); ok {
			return v
		}
		return m
	})
}

// geminiTrusted reports whether folder trust lets the working directory's
// servers run: trust off (the default), or the directory (or a parent
// marked TRUST_PARENT's child) trusted in ~/.gemini/trustedFolders.json.
func geminiTrusted(user map[string]any) bool {
	sec, _ := user["security"].(map[string]any)
	ft, _ := sec["folderTrust"].(map[string]any)
	if on, _ := ft["enabled"].(bool); !on {
		return true
	}
	rules, err := readJSON(filepath.Join(geminiHome(), ".gemini", "trustedFolders.json"))
	if err != nil {
		return false
	}
	wd, _ := os.Getwd()
	for path, v := range rules {
		rule, _ := v.(string)
		rel, err := filepath.Rel(path, wd)
		inside := err == nil && !strings.HasPrefix(rel, "..")
		switch {
		case rule == "TRUST_FOLDER" && inside:
			return true
		case rule == "TRUST_PARENT" && inside:
			return true
		}
	}
	return false
}

func geminiList() int {
	user, err := readJSON(geminiSettingsPath("user"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	merged := map[string]map[string]any{}
	for k, v := range object(user, "mcpServers") {
		merged[k], _ = v.(map[string]any)
	}
	trusted := geminiTrusted(user)
	wd, _ := os.Getwd()
	if trusted && filepath.Clean(wd) != filepath.Clean(geminiHome()) {
		project, err := readJSON(geminiSettingsPath("project"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		for k, v := range object(project, "mcpServers") {
			merged[k], _ = v.(map[string]any)
		}
	}
	if len(merged) == 0 {
		fmt.Println("No MCP servers configured.")
		return 0
	}
	if !trusted {
		fmt.Println("Warning: this folder is not trusted; MCP servers are disabled here. Trust it to use them.")
	}
	fmt.Print("Configured MCP servers:\n\n")
	names := make([]string, 0, len(merged))
	for n := range merged {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		e := merged[n]
		var info string
		ep := endpoint{}
		if u, ok := e["url"].(string); ok {
			info = fmt.Sprintf("%s (%v)", u, e["type"])
			ep.url = geminiExpand(u)
			ep.headers = map[string]string{}
			for k, v := range strMap(e["headers"]) {
				ep.headers[k] = geminiExpand(v)
			}
		} else {
			cmd, _ := e["command"].(string)
			info = fmt.Sprintf("%s %s (stdio)", cmd, strings.Join(strs(e["args"]), " "))
			ep.command = geminiExpand(cmd)
			for _, a := range strs(e["args"]) {
				ep.args = append(ep.args, geminiExpand(a))
			}
			ep.env = map[string]string{}
			for k, v := range strMap(e["env"]) {
				ep.env[k] = geminiExpand(v)
			}
		}
		status := "✓ %s: %s - Connected\n"
		switch {
		case !trusted:
			status = "○ %s: %s - Disabled\n"
		case probe(ep) != nil:
			status = "✗ %s: %s - Disconnected\n"
		}
		fmt.Printf(status, n, info)
	}
	return 0
}

func geminiRemove(args []string) int {
	opts, pos, _, err := yargsParse(args)
	if err != nil || len(pos) != 1 {
		fmt.Fprintln(os.Stderr, "Usage: gemini mcp remove [options] <name>")
		return 1
	}
	scope := last(opts["scope"], "project")
	path := geminiSettingsPath(scope)
	doc, err := readJSON(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	servers := object(doc, "mcpServers")
	if servers[pos[0]] == nil {
		fmt.Printf("Server \"%s\" not found in %s settings.\n", pos[0], scope)
		return 0
	}
	delete(servers, pos[0])
	if err := writeJSON(path, doc); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("Server \"%s\" removed from %s settings.\n", pos[0], scope)
	return 0
}
