package clienttest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The real clients: Claude Code, Codex CLI, Gemini CLI and the MCP
// Inspector, with the Node they run on, installed from npm at the versions
// .ci/clients pins into a private prefix whose bin directory
// $VERBSURFACE_CLIENTS_BIN names. Tests run them by absolute path, or
// through recorders on a PATH of the user's own, never the test's PATH
// (where .ci/run puts tripwires that fail the run if started).
const (
	ClientsBinEnv     = "VERBSURFACE_CLIENTS_BIN"
	RequireClientsEnv = "VERBSURFACE_REQUIRE_CLIENTS"
)

// RealPrograms are the programs the real-client tests need in
// $VERBSURFACE_CLIENTS_BIN.
var RealPrograms = []string{"claude", "codex", "gemini", "inspector", "node"}

// RealClientsBin returns $VERBSURFACE_CLIENTS_BIN when it holds every one of
// [RealPrograms]. Otherwise it skips the test saying why, or, under .ci/run
// ($VERBSURFACE_REQUIRE_CLIENTS=1), fails it.
func RealClientsBin(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(ClientsBinEnv)
	why := ""
	if dir == "" {
		why = "$" + ClientsBinEnv + " is not set: install the pinned clients (see .ci/run, .ci/clients) and set it to their bin directory"
	} else {
		for _, p := range RealPrograms {
			if fi, err := os.Stat(filepath.Join(dir, p)); err != nil || fi.Mode()&0o111 == 0 {
				why = "$" + ClientsBinEnv + " (" + dir + ") has no program " + p
				break
			}
		}
	}
	if why != "" {
		if os.Getenv(RequireClientsEnv) == "1" {
			t.Fatalf("%s=1 but %s", RequireClientsEnv, why)
		}
		t.Skip(why)
	}
	return dir
}

// RealUser is a person with the real clients: a home of their own, where
// the clients keep their configuration; on PATH, recorders that log each
// run of claude, codex and gemini and then run the real one
// ([RealUser.Invocations]), then the clients' directory and the system's;
// the proxy variables pointing at a tripwire that records and refuses
// every connection beyond loopback ([RealUser.NetworkAttempts]); and
// $VERBSURFACE_LOG_FILE naming the file every server the clients start or
// reach logs each MCP request to.
type RealUser struct {
	t    testing.TB
	Bin  string
	Home string
	Log  string
	// record is where the recorders on PATH log the clients' runs.
	record string
	wire   *tripwire
	// codeLog is where VS Code's stand-in logs, once added.
	codeLog string
	// Env is the user's environment, for the clients and for the fronts'
	// install commands.
	Env []string
}

// NewRealUser returns a user whose environment is base (the test's, say)
// with HOME, PATH and the clients' own variables replaced.
func NewRealUser(t testing.TB, bin string, base []string) *RealUser {
	t.Helper()
	home, recorders := t.TempDir(), t.TempDir()
	u := &RealUser{t: t, Bin: bin, Home: home, Log: filepath.Join(home, "requests.jsonl"),
		record: filepath.Join(recorders, "invocations"), wire: newTripwire(t)}
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := writeRecorders(recorders, bin, u.record); err != nil {
		t.Fatal(err)
	}
	drop := append([]string{"HOME=", "PATH=", "CODEX_HOME=", "GEMINI_CLI_HOME=", "CLAUDE_CONFIG_DIR=", "XDG_CONFIG_HOME=", "XDG_CACHE_HOME=", "XDG_DATA_HOME="}, proxyVars...)
	for _, kv := range base {
		keep := true
		for _, d := range drop {
			if strings.HasPrefix(kv, d) {
				keep = false
			}
		}
		if keep {
			u.Env = append(u.Env, kv)
		}
	}
	u.Env = append(u.Env,
		"HOME="+home, "PATH="+recorders+":"+bin+":/usr/local/bin:/usr/bin:/bin", "CODEX_HOME="+filepath.Join(home, ".codex"),
		"VERBSURFACE_LOG_FILE="+u.Log,
		// Nothing the clients would fetch: no update check, no telemetry.
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "GEMINI_TELEMETRY_ENABLED=false",
		"NO_UPDATE_NOTIFIER=1", "NO_COLOR=1")
	u.Env = append(u.Env, u.wire.environ()...)
	return u
}

// Run runs a client's program (argv[0], from Bin) as the user, in the
// home directory, with more environment, and returns its output (stdout
// then stderr) and exit status.
func (u *RealUser) Run(more []string, argv ...string) (stdout, stderr string, code int) {
	u.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(u.Bin, argv[0]), argv[1:]...)
	cmd.Env = append(append([]string(nil), u.Env...), more...)
	cmd.Dir = u.Home
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		u.t.Fatalf("%v did not finish within 3 minutes\n%s%s", argv, out.String(), errb.String())
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		u.t.Fatalf("%v: %v", argv, err)
	}
	return out.String(), errb.String(), code
}

// LoggedRequest is one line of the request log (verbsurface.LogRequests).
type LoggedRequest struct {
	Method  string `json:"method"`
	Client  string `json:"client"`
	Tool    string `json:"tool"`
	Outcome string `json:"outcome"`
}

// Requests reads the requests every server logged so far.
func (u *RealUser) Requests() []LoggedRequest {
	u.t.Helper()
	f, err := os.Open(u.Log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		u.t.Fatal(err)
	}
	defer f.Close()
	var out []LoggedRequest
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r LoggedRequest
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			u.t.Fatalf("%s: %v: %s", u.Log, err, sc.Bytes())
		}
		out = append(out, r)
	}
	return out
}

// Received reports whether a server logged method from a client whose
// name holds client, and the log as lines, for a failure message.
func (u *RealUser) Received(method, client string) (bool, string) {
	u.t.Helper()
	var b strings.Builder
	found := false
	for _, r := range u.Requests() {
		b.WriteString("  " + r.Method + " from " + r.Client + " (" + r.Outcome + ")\n")
		if r.Method == method && strings.Contains(strings.ToLower(r.Client), client) && r.Outcome == "ok" {
			found = true
		}
	}
	return found, b.String()
}

// SeesTheTool shows that client (claude, codex or gemini), configured as
// the user's, reaches the server it knows as name and receives the one
// tool, more being the environment the client starts in (the token's
// variable, for HTTP). It reads the client's own listing by its structure
// and exit status, then the request log:
//
//   - claude: `claude mcp list` connects to every server and lists its
//     tools: the line "NAME: TARGET - STATUS" says Connected, and the
//     server received tools/list from Claude Code.
//   - codex: `codex mcp list --json` has the server, enabled, but does not
//     connect; Codex's app server does, for mcpServerStatus/list (what
//     /mcp shows in a session), with no login and no model call: the
//     answer lists the tool "request", and the server received tools/list
//     from Codex. Codex passes a server only the variables it names, so
//     VERBSURFACE_LOG_FILE is named for this run (env_vars). The app
//     server reaches for the network at its start (it syncs the curated
//     plugin marketplace from github.com and asks chatgpt.com for its
//     catalog), so it runs with features.plugins=false, which stops both;
//     a stdio server's check runs in a network namespace of its own
//     where the machine allows one (unshare -rn), and the check fails if
//     the app server tried any connection through the tripwire.
//   - gemini: `gemini mcp list`, in a folder it trusts, says Connected: it
//     initializes and pings, and lists no tools (the log has its
//     initialize; nothing short of a model call makes it list them).
func (u *RealUser) SeesTheTool(client, name string, more []string) {
	u.t.Helper()
	switch client {
	case "claude":
		out, errOut, code := u.Run(more, "claude", "mcp", "list")
		status, ok := listedStatus(out, name+": ")
		if code != 0 || !ok || !strings.HasSuffix(status, "Connected") {
			u.t.Fatalf("claude mcp list: exit %d, server %q status %q; want Connected\n%s%s", code, name, status, out, errOut)
		}
		if got, log := u.Received("tools/list", "claude"); !got {
			u.t.Fatalf("the server received no tools/list from Claude Code; it logged:\n%s", log)
		}
	case "codex":
		out, errOut, code := u.Run(more, "codex", "mcp", "list", "--json")
		var list []struct {
			Name      string `json:"name"`
			Enabled   bool   `json:"enabled"`
			Transport struct {
				Type string `json:"type"`
			} `json:"transport"`
		}
		if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil {
			u.t.Fatalf("codex mcp list --json: exit %d, %v\n%s%s", code, err, out, errOut)
		}
		found, stdio := false, false
		for _, s := range list {
			if s.Name == name && s.Enabled {
				found, stdio = true, s.Transport.Type == "stdio"
			}
		}
		if !found {
			u.t.Fatalf("codex mcp list --json has no enabled server %q:\n%s", name, out)
		}
		tools := u.codexTools(name, stdio, more)
		if _, ok := tools["request"]; !ok || len(tools) != 1 {
			u.t.Fatalf("Codex's app server lists the tools %v of %q; want the one tool request", keys(tools), name)
		}
		if got, log := u.Received("tools/list", "codex"); !got {
			u.t.Fatalf("the server received no tools/list from Codex; it logged:\n%s", log)
		}
	case "gemini":
		// Gemini CLI writes its list on stderr.
		out, errOut, code := u.Run(more, "gemini", "mcp", "list")
		status, ok := listedStatus(out+errOut, " "+name+": ")
		if code != 0 || !ok || status != "Connected" {
			u.t.Fatalf("gemini mcp list: exit %d, server %q status %q; want Connected\n%s%s", code, name, status, out, errOut)
		}
		if got, log := u.Received("initialize", ""); !got {
			u.t.Fatalf("the server received no initialize from Gemini CLI; it logged:\n%s", log)
		}
	default:
		u.t.Fatalf("SeesTheTool: no client %q", client)
	}
}

// listedStatus finds the line of a client's server list that holds
// marker ("NAME: ") and returns what follows its last " - ", the status.
func listedStatus(out, marker string) (string, bool) {
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(" "+line, marker) {
			continue
		}
		i := strings.LastIndex(line, " - ")
		if i < 0 {
			return "", false
		}
		return strings.TrimSpace(line[i+3:]), true
	}
	return "", false
}

// codexTools asks Codex's app server (JSON-RPC on stdio) for the status
// of its MCP servers, and returns the tools it lists for name.
func (u *RealUser) codexTools(name string, stdio bool, more []string) map[string]json.RawMessage {
	u.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	argv := []string{filepath.Join(u.Bin, "codex"), "app-server", "-c", "features.plugins=false"}
	if stdio { // env_vars is a stdio server's only
		argv = append(argv, "-c", `mcp_servers.`+name+`.env_vars=["VERBSURFACE_LOG_FILE"]`)
		// An HTTP server listens on this namespace's loopback.
		argv, _ = withoutNetwork(argv)
	}
	before := len(u.NetworkAttempts())
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(append([]string(nil), u.Env...), more...)
	cmd.Dir = u.Home
	stdin, err := cmd.StdinPipe()
	if err != nil {
		u.t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		u.t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		u.t.Fatal(err)
	}
	defer func() {
		// The app server ends at the end of its input; what it tried
		// until then is what the tripwire saw.
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if tried := u.NetworkAttempts()[before:]; len(tried) != 0 {
			u.t.Errorf("Codex's app server tried to reach the network: %q", tried)
		}
	}()
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"verbsurface-test","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"mcpServerStatus/list","params":{}}`,
	} {
		if _, err := stdin.Write([]byte(m + "\n")); err != nil {
			u.t.Fatal(err)
		}
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Error  json.RawMessage `json:"error"`
			Result struct {
				Data []struct {
					Name  string                     `json:"name"`
					Tools map[string]json.RawMessage `json:"tools"`
				} `json:"data"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || string(msg.ID) != "2" {
			continue
		}
		if msg.Error != nil {
			u.t.Fatalf("codex app-server mcpServerStatus/list: %s", msg.Error)
		}
		for _, d := range msg.Result.Data {
			if d.Name == name {
				return d.Tools
			}
		}
		u.t.Fatalf("codex app-server mcpServerStatus/list has no server %q: %s", name, sc.Bytes())
	}
	u.t.Fatalf("codex app-server ended without answering mcpServerStatus/list: %v\n%s", sc.Err(), stderr.String())
	return nil
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Inspect runs the MCP Inspector's CLI mode (`inspector --cli TARGET...
// ARGS...`) as the user, and returns its answer, decoded.
func (u *RealUser) Inspect(args ...string) map[string]any {
	u.t.Helper()
	out, errOut, code := u.Run(nil, append([]string{"inspector", "--cli"}, args...)...)
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil {
		u.t.Fatalf("inspector --cli %v: exit %d, %v\n%s%s", args, code, err, out, errOut)
	}
	return v
}
