package clientconfig

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// claudeCode is Claude Code, as of 2.1: commands/mcp/addCommand.ts for
// `claude mcp add` (commander: -e/--env and -H/--header are variadic, so
// they come after the name and are ended by "--" or the end of the line),
// and code.claude.com/docs/en/mcp for the scopes (local, the default,
// ties a server to the directory it was added in; user is every
// directory) and for ${VAR} expansion in a header, which 2.1 performs for
// every scope when it connects.
type claudeCode struct{}

func (claudeCode) program(*runner) string { return "claude" }

func (claudeCode) find(ctx context.Context, r *runner, s *Server) (*existing, error) {
	argv := []string{"claude", "mcp", "get", s.Name}
	res, err := r.run(ctx, argv)
	if err != nil {
		return nil, err
	}
	switch {
	case res.exit == 1 && noServer(res):
		return nil, nil
	case res.exit != 0:
		return nil, &unrecognisedError{argv: argv, res: res}
	}
	// "  Scope: User config (available in all your projects)"
	for _, line := range strings.Split(res.stdout, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "Scope:"); ok {
			v = strings.TrimSpace(v)
			return &existing{scope: v, replaceable: strings.HasPrefix(v, "User")}, nil
		}
	}
	return &existing{scope: "scope not shown by claude mcp get"}, nil
}

// noServer reports whether a `mcp get NAME` that failed said there is no
// server of that name. The clients word it differently, and have changed
// the words between releases: Claude Code 2.1.1xx "No MCP server found with
// name: NAME", 2.1.3xx "No MCP server named "NAME". Run `claude mcp add`
// to add one."; Codex CLI "Error: No MCP server named 'NAME' found.". So
// the answer is read by its shape (exit status 1, one error naming no MCP
// server), and anything else is an answer Install does not recognise.
func noServer(res *runResult) bool {
	out := strings.ToLower(res.stdout + res.stderr)
	return strings.Contains(out, "no mcp server") && !strings.Contains(out, "scope:")
}

// unrecognisedError is a client's answer Install cannot read: a look-up
// that failed in a way no release it was written against fails.
type unrecognisedError struct {
	argv []string
	res  *runResult
}

func (e *unrecognisedError) Error() string {
	return fmt.Sprintf("%s, to look for a server of that name, answered in a way this installer does not recognise (exit status %d): %s",
		formatArgv(e.argv), e.res.exit, e.res.output())
}

func (claudeCode) steps(r *runner, s *Server, have *existing) ([]step, error) {
	var steps []step
	if have != nil {
		steps = append(steps, step{argv: []string{"claude", "mcp", "remove", s.Name, "--scope", "user"},
			says: fmt.Sprintf("removed the server %q it had (user scope)", s.Name)})
	}
	add := []string{"claude", "mcp", "add", s.Name, "--scope", "user"}
	if s.HTTP() {
		add = append(add, "--transport", "http", s.URL)
		if s.TokenEnv != "" {
			add = append(add, "--header", "Authorization: "+s.bearer("${"+s.TokenEnv+"}"))
		}
	} else {
		for _, kv := range s.envPairs() {
			add = append(add, "--env", kv)
		}
		add = append(append(add, "--", s.Command), s.Args...)
	}
	return append(steps, step{argv: add, says: fmt.Sprintf("added %q (user scope: every directory)", s.Name)}), nil
}

func (claudeCode) check(*Server) string { return "claude mcp list" }

func (claudeCode) stores(s *Server) string {
	return fmt.Sprintf("the header \"Authorization: Bearer ${%s}\", expanded when it connects: keep %s", s.TokenEnv, tokenExport(s))
}

// codexCLI is Codex CLI, as of 0.171: codex-rs/cli/src/mcp_cmd.rs for
// `codex mcp add NAME [--env K=V]... -- COMMAND...` and `add NAME --url
// URL --bearer-token-env-var VAR` (the only way it takes an HTTP token:
// from a variable it reads when it connects), `mcp get NAME --json` (exit
// status 1 when there is none), and the one global scope in
// $CODEX_HOME/config.toml. Its add replaces a server of the same name
// without a word, so Install looks first.
type codexCLI struct{}

func (codexCLI) program(*runner) string { return "codex" }

func (codexCLI) find(ctx context.Context, r *runner, s *Server) (*existing, error) {
	argv := []string{"codex", "mcp", "get", s.Name, "--json"}
	res, err := r.run(ctx, argv)
	if err != nil {
		return nil, err
	}
	switch {
	case res.exit == 1 && noServer(res):
		return nil, nil
	case res.exit != 0:
		return nil, &unrecognisedError{argv: argv, res: res}
	}
	// An answer that is not the server's JSON is not a server found.
	var got struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &got); err != nil || got.Name != s.Name {
		return nil, &unrecognisedError{argv: argv, res: res}
	}
	return &existing{scope: "global config", replaceable: true}, nil
}

func (codexCLI) steps(r *runner, s *Server, have *existing) ([]step, error) {
	add := []string{"codex", "mcp", "add", s.Name}
	if s.HTTP() {
		add = append(add, "--url", s.URL)
		if s.TokenEnv != "" {
			add = append(add, "--bearer-token-env-var", s.TokenEnv)
		}
	} else {
		for _, kv := range s.envPairs() {
			add = append(add, "--env", kv)
		}
		add = append(append(add, "--", s.Command), s.Args...)
	}
	says := fmt.Sprintf("added %q (global config)", s.Name)
	if have != nil {
		says = fmt.Sprintf("replaced %q (global config)", s.Name)
	}
	return []step{{argv: add, says: says}}, nil
}

func (codexCLI) check(s *Server) string {
	return "codex mcp get " + shellQuote(s.Name) + " (then /mcp in a Codex session shows it connected)"
}

func (codexCLI) stores(s *Server) string {
	return fmt.Sprintf("bearer_token_env_var = %q, read when it connects: keep %s", s.TokenEnv, tokenExport(s))
}

// geminiCLI is Gemini CLI, as of 0.61: packages/cli/src/commands/mcp/
// add.ts for `gemini mcp add [options] NAME COMMAND_OR_URL [ARGS...]`
// (yargs: -e and -H take one value each; the default scope is project,
// refused in the home directory, so --scope user; server arguments after
// "--" so none is read as an option; --env splits on every "=", so a value
// holding one is refused here rather than cut), settings.json's $VAR and
// ${VAR} resolution for the header, and docs/cli/trusted-folders.md.
type geminiCLI struct{}

func (geminiCLI) program(*runner) string { return "gemini" }

func geminiSettings(r *runner) (string, error) {
	base := r.getenv("GEMINI_CLI_HOME")
	if base == "" {
		h, err := r.home()
		if err != nil {
			return "", err
		}
		base = h
	}
	return filepath.Join(base, ".gemini", "settings.json"), nil
}

func (geminiCLI) find(_ context.Context, r *runner, s *Server) (*existing, error) {
	path, err := geminiSettings(r)
	if err != nil {
		return nil, err
	}
	names, err := readServers(path, "mcpServers", true)
	if err != nil {
		return nil, fmt.Errorf("looking for a server named %q: %v", s.Name, err)
	}
	if names[s.Name] {
		return &existing{scope: "user settings, " + path, replaceable: true}, nil
	}
	return nil, nil
}

func (geminiCLI) steps(r *runner, s *Server, have *existing) ([]step, error) {
	add := []string{"gemini", "mcp", "add", "--scope", "user"}
	if s.HTTP() {
		add = append(add, "--transport", "http")
		if s.TokenEnv != "" {
			add = append(add, "--header", "Authorization: "+s.bearer("${"+s.TokenEnv+"}"))
		}
		add = append(add, s.Name, s.URL)
	} else {
		for _, kv := range s.envPairs() {
			k, v, _ := strings.Cut(kv, "=")
			if v == "" || strings.Contains(v, "=") {
				return nil, fmt.Errorf("gemini mcp add keeps an --env value only up to its first \"=\" and drops an empty one: %s=%q cannot be passed; choose a value without \"=\"", k, v)
			}
			add = append(add, "--env", kv)
		}
		add = append(add, s.Name, s.Command)
		if len(s.Args) > 0 {
			add = append(append(add, "--"), s.Args...)
		}
	}
	says := fmt.Sprintf("added %q (user settings)", s.Name)
	if have != nil {
		says = fmt.Sprintf("replaced %q (user settings)", s.Name)
	}
	steps := []step{{argv: add, says: says}}
	if r.trust != "" {
		if !filepath.IsAbs(r.trust) {
			return nil, fmt.Errorf("the folder to trust, %q, is not an absolute path", r.trust)
		}
		path, err := geminiSettings(r)
		if err != nil {
			return nil, err
		}
		path = filepath.Join(filepath.Dir(path), "trustedFolders.json")
		steps = append(steps, step{edit: &fileEdit{path: path, name: r.trust, entry: mustJSON("TRUST_FOLDER")},
			says: fmt.Sprintf("trusts %s (in %s, everything else in it kept): it runs the server there", r.trust, path)})
	}
	return steps, nil
}

func (geminiCLI) check(*Server) string {
	return "gemini mcp list, in a folder Gemini trusts (folder trust is on by default: elsewhere it shows the server Disabled; --trust-folder DIR trusts one, or answer the dialog Gemini shows there)"
}

func (geminiCLI) stores(s *Server) string {
	return fmt.Sprintf("the header \"Authorization: Bearer ${%s}\", resolved when it loads its settings: keep %s", s.TokenEnv, tokenExport(s))
}

// cursor is Cursor (cursor.com/docs/mcp): no command-line program adds a
// server, so the entry goes into the global ~/.cursor/mcp.json under
// "mcpServers" ({command, args, env} or {url, headers}); ${env:NAME} is
// interpolated in a header when Cursor connects.
type cursor struct{}

func (cursor) program(*runner) string { return "" }

func cursorFile(r *runner) (string, error) {
	h, err := r.home()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, ".cursor", "mcp.json"), nil
}

func (cursor) find(_ context.Context, r *runner, s *Server) (*existing, error) {
	path, err := cursorFile(r)
	if err != nil {
		return nil, err
	}
	names, err := readServers(path, "mcpServers", false)
	if err != nil {
		return nil, fmt.Errorf("%v; left as it is (fix it, or add the entry by hand: --print shows it)", err)
	}
	if names[s.Name] {
		return &existing{scope: path, replaceable: true}, nil
	}
	return nil, nil
}

// cursorServer is an entry of ~/.cursor/mcp.json, in the documented
// order.
type cursorServer struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

func (cursor) steps(r *runner, s *Server, have *existing) ([]step, error) {
	path, err := cursorFile(r)
	if err != nil {
		return nil, err
	}
	entry := cursorServer{Command: s.Command, Args: s.Args, Env: s.Env}
	if s.HTTP() {
		entry = cursorServer{URL: s.URL}
		if s.TokenEnv != "" {
			entry.Headers = map[string]string{"Authorization": s.bearer("${env:" + s.TokenEnv + "}")}
		}
	}
	verb := "added"
	if have != nil {
		verb = "replaced"
	}
	return []step{{edit: &fileEdit{path: path, key: "mcpServers", name: s.Name, entry: mustJSON(entry)},
		says: fmt.Sprintf("%s %q in %s (everything else in it kept)", verb, s.Name, path)}}, nil
}

func (cursor) check(*Server) string {
	return "Cursor Settings, MCP (toggle the server, or restart Cursor, to load the changed file)"
}

func (cursor) stores(s *Server) string {
	return fmt.Sprintf("the header \"Authorization: Bearer ${env:%s}\", interpolated when it connects: keep %s", s.TokenEnv, tokenExport(s))
}

// vscode is VS Code: src/vs/platform/mcp/common/mcpManagementCli.ts for
// `code --add-mcp JSON` ({"name": N, "inputs": [...], ...server}, into the
// user profile), docs/copilot/reference/mcp-configuration.md for mcp.json
// ("servers": type stdio {command, args, env} or http {url, headers};
// "inputs": promptString with password, whose answer VS Code keeps in its
// secret storage). Without `code` on PATH the user profile's mcp.json is
// edited instead.
type vscode struct{}

func (vscode) program(*runner) string { return "" } // code is used when present

// vscodeFile is the default profile's mcp.json: $VSCODE_APPDATA, else
// (Linux) $XDG_CONFIG_HOME or ~/.config, (macOS) ~/Library/Application
// Support, (Windows) %APPDATA%; then Code/User/mcp.json.
func vscodeFile(r *runner) (string, error) {
	base := r.getenv("VSCODE_APPDATA")
	if base == "" {
		switch r.goos {
		case "darwin":
			h, err := r.home()
			if err != nil {
				return "", err
			}
			base = filepath.Join(h, "Library", "Application Support")
		case "windows":
			if base = r.getenv("APPDATA"); base == "" {
				return "", fmt.Errorf("clientconfig: %%APPDATA%% is not set: no VS Code profile directory")
			}
		default:
			if base = r.getenv("XDG_CONFIG_HOME"); base == "" {
				h, err := r.home()
				if err != nil {
					return "", err
				}
				base = filepath.Join(h, ".config")
			}
		}
	}
	return filepath.Join(base, "Code", "User", "mcp.json"), nil
}

func (vscode) find(_ context.Context, r *runner, s *Server) (*existing, error) {
	path, err := vscodeFile(r)
	if err != nil {
		return nil, err
	}
	names, err := readServers(path, "servers", true)
	if err != nil {
		return nil, fmt.Errorf("looking for a server named %q: %v", s.Name, err)
	}
	if names[s.Name] {
		return &existing{scope: "user profile, " + path, replaceable: true}, nil
	}
	return nil, nil
}

// vscodeServer is an entry of mcp.json's "servers", in the documented
// order; vscodeInput one of its "inputs".
type vscodeServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

type vscodeInput struct {
	Type        string `json:"type"`
	ID          string `json:"id"`
	Description string `json:"description"`
	Password    bool   `json:"password"`
}

// vscodeEntry is the server's configuration and its inputs.
func vscodeEntry(s *Server) (vscodeServer, []vscodeInput) {
	if !s.HTTP() {
		return vscodeServer{Type: "stdio", Command: s.Command, Args: s.Args, Env: s.Env}, nil
	}
	entry := vscodeServer{Type: "http", URL: s.URL}
	if s.TokenEnv == "" {
		return entry, nil
	}
	id := s.Name + "-token"
	entry.Headers = map[string]string{"Authorization": s.bearer("${input:" + id + "}")}
	desc := "Bearer token of the MCP server " + s.Name
	if s.TokenHint != "" {
		desc += " (" + s.TokenHint + ")"
	}
	return entry, []vscodeInput{{Type: "promptString", ID: id, Description: desc, Password: true}}
}

func (v vscode) addLine(s *Server) []string {
	entry, inputs := vscodeEntry(s)
	def := struct {
		Name string `json:"name"`
		vscodeServer
		Inputs []vscodeInput `json:"inputs,omitempty"`
	}{s.Name, entry, inputs}
	return []string{"code", "--add-mcp", string(mustJSON(def))}
}

func (v vscode) edit(r *runner, s *Server, verb string) (step, error) {
	path, err := vscodeFile(r)
	if err != nil {
		return step{}, err
	}
	entry, inputs := vscodeEntry(s)
	var raw []json.RawMessage
	for _, in := range inputs {
		raw = append(raw, mustJSON(in))
	}
	return step{edit: &fileEdit{path: path, key: "servers", name: s.Name, entry: mustJSON(entry), inputs: raw},
		says: fmt.Sprintf("%s %q in %s (everything else in it kept; `code` is not on PATH)", verb, s.Name, path)}, nil
}

func (v vscode) steps(r *runner, s *Server, have *existing) ([]step, error) {
	verb := "added"
	if have != nil {
		verb = "replaced"
	}
	if _, err := r.lookPath("code"); err == nil {
		return []step{{argv: v.addLine(s), says: fmt.Sprintf("%s %q (user profile)", verb, s.Name)}}, nil
	}
	st, err := v.edit(r, s, verb)
	return []step{st}, err
}

func (v vscode) printSteps(r *runner, s *Server) ([]step, error) {
	st, err := v.edit(r, s, "added")
	return []step{{argv: v.addLine(s)}, st}, err
}

func (vscode) check(s *Server) string {
	c := "the Command Palette's \"MCP: List Servers\""
	if s.HTTP() && s.TokenEnv != "" {
		c += " (starting it asks for the token once)"
	}
	return c
}

func (vscode) stores(s *Server) string {
	return fmt.Sprintf("the header \"Authorization: Bearer ${input:%s-token}\": it asks for the token (%s) when it first starts the server and keeps it in its secret storage, not in mcp.json",
		s.Name, "$"+s.TokenEnv+"'s value"+hintSuffix(s))
}

func hintSuffix(s *Server) string {
	if s.TokenHint == "" {
		return ""
	}
	return "; " + s.TokenHint
}
