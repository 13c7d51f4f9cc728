package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Codex CLI 0.171's `codex mcp`, as codex-rs/cli/src/mcp_cmd.rs defines
// it: servers live in $CODEX_HOME/config.toml (default ~/.codex), one
// [mcp_servers.NAME] table each (command, args, [mcp_servers.NAME.env]; or
// url and bearer_token_env_var).

type codexServer struct {
	Command           string            `json:"command,omitempty"`
	Args              []string          `json:"args,omitempty"`
	Env               map[string]string `json:"env,omitempty"`
	URL               string            `json:"url,omitempty"`
	BearerTokenEnvVar string            `json:"bearer_token_env_var,omitempty"`
}

func codexConfigPath() string {
	if d := os.Getenv("CODEX_HOME"); d != "" {
		return filepath.Join(d, "config.toml")
	}
	return filepath.Join(home(), ".codex", "config.toml")
}

var codexName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func codexMCP(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "Usage: codex mcp [OPTIONS] <COMMAND>")
		return 2
	}
	switch args[0] {
	case "add":
		return codexAdd(args[1:])
	case "get":
		return codexGet(args[1:])
	case "list":
		return codexList(args[1:])
	case "remove":
		return codexRemove(args[1:])
	}
	fmt.Fprintf(os.Stderr, "error: unrecognized subcommand '%s'\n", args[0])
	return 2
}

func codexAdd(args []string) int {
	var name, url, bearer string
	var env []string
	var command []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if name != "" && (a == "--" || !strings.HasPrefix(a, "-")) {
			if a == "--" {
				i++
			}
			command = args[i:]
			break
		}
		flag, val, hasVal := strings.Cut(a, "=")
		switch flag {
		case "--env", "--url", "--bearer-token-env-var":
			if !hasVal {
				if i+1 >= len(args) {
					fmt.Fprintf(os.Stderr, "error: a value is required for '%s' but none was supplied\n", flag)
					return 2
				}
				i++
				val = args[i]
			}
			switch flag {
			case "--env":
				env = append(env, val)
			case "--url":
				url = val
			default:
				bearer = val
			}
		default:
			if strings.HasPrefix(a, "-") {
				fmt.Fprintf(os.Stderr, "error: unexpected argument '%s' found\n", a)
				return 2
			}
			name = a
		}
	}
	if name == "" {
		fmt.Fprintln(os.Stderr, "error: the following required arguments were not provided:\n  <NAME>")
		return 2
	}
	if !codexName.MatchString(name) {
		fmt.Fprintf(os.Stderr, "Error: invalid server name '%s' (use letters, numbers, '-', '_')\n", name)
		return 1
	}
	var s codexServer
	switch {
	case url != "" && len(command) > 0:
		fmt.Fprintln(os.Stderr, "error: the argument '--url <URL>' cannot be used with '[COMMAND]...'")
		return 2
	case url == "" && len(command) == 0:
		fmt.Fprintln(os.Stderr, "error: the following required arguments were not provided:\n  <COMMAND>...")
		return 2
	case bearer != "" && url == "":
		fmt.Fprintln(os.Stderr, "error: the argument '--bearer-token-env-var <ENV_VAR>' requires '--url <URL>'")
		return 2
	case url != "":
		s = codexServer{URL: url, BearerTokenEnvVar: bearer}
	default:
		s = codexServer{Command: command[0], Args: command[1:]}
		for _, kv := range env {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || strings.TrimSpace(k) == "" {
				fmt.Fprintf(os.Stderr, "error: invalid value '%s' for '--env <KEY=VALUE>': environment entries must be in KEY=VALUE form\n", kv)
				return 2
			}
			if s.Env == nil {
				s.Env = map[string]string{}
			}
			s.Env[strings.TrimSpace(k)] = v
		}
	}
	cfg, err := readCodex()
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		return 1
	}
	cfg.servers[name] = s // an existing entry is replaced, as the real one does
	if err := cfg.write(); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		return 1
	}
	fmt.Printf("Added global MCP server '%s'.\n", name)
	return 0
}

func (s codexServer) jsonView(name string) map[string]any {
	t := map[string]any{"type": "stdio", "command": s.Command, "args": s.Args, "env": s.Env}
	if s.URL != "" {
		t = map[string]any{"type": "streamable_http", "url": s.URL, "bearer_token_env_var": nilIfEmpty(s.BearerTokenEnvVar)}
	}
	if t["args"] == nil && s.URL == "" {
		t["args"] = []string{}
	}
	return map[string]any{"name": name, "enabled": true, "transport": t, "startup_timeout_sec": nil, "tool_timeout_sec": nil}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func codexGet(args []string) int {
	asJSON := false
	var name string
	for _, a := range args {
		switch {
		case a == "--json":
			asJSON = true
		case strings.HasPrefix(a, "-"):
			fmt.Fprintf(os.Stderr, "error: unexpected argument '%s' found\n", a)
			return 2
		default:
			name = a
		}
	}
	cfg, err := readCodex()
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		return 1
	}
	s, ok := cfg.servers[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "Error: No MCP server named '%s' found.\n", name)
		return 1
	}
	if asJSON {
		b, _ := json.MarshalIndent(s.jsonView(name), "", "  ")
		fmt.Println(string(b))
		return 0
	}
	fmt.Println(name)
	fmt.Println("  enabled: true")
	if s.URL != "" {
		fmt.Println("  transport: streamable_http")
		fmt.Println("  url:", s.URL)
		fmt.Println("  bearer_token_env_var:", orDash(s.BearerTokenEnvVar))
	} else {
		fmt.Println("  transport: stdio")
		fmt.Println("  command:", s.Command)
		fmt.Println("  args:", orDash(strings.Join(s.Args, " ")))
		keys := sortedKeys(s.Env)
		if len(keys) == 0 {
			fmt.Println("  env: -")
		}
		for _, k := range keys {
			fmt.Printf("  env: %s=%s\n", k, s.Env[k])
		}
	}
	fmt.Printf("  remove: codex mcp remove %s\n", name)
	return 0
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func codexList(args []string) int {
	cfg, err := readCodex()
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		return 1
	}
	names := make([]string, 0, len(cfg.servers))
	for n := range cfg.servers {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(args) > 0 && args[0] == "--json" {
		out := []any{}
		for _, n := range names {
			out = append(out, cfg.servers[n].jsonView(n))
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Println(string(b))
		return 0
	}
	if len(names) == 0 {
		fmt.Println("No MCP servers configured yet. Try `codex mcp add my-tool -- my-command`.")
		return 0
	}
	for _, n := range names {
		s := cfg.servers[n]
		if s.URL != "" {
			fmt.Printf("%s  %s  %s  enabled\n", n, s.URL, orDash(s.BearerTokenEnvVar))
		} else {
			fmt.Printf("%s  %s  %s  enabled\n", n, s.Command, orDash(strings.Join(s.Args, " ")))
		}
	}
	return 0
}

func codexRemove(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "error: the following required arguments were not provided:\n  <NAME>")
		return 2
	}
	cfg, err := readCodex()
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		return 1
	}
	if _, ok := cfg.servers[args[0]]; !ok {
		fmt.Printf("No MCP server named '%s' found.\n", args[0])
		return 0
	}
	delete(cfg.servers, args[0])
	if err := cfg.write(); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		return 1
	}
	fmt.Printf("Removed global MCP server '%s'.\n", args[0])
	return 0
}

// codexConfig is config.toml: the [mcp_servers.*] tables parsed, every
// other line kept as written.
type codexConfig struct {
	other   []string
	servers map[string]codexServer
}

var tomlTable = regexp.MustCompile(`^\[\s*mcp_servers\.([A-Za-z0-9_-]+)(\.env)?\s*\]\s*$`)

// readCodex reads the subset of TOML this fake writes: `key = value` with
// a basic string or an array of basic strings (which are JSON).
func readCodex() (*codexConfig, error) {
	cfg := &codexConfig{servers: map[string]codexServer{}}
	b, err := os.ReadFile(codexConfigPath())
	if os.IsNotExist(err) {
		return cfg, nil
	}
	if err != nil {
		return nil, err
	}
	var cur string
	var inEnv bool
	for n, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if m := tomlTable.FindStringSubmatch(trimmed); m != nil {
			cur, inEnv = m[1], m[2] != ""
			if _, ok := cfg.servers[cur]; !ok {
				cfg.servers[cur] = codexServer{}
			}
			continue
		}
		if strings.HasPrefix(trimmed, "[") {
			cur = ""
		}
		if cur == "" {
			if trimmed != "" || len(cfg.other) > 0 {
				cfg.other = append(cfg.other, line)
			}
			continue
		}
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		k, v, ok := strings.Cut(trimmed, "=")
		if !ok {
			return nil, fmt.Errorf("%s:%d: not key = value", codexConfigPath(), n+1)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		s := cfg.servers[cur]
		var str string
		switch {
		case inEnv:
			if json.Unmarshal([]byte(v), &str) != nil {
				return nil, fmt.Errorf("%s:%d: env %s is not a string", codexConfigPath(), n+1, k)
			}
			if s.Env == nil {
				s.Env = map[string]string{}
			}
			s.Env[strings.Trim(k, `"`)] = str
		case k == "args":
			if json.Unmarshal([]byte(v), &s.Args) != nil {
				return nil, fmt.Errorf("%s:%d: args is not an array of strings", codexConfigPath(), n+1)
			}
		default:
			if json.Unmarshal([]byte(v), &str) != nil {
				return nil, fmt.Errorf("%s:%d: %s is not a string", codexConfigPath(), n+1, k)
			}
			switch k {
			case "command":
				s.Command = str
			case "url":
				s.URL = str
			case "bearer_token_env_var":
				s.BearerTokenEnvVar = str
			}
		}
		cfg.servers[cur] = s
	}
	return cfg, nil
}

func (c *codexConfig) write() error {
	var b strings.Builder
	for _, l := range c.other {
		b.WriteString(l + "\n")
	}
	names := make([]string, 0, len(c.servers))
	for n := range c.servers {
		names = append(names, n)
	}
	sort.Strings(names)
	q := func(v any) string { j, _ := json.Marshal(v); return string(j) }
	for _, n := range names {
		s := c.servers[n]
		fmt.Fprintf(&b, "[mcp_servers.%s]\n", n)
		if s.URL != "" {
			fmt.Fprintf(&b, "url = %s\n", q(s.URL))
			if s.BearerTokenEnvVar != "" {
				fmt.Fprintf(&b, "bearer_token_env_var = %s\n", q(s.BearerTokenEnvVar))
			}
		} else {
			fmt.Fprintf(&b, "command = %s\n", q(s.Command))
			if s.Args == nil {
				s.Args = []string{}
			}
			fmt.Fprintf(&b, "args = %s\n", q(s.Args))
			if len(s.Env) > 0 {
				fmt.Fprintf(&b, "\n[mcp_servers.%s.env]\n", n)
				for _, k := range sortedKeys(s.Env) {
					key := k
					if !codexName.MatchString(k) {
						key = q(k) // a TOML quoted key
					}
					fmt.Fprintf(&b, "%s = %s\n", key, q(s.Env[k]))
				}
			}
		}
		b.WriteString("\n")
	}
	path := codexConfigPath()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o600)
}
