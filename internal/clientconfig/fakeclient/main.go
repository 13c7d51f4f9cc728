// Command fakeclient stands in for the MCP clients' own command-line
// programs, which cannot run in a test (they need an install, a login, and
// write the user's real configuration): installed on PATH under the real
// program's name (a symlink named claude, codex, gemini or code), it
// behaves as that program is documented to:
//
//   - `claude mcp add|get|list|remove` (Claude Code 2.1,
//     commands/mcp/addCommand.ts): commander's parsing, with the variadic
//     -e/--env and -H/--header that swallow the words after them until the
//     next option or "--"; scopes local (default, under the working
//     directory in ~/.claude.json), project (./.mcp.json) and user
//     (~/.claude.json); "already exists" for a name taken in the scope;
//     ${VAR} and ${VAR:-default} expanded when a server is started; list
//     and get check each server by connecting to it ("✔ Connected");
//   - `codex mcp add|get|list|remove` (Codex CLI 0.171,
//     codex-rs/cli/src/mcp_cmd.rs): `add NAME [--env K=V]... -- COMMAND` or
//     `add NAME --url URL [--bearer-token-env-var VAR]`, a name that exists
//     replaced silently, ~/.codex/config.toml ($CODEX_HOME) with one
//     [mcp_servers.NAME] table per server; `get NAME --json`;
//   - `gemini mcp add|list|remove` (Gemini CLI 0.61,
//     packages/cli/src/commands/mcp/add.ts): yargs' parsing (unknown
//     options become server arguments, "--" too), scope project by default
//     (refused in the home directory) or user (~/.gemini/settings.json,
//     $GEMINI_CLI_HOME), an existing name updated; $VAR and ${VAR}
//     expanded when a server is started; list connects to each server, and
//     marks them Disabled in an untrusted folder when folder trust is on
//     (docs/cli/trusted-folders.md);
//   - `code --add-mcp JSON` (VS Code, mcpManagementCli.ts): {"name", ...,
//     "inputs"} into the user profile's mcp.json ("servers", "inputs").
//
// Any other invocation of claude, codex or gemini is an agent run, and
// behaves as a logged-out install does: slowly (FAKECLIENT_AGENT_DELAY, a
// Go duration, or the content of fakeclient.delay beside the executable;
// by default what was measured of the real ones: claude 194 s, codex 300
// s, gemini 2 s), then an authentication error and a non-zero exit.
//
// When $FAKECLIENT_LOG names a directory, every invocation writes
// PROGRAM-PID-N.json there (program, argv, mode, working directory), so a
// test can tell what ran, and prove what never did; so it does into a
// directory named fakeclient.log beside the executable, when there is
// one, which reaches invocations whose environment was filtered (limcp
// passes an agent run only an allowlist of variables).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Invocation is one logged invocation.
type Invocation struct {
	Program string   `json:"program"`
	Argv    []string `json:"argv"` // after argv[0]
	Mode    string   `json:"mode"` // mcp, agent, version, add-mcp
	Cwd     string   `json:"cwd"`
	Time    int64    `json:"time"` // when it started, in Unix nanoseconds
}

const logEnv = "FAKECLIENT_LOG"

func main() {
	prog := filepath.Base(os.Args[0])
	args := os.Args[1:]
	mode := "agent"
	switch {
	case len(args) > 0 && args[0] == "mcp":
		mode = "mcp"
	case len(args) > 0 && (args[0] == "--version" || args[0] == "-v" || args[0] == "version"):
		mode = "version"
	case prog == "code":
		mode = "add-mcp"
	}
	logInvocation(prog, args, mode)
	var code int
	switch {
	case mode == "version":
		code = version(prog)
	case prog == "claude" && mode == "mcp":
		code = claudeMCP(args[1:])
	case prog == "codex" && mode == "mcp":
		code = codexMCP(args[1:])
	case prog == "gemini" && mode == "mcp":
		code = geminiMCP(args[1:])
	case prog == "code":
		code = vscode(args)
	case prog == "claude" || prog == "codex" || prog == "gemini":
		code = loggedOut(prog, args)
	default:
		fmt.Fprintf(os.Stderr, "fakeclient: run as claude, codex, gemini or code (a symlink), not %q\n", prog)
		code = 2
	}
	os.Exit(code)
}

// besideLog is the log directory beside the executable; besideDelay the
// file holding an agent run's delay (a Go duration).
const (
	besideLog   = "fakeclient.log"
	besideDelay = "fakeclient.delay"
)

func logInvocation(prog string, args []string, mode string) {
	dirs := []string{os.Getenv(logEnv)}
	if exe, err := os.Executable(); err == nil {
		if fi, err := os.Stat(filepath.Join(filepath.Dir(exe), besideLog)); err == nil && fi.IsDir() {
			dirs = append(dirs, filepath.Join(filepath.Dir(exe), besideLog))
		}
	}
	cwd, _ := os.Getwd()
	now := time.Now().UnixNano()
	b, _ := json.Marshal(Invocation{Program: prog, Argv: args, Mode: mode, Cwd: cwd, Time: now})
	name := fmt.Sprintf("%s-%d-%d.json", prog, os.Getpid(), now)
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		// Written whole, then renamed: a reader never sees half a log.
		tmp := filepath.Join(dir, "."+name)
		if os.WriteFile(tmp, b, 0o600) == nil {
			_ = os.Rename(tmp, filepath.Join(dir, name))
		}
	}
}

func version(prog string) int {
	switch prog {
	case "claude":
		fmt.Println("2.1.0 (Claude Code)")
	case "codex":
		fmt.Println("codex-cli 0.171.0")
	case "gemini":
		fmt.Println("0.61.0")
	case "code":
		fmt.Println("1.107.0\n0000000000000000000000000000000000000000\nx64")
	}
	return 0
}

// loggedOut is an agent run of an install with no login and no key.
func loggedOut(prog string, args []string) int {
	delay := map[string]time.Duration{"claude": 194 * time.Second, "codex": 300 * time.Second, "gemini": 2 * time.Second}[prog]
	v := os.Getenv("FAKECLIENT_AGENT_DELAY")
	if exe, err := os.Executable(); err == nil && v == "" {
		// Beside the executable: an agent run's environment is filtered.
		if b, err := os.ReadFile(filepath.Join(filepath.Dir(exe), besideDelay)); err == nil {
			v = strings.TrimSpace(string(b))
		}
	}
	if d, err := time.ParseDuration(v); err == nil {
		delay = d
	}
	time.Sleep(delay)
	switch prog {
	case "claude":
		msg := "Invalid API key · Please run /login"
		if strings.Contains(strings.Join(args, " "), "--output-format json") {
			b, _ := json.Marshal(map[string]any{"type": "result", "subtype": "success", "is_error": true, "result": msg, "duration_ms": delay.Milliseconds()})
			fmt.Println(string(b))
		} else {
			fmt.Println(msg)
		}
		return 1
	case "codex":
		fmt.Fprintln(os.Stderr, "ERROR: stream disconnected before completion: 401 Unauthorized: not signed in; run `codex login` or set OPENAI_API_KEY")
		return 1
	default:
		home, _ := os.UserHomeDir()
		fmt.Fprintf(os.Stderr, "Please set an Auth method in your %s or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA\n", filepath.Join(home, ".gemini", "settings.json"))
		return 41
	}
}

// home is the user's home directory as the real programs find it ($HOME).
func home() string {
	if h := os.Getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// readJSON reads a JSON object file; a missing file is an empty object.
func readJSON(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return map[string]any{}, nil
	}
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

func writeJSON(path string, m map[string]any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o600)
}

// object returns m[key] as an object, creating it.
func object(m map[string]any, key string) map[string]any {
	o, ok := m[key].(map[string]any)
	if !ok {
		o = map[string]any{}
		m[key] = o
	}
	return o
}

func strs(v any) []string {
	list, _ := v.([]any)
	out := []string{}
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func strMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := map[string]string{}
	for k, x := range m {
		s, _ := x.(string)
		out[k] = s
	}
	return out
}

func quoteAll(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strconv.Quote(a)
	}
	return strings.Join(out, " ")
}
