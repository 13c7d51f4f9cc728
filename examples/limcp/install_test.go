//go:build unix

package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/verbsurface/verbsurface/internal/clientconfig/clienttest"
)

// The install tests run `limcp mcp install CLIENT` against the real Claude
// Code, Codex CLI and Gemini CLI that .ci/run installs from npm
// (clienttest.RealUser: a home of their own, recorders on PATH, no
// network), and against a stand-in only for VS Code's code
// (internal/clientconfig/fakeclient), which cannot be installed here;
// Cursor has no program. They then show the server connected: through the
// client's own list where it has one that connects (Claude Code, Gemini
// CLI), and by starting or reaching exactly what the client stored with a
// go-sdk client.

// clientEnv is a user with the clients' programs on PATH and a home of
// their own.
type clientEnv struct {
	*env
	user  string // the user's home (HOME), where the clients keep their files
	real  *clienttest.RealUser
	extra []string
}

// newClientEnv is a user with the real clients (the test skips without
// them, or fails under .ci/run) and VS Code's stand-in after them on
// PATH, working in their home.
func newClientEnv(t *testing.T) *clientEnv {
	bin := clienttest.RealClientsBin(t)
	e := &clientEnv{env: newEnv(t)}
	e.real = clienttest.NewRealUser(t, bin, e.environ())
	e.real.AddVSCode("")
	e.user, e.extra = e.real.Home, e.real.Env
	return e
}

// newUserEnv is a user with a home of their own and no client program
// of theirs on PATH, for what needs none (Cursor, the doctor, metrics).
func newUserEnv(t *testing.T) *clientEnv {
	e := &clientEnv{env: newEnv(t), user: t.TempDir()}
	e.extra = []string{"HOME=" + e.user}
	return e
}

// limcp runs limcp --home HOME args... as the user, in their home,
// returning stdout and the exit status.
func (e *clientEnv) limcp(args ...string) (string, string, int) {
	e.t.Helper()
	cmd := execLimcp(e.env, e.extra, append([]string{"--home", e.home}, args...)...)
	cmd.Dir = e.user
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return string(out), stderr.String(), code
}

// client runs a real client's program as the user, with more variables,
// and returns its output (stdout then stderr) and exit status.
func (e *clientEnv) client(more []string, argv ...string) (string, int) {
	e.t.Helper()
	out, errOut, code := e.real.Run(more, argv...)
	return out + errOut, code
}

// clientOK is client, wanting it to succeed.
func (e *clientEnv) clientOK(more []string, argv ...string) string {
	e.t.Helper()
	out, code := e.client(more, argv...)
	if code != 0 {
		e.t.Fatalf("%v: exit %d\n%s", argv, code, out)
	}
	return out
}

// codexGet is what `codex mcp get NAME --json` prints on stdout.
func (e *clientEnv) codexGet(name string) string {
	e.t.Helper()
	out, errOut, code := e.real.Run(nil, "codex", "mcp", "get", name, "--json")
	if code != 0 {
		e.t.Fatalf("codex mcp get %s --json: exit %d\n%s%s", name, code, out, errOut)
	}
	return out
}

// trust is what install needs for the client to run the server in the
// user's home: Gemini CLI runs none in a folder it does not trust.
func trust(e *clientEnv, client string) []string {
	if client == "gemini" {
		return []string{"--trust-folder", e.user}
	}
	return nil
}

// headerClient sends headers with every request, as a client configured
// with them does.
func headerClient(headers map[string]string) *http.Client {
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		for k, v := range headers {
			r.Header.Set(k, v)
		}
		return http.DefaultTransport.RoundTrip(r)
	})}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// connect starts or reaches a stored server as its client would, and
// returns the session.
func (e *clientEnv) connect(command string, args []string, env map[string]string, url string, headers map[string]string) *mcpClient {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var t mcp.Transport
	if url != "" {
		t = &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1, DisableStandaloneSSE: true, HTTPClient: headerClient(headers)}
	} else {
		cmd := exec.Command(command, args...)
		cmd.Env = e.environ()
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		t = &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "installed", Version: "v0"}, nil).Connect(ctx, t, nil)
	if err != nil {
		e.t.Fatalf("connecting as the client would (%s%s %v): %v", url, command, args, err)
	}
	e.t.Cleanup(func() { cs.Close() })
	return &mcpClient{t: e.t, cs: cs, home: e.home}
}

// seesTheRun lists the runs through the connected server and wants the
// one submitted from the shell: the client reaches this home.
func seesTheRun(t *testing.T, c *mcpClient, id string) {
	t.Helper()
	var l struct {
		Records []struct {
			ID string `json:"id"`
		} `json:"records"`
	}
	c.must(&l, "job.list", map[string]any{}, "")
	for _, r := range l.Records {
		if r.ID == id {
			return
		}
	}
	t.Fatalf("job.list through the installed server has %+v; want the run %s submitted from the shell", l.Records, id)
}

func readJSONFile(t *testing.T, path string, keys ...string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, k := range keys {
		v = v.(map[string]any)[k]
	}
	m, _ := v.(map[string]any)
	return m
}

func strList(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func strDict(v any) map[string]string {
	out := map[string]string{}
	m, _ := v.(map[string]any)
	for k, x := range m {
		out[k] = x.(string)
	}
	return out
}

// TestMCPInstallConnectsEachClient: one command per client adds limcp's
// stdio server user-wide, reports each step in one line, and the client
// then has a server that connects and reaches this shell's runs.
func TestMCPInstallConnectsEachClient(t *testing.T) {
	for _, client := range []string{"claude", "codex", "gemini", "cursor", "vscode"} {
		t.Run(client, func(t *testing.T) {
			e := newClientEnv(t)
			run := e.submit("agent", "echo", "hello")
			out, stderr, code := e.limcp(append([]string{"mcp", "install", client}, trust(e, client)...)...)
			if code != 0 {
				t.Fatalf("limcp mcp install %s: exit %d\n%s%s", client, code, out, stderr)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			want := 3 // Gemini CLI: and one for the folder it trusts
			if client == "gemini" {
				want = 4
			}
			if len(lines) != want || !strings.Contains(lines[want-2], "check it with") || !strings.Contains(lines[want-1], `a client will see the one tool "request"`) {
				t.Errorf("output %q; want one line for the step, one naming the client's check, one with install's own", lines)
			}
			switch client {
			case "claude":
				list := e.clientOK(nil, "claude", "mcp", "list")
				if want := "limcp: " + limcpBin + " mcp - ✔ Connected"; !strings.Contains(list, want) {
					t.Fatalf("claude mcp list:\n%s\nwant %q", list, want)
				}
				entry := readJSONFile(t, filepath.Join(e.user, ".claude.json"), "mcpServers", "limcp")
				if strDict(entry["env"])["LIMCP_HOME"] != e.home {
					t.Errorf("stored %v; want LIMCP_HOME=%s", entry, e.home)
				}
				seesTheRun(t, e.connect(entry["command"].(string), strList(entry["args"]), strDict(entry["env"]), "", nil), run.ID)
			case "gemini":
				list := e.clientOK(nil, "gemini", "mcp", "list")
				if want := "✓ limcp: " + limcpBin + " mcp (stdio) - Connected"; !strings.Contains(list, want) {
					t.Fatalf("gemini mcp list:\n%s\nwant %q", list, want)
				}
				entry := readJSONFile(t, filepath.Join(e.user, ".gemini", "settings.json"), "mcpServers", "limcp")
				seesTheRun(t, e.connect(entry["command"].(string), strList(entry["args"]), strDict(entry["env"]), "", nil), run.ID)
			case "codex":
				var got struct {
					Transport struct {
						Command string            `json:"command"`
						Args    []string          `json:"args"`
						Env     map[string]string `json:"env"`
					} `json:"transport"`
				}
				if err := json.Unmarshal([]byte(e.codexGet("limcp")), &got); err != nil {
					t.Fatal(err)
				}
				tr := got.Transport
				seesTheRun(t, e.connect(tr.Command, tr.Args, tr.Env, "", nil), run.ID)
			case "cursor", "vscode":
				path, key := filepath.Join(e.user, ".cursor", "mcp.json"), "mcpServers"
				if client == "vscode" {
					path, key = filepath.Join(e.user, ".config", "Code", "User", "mcp.json"), "servers"
				}
				entry := readJSONFile(t, path, key, "limcp")
				seesTheRun(t, e.connect(entry["command"].(string), strList(entry["args"]), strDict(entry["env"]), "", nil), run.ID)
			}
		})
	}
}

// TestMCPInstallHTTP: with --http the client reaches a running `limcp mcp
// --http`, reading the bearer token from $LIMCP_MCP_TOKEN when it
// connects: connected with the variable set, refused without it, and the
// token is nowhere in the clients' files.
func TestMCPInstallHTTP(t *testing.T) {
	const token = "install-test-token-0123456789abcdef0123"
	for _, client := range []string{"claude", "codex", "gemini", "cursor", "vscode"} {
		t.Run(client, func(t *testing.T) {
			e := newClientEnv(t)
			srv := e.startHTTPServer(token)
			out, stderr, code := e.limcp(append([]string{"mcp", "install", client, "--http", srv.url}, trust(e, client)...)...)
			if code != 0 {
				t.Fatalf("limcp mcp install %s --http: exit %d\n%s%s", client, code, out, stderr)
			}
			if !strings.Contains(out, "LIMCP_MCP_TOKEN") {
				t.Errorf("output does not say the token comes from $LIMCP_MCP_TOKEN:\n%s", out)
			}
			withToken := []string{"LIMCP_MCP_TOKEN=" + token}
			switch client {
			case "claude":
				if list := e.clientOK(withToken, "claude", "mcp", "list"); !strings.Contains(list, "limcp: "+srv.url+" (HTTP) - ✔ Connected") {
					t.Fatalf("claude mcp list with the token:\n%s", list)
				}
				if list, _ := e.client(nil, "claude", "mcp", "list"); !strings.Contains(list, "limcp: "+srv.url+" (HTTP) - ✘ Failed to connect") {
					t.Fatalf("claude mcp list without the token:\n%s", list)
				}
			case "gemini":
				if list := e.clientOK(withToken, "gemini", "mcp", "list"); !strings.Contains(list, "✓ limcp: "+srv.url+" (http) - Connected") {
					t.Fatalf("gemini mcp list with the token:\n%s", list)
				}
				if list, _ := e.client(nil, "gemini", "mcp", "list"); !strings.Contains(list, "Disconnected") {
					t.Fatalf("gemini mcp list without the token:\n%s", list)
				}
			case "codex":
				var got struct {
					Transport struct {
						URL               string `json:"url"`
						BearerTokenEnvVar string `json:"bearer_token_env_var"`
					} `json:"transport"`
				}
				if err := json.Unmarshal([]byte(e.codexGet("limcp")), &got); err != nil {
					t.Fatal(err)
				}
				if got.Transport.URL != srv.url || got.Transport.BearerTokenEnvVar != "LIMCP_MCP_TOKEN" {
					t.Fatalf("codex stored %+v", got.Transport)
				}
				// Codex sends Authorization: Bearer $VAR.
				e.connect("", nil, nil, srv.url, map[string]string{"Authorization": "Bearer " + token}).catalog()
			case "cursor", "vscode":
				path, key, ref := filepath.Join(e.user, ".cursor", "mcp.json"), "mcpServers", "${env:LIMCP_MCP_TOKEN}"
				if client == "vscode" {
					path, key, ref = filepath.Join(e.user, ".config", "Code", "User", "mcp.json"), "servers", "${input:limcp-token}"
				}
				entry := readJSONFile(t, path, key, "limcp")
				h := strDict(entry["headers"])["Authorization"]
				if h != "Bearer "+ref {
					t.Fatalf("stored header %q; want Bearer %s", h, ref)
				}
				// The client resolves the reference: the variable's value,
				// or (VS Code) what the person typed at its prompt.
				e.connect("", nil, nil, entry["url"].(string), map[string]string{"Authorization": strings.Replace(h, ref, token, 1)}).catalog()
			}
			if leaked := filesHolding(t, e.user, token); len(leaked) > 0 {
				t.Errorf("the token is stored in clear in %v", leaked)
			}
		})
	}
}

// filesHolding lists the files under dir that contain s.
func filesHolding(t *testing.T, dir, s string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), s) {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMCPInstallClash: installing twice under one name is refused with
// already_exists saying what to do, and changes nothing; --name adds a
// second server beside it; --force replaces it.
func TestMCPInstallClash(t *testing.T) {
	e := newClientEnv(t)
	if _, stderr, code := e.limcp("mcp", "install", "claude"); code != 0 {
		t.Fatalf("first install: %s", stderr)
	}
	// What Claude Code keeps of its servers: every run also rewrites its
	// own bookkeeping in the file.
	before := readJSONFile(t, filepath.Join(e.user, ".claude.json"), "mcpServers")
	out, _, code := e.limcp("--json", "mcp", "install", "claude", "--read-only")
	var r result
	if err := json.Unmarshal([]byte(out), &r); err != nil || code == 0 || r.OK || r.Error.Code != "already_exists" ||
		!strings.Contains(r.Error.Message, "--force") || !strings.Contains(r.Error.Message, "--name") {
		t.Fatalf("second install: exit %d: %s", code, out)
	}
	if d := cmp.Diff(before, readJSONFile(t, filepath.Join(e.user, ".claude.json"), "mcpServers")); d != "" {
		t.Errorf("a refused install changed the servers of ~/.claude.json (-before +after):\n%s", d)
	}
	if _, stderr, code := e.limcp("mcp", "install", "claude", "--name", "limcp-ro", "--read-only"); code != 0 {
		t.Fatalf("--name: %s", stderr)
	}
	if out, stderr, code := e.limcp("mcp", "install", "claude", "--force", "--read-only"); code != 0 || !strings.Contains(out, "removed") {
		t.Fatalf("--force: exit %d\n%s%s", code, out, stderr)
	}
	servers := readJSONFile(t, filepath.Join(e.user, ".claude.json"), "mcpServers")
	if len(servers) != 2 || strings.Join(strList(servers["limcp"].(map[string]any)["args"]), " ") != "mcp --read-only" {
		t.Fatalf("servers after --name and --force: %v", servers)
	}
}

// TestMCPInstallPrint: --print shows the command and runs nothing, writes
// nothing.
func TestMCPInstallPrint(t *testing.T) {
	e := newClientEnv(t)
	for _, client := range []string{"claude", "codex", "gemini", "cursor", "vscode"} {
		out, stderr, code := e.limcp("mcp", "install", client, "--print")
		if code != 0 || !strings.Contains(out, limcpBin) || !strings.Contains(out, "LIMCP_HOME") || !strings.Contains(out, e.home) {
			t.Errorf("%s --print: exit %d\n%s%s", client, code, out, stderr)
		}
	}
	if invs := e.real.Invocations(); len(invs) != 0 {
		t.Errorf("--print ran %+v", invs)
	}
	if files := filesHolding(t, e.user, ""); len(files) != 0 {
		t.Errorf("--print wrote %v", files)
	}
}

// TestMCPInstallUsageHasNoBackQuotes: pflag reads a back-quoted word in a
// flag's usage as the value's name; --help shows "--http string", not a
// command line in its place.
func TestMCPInstallUsageHasNoBackQuotes(t *testing.T) {
	out, _, code := newEnv(t).run("mcp", "install", "--help")
	if code != 0 || !strings.Contains(out, "--http string") {
		t.Errorf("limcp mcp install --help: exit %d\n%s\nwant --http string", code, out)
	}
}
