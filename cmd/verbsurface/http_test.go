//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpToken is a configured bearer token (at least 32 characters).
const httpToken = "e2e-token-0123456789abcdefghijklmnopqrstuv"

// lockedBuffer is a server's stderr, read while the server writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// httpServer is a running `verbsurface serve --http` of the real binary.
type httpServer struct {
	url string
	pid int
	log *lockedBuffer
}

// listening matches the start line, which names the URL actually bound.
var listening = regexp.MustCompile(`streamable HTTP on (http://\S+/mcp)`)

// vsEnv is the environment of a test server: no token from the test's own
// environment, state under a private directory, the notes in home.
func vsEnv(t *testing.T, state string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, tokenEnv+"=") && !strings.HasPrefix(kv, "XDG_STATE_HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, append([]string{"XDG_STATE_HOME=" + state, "NOTES_HOME=" + t.TempDir()}, extra...)...)
}

// serveHTTPBin starts the binary and waits for its URL; the server is
// stopped with SIGTERM (and reaped) when the test ends.
func serveHTTPBin(t *testing.T, env []string, args ...string) *httpServer {
	t.Helper()
	cmd := exec.Command(vsBin, append([]string{"serve"}, args...)...)
	cmd.Env = env
	log := &lockedBuffer{}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil && !t.Failed() {
				t.Errorf("the server did not exit cleanly on SIGTERM: %v\n%s", err, log)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Errorf("the server outlived SIGTERM by 10 s")
		}
	})
	deadline := time.After(30 * time.Second)
	for {
		if m := listening.FindStringSubmatch(log.String()); m != nil && strings.Contains(log.String(), "\n") {
			return &httpServer{url: m[1], pid: cmd.Process.Pid, log: log}
		}
		select {
		case err := <-exited:
			exited <- err // for the cleanup, which waits for the exit too
			t.Fatalf("the server exited before serving: %v\n%s", err, log)
		case <-deadline:
			t.Fatalf("the server never said where it serves:\n%s", log)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// startRefused runs the binary expecting it to refuse to start; it
// returns stderr.
func startRefused(t *testing.T, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, vsBin, append([]string{"serve"}, args...)...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("serve %s: %v; want a refusal at start with status 1\n%s", args, err, stderr.String())
	}
	return stderr.String()
}

// rawInitialize posts an initialize with these headers.
func rawInitialize(t *testing.T, url string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	return rawPostJSON(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`, hdr)
}

// rawPostJSON posts a JSON-RPC body with these headers.
func rawPostJSON(t *testing.T, url, body string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// protocolVersions are the two ways a request reaches the tool over
// HTTP, which every guarantee of the HTTP face must hold on: a session of
// a client on a version before 2026-07-28, and 2026-07-28, served
// without one (each request names its version in the
// MCP-Protocol-Version header and in its _meta).
var protocolVersions = []string{"2025-06-18", "2026-07-28"}

// rawProbe posts a client's first request on version with these headers:
// initialize before 2026-07-28, tools/list on it.
func rawProbe(t *testing.T, url, version string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	if version < "2026-07-28" {
		return rawInitialize(t, url, hdr)
	}
	all := map[string]string{"Mcp-Protocol-Version": version, "Mcp-Method": "tools/list"}
	for k, v := range hdr {
		all[k] = v
	}
	return rawPostJSON(t, url, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"`+version+`","io.modelcontextprotocol/clientCapabilities":{}}}}`, all)
}

// withBearer adds the token to every request of a streamable client.
type withBearer string

func (b withBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// httpClient is a real go-sdk streamable client session with the server.
func httpClient(t *testing.T, url, token string) *client {
	t.Helper()
	return httpClientAt(t, url, token, "")
}

// httpClientAt is httpClient pinned to a protocol version ("" for the
// SDK's default).
func httpClientAt(t *testing.T, url, token, version string) *client {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: withBearer(token)}}
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-http", Version: "v0"}, nil).Connect(context.Background(), tr, opts)
	if err != nil {
		t.Fatalf("connecting to %s on %q: %v", url, version, err)
	}
	if version != "" && cs.InitializeResult().ProtocolVersion != version {
		t.Fatalf("connected on %s; want %s", cs.InitializeResult().ProtocolVersion, version)
	}
	t.Cleanup(func() { cs.Close() })
	return &client{t: t, cs: cs}
}

// The argparse notes fixture over HTTP with $VERBSURFACE_TOKEN: refused
// without the token, with a wrong one and from a foreign Origin; served
// to a real go-sdk client holding it (catalog, help, a fingerprinted op);
// the token never printed.
func TestHTTPServeWithToken(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) { serveWithToken(t, version) })
	}
}

func serveWithToken(t *testing.T, version string) {
	dir := copyFixture(t)
	srv := serveHTTPBin(t, vsEnv(t, t.TempDir(), tokenEnv+"="+httpToken), "-c", filepath.Join(dir, "notes.yaml"), "--http", "127.0.0.1:0")

	for name, hdr := range map[string]map[string]string{
		"no Authorization": nil,
		"a wrong token":    {"Authorization": "Bearer " + strings.Repeat("x", len(httpToken))},
		"another scheme":   {"Authorization": "Basic " + httpToken},
	} {
		resp, body := rawProbe(t, srv.url, version, hdr)
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: HTTP %d, WWW-Authenticate %q, %s; want 401 with a Bearer challenge", name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
		}
	}
	resp, body := rawProbe(t, srv.url, version, map[string]string{"Authorization": "Bearer " + httpToken, "Origin": "https://evil.example"})
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "verbsurface serve: Forbidden") || !strings.Contains(body, "--allow-origin") {
		t.Errorf("a foreign Origin with the token: HTTP %d %s; want 403 naming --allow-origin", resp.StatusCode, body)
	}

	c := httpClientAt(t, srv.url, httpToken, version)
	cat := c.call(`{"help":true}`)["help"].(map[string]any)
	if verbs := fmt.Sprint(cat["verbs"]); !strings.Contains(verbs, "note.add") || !strings.Contains(verbs, "note.list") {
		t.Fatalf("catalog over HTTP: %v", cat)
	}
	_, fp := c.help("note.add")
	if r := c.op(`{"op":"note.add","args":{"text":"over http"},"fingerprint":"` + fp + `"}`); r["ok"] != true {
		t.Fatalf("note.add over HTTP: %v", r)
	}
	if r := c.op(`{"op":"note.list"}`); len(r["result"].(map[string]any)["notes"].([]any)) != 1 {
		t.Fatalf("note.list over HTTP: %v", r)
	}

	log := srv.log.String()
	if strings.Contains(log, httpToken) {
		t.Fatalf("the token is printed:\n%s", log)
	}
	if !strings.Contains(log, `--header 'Authorization: Bearer ${`+tokenEnv+`}'`) || !strings.Contains(log, "no file access") {
		t.Fatalf("the start lines do not say how a client connects, or what files it may name:\n%s", log)
	}
}

// Without a configured token, one is generated 0600 into a 0700 directory
// under $XDG_STATE_HOME and reused by the next start; the client line
// reads it from the file and never holds it.
func TestHTTPGeneratedToken(t *testing.T) {
	dir := copyFixture(t)
	state := t.TempDir()
	config := filepath.Join(dir, "notes.yaml")
	srv := serveHTTPBin(t, vsEnv(t, state), "-c", config, "--http", "127.0.0.1:0")
	path := filepath.Join(state, "verbsurface", "notes", tokenFileName)
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700 | os.ModeDir} {
		if fi, err := os.Stat(p); err != nil || fi.Mode() != want {
			t.Fatalf("%s: %v, %v; want mode %v", p, fi.Mode(), err, want)
		}
	}
	b, _ := os.ReadFile(path)
	token := strings.TrimSpace(string(b))
	log := srv.log.String()
	if len(token) < 32 || strings.Contains(log, token) {
		t.Fatalf("generated token %q, or it is printed:\n%s", token, log)
	}
	if want := `export VERBSURFACE_TOKEN="$(cat ` + path + `)"` + "\n  verbsurface install claude -c " + config + " --http " + srv.url; !strings.Contains(log, want) || !strings.Contains(log, "generated into "+path) {
		t.Fatalf("want %q in:\n%s", want, log)
	}
	for _, version := range protocolVersions {
		if resp, _ := rawProbe(t, srv.url, version, nil); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("%s, without the generated token: HTTP %d", version, resp.StatusCode)
		}
		c := httpClientAt(t, srv.url, token, version)
		if r := c.op(`{"op":"note.list"}`); r["ok"] != true {
			t.Fatalf("%s, note.list with the generated token: %v", version, r)
		}
	}

	again := serveHTTPBin(t, vsEnv(t, state), "-c", config, "--http", "127.0.0.1:0")
	if !strings.Contains(again.log.String(), "read from "+path) {
		t.Fatalf("the second server does not reuse the token:\n%s", again.log)
	}
	if b2, _ := os.ReadFile(path); string(b2) != string(b) {
		t.Fatal("the second server replaced the token")
	}
}

// Start refusals: each names what is wrong and how to fix it, before
// anything is served.
func TestHTTPStartRefusals(t *testing.T) {
	dir := copyFixture(t)
	config := filepath.Join(dir, "notes.yaml")
	state := t.TempDir()

	loose := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(loose, []byte(httpToken+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(t.TempDir(), "short")
	if err := os.WriteFile(short, []byte("sixteen-chars-xx\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	openDir := filepath.Join(t.TempDir(), "open")
	if err := os.MkdirAll(filepath.Join(openDir, "verbsurface", "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(openDir, "verbsurface", "notes"), 0o755) // whatever the umask
	for _, c := range []struct {
		name string
		env  []string
		args []string
		want []string
	}{
		{"--insecure-no-auth beyond loopback", vsEnv(t, state), []string{"--http", "0.0.0.0:0", "--insecure-no-auth"},
			[]string{"not a loopback address", "--insecure-no-auth serves loopback only"}},
		{"no configured token beyond loopback", vsEnv(t, state), []string{"--http", "0.0.0.0:0"},
			[]string{"non-loopback", "$" + tokenEnv}},
		{"a token file others can read", vsEnv(t, state), []string{"--http", "127.0.0.1:0", "--token-file", loose},
			[]string{"--token-file", loose, "mode 0644", "chmod 600 " + loose}},
		{"a short token", vsEnv(t, state), []string{"--http", "127.0.0.1:0", "--token-file", short},
			[]string{"16 characters", "at least 32"}},
		{"--insecure-no-auth with a token", vsEnv(t, state, tokenEnv+"="+httpToken), []string{"--http", "127.0.0.1:0", "--insecure-no-auth"},
			[]string{"choose one"}},
		{"an HTTP flag without --http", vsEnv(t, state), []string{"--max-sessions", "3"},
			[]string{"--max-sessions applies to --http only"}},
		{"a foreign --allow-origin", vsEnv(t, state), []string{"--http", "127.0.0.1:0", "--allow-origin", "*"},
			[]string{`--allow-origin "*"`}},
		{"a token directory others can enter", vsEnv(t, openDir), []string{"--http", "127.0.0.1:0"},
			[]string{"mode 0755", "chmod 700"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			stderr := startRefused(t, c.env, append([]string{"-c", config}, c.args...)...)
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stderr, "streamable HTTP on") {
				t.Errorf("it served before refusing:\n%s", stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(openDir, "verbsurface", "notes", tokenFileName)); err == nil {
		t.Error("a token was generated into a directory others can enter")
	}
}

// --max-sessions: the sessions beyond the cap get 503 saying why, and a
// closed one gives its slot back.
func TestHTTPMaxSessions(t *testing.T) {
	dir := copyFixture(t)
	srv := serveHTTPBin(t, vsEnv(t, t.TempDir(), tokenEnv+"="+httpToken), "-c", filepath.Join(dir, "notes.yaml"), "--http", "127.0.0.1:0", "--max-sessions", "2")
	auth := map[string]string{"Authorization": "Bearer " + httpToken}
	var ids []string
	for i := range 2 {
		resp, body := rawInitialize(t, srv.url, auth)
		if resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") == "" {
			t.Fatalf("session %d of 2: HTTP %d %s", i+1, resp.StatusCode, body)
		}
		ids = append(ids, resp.Header.Get("Mcp-Session-Id"))
	}
	resp, body := rawInitialize(t, srv.url, auth)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "2 MCP sessions are open") || !strings.Contains(body, "--max-sessions") {
		t.Fatalf("the 3rd of 2 sessions: HTTP %d %s; want 503 naming --max-sessions", resp.StatusCode, body)
	}
	req, _ := http.NewRequest("DELETE", srv.url, nil)
	req.Header.Set("Authorization", "Bearer "+httpToken)
	req.Header.Set("Mcp-Session-Id", ids[0])
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode >= 300 {
		t.Fatalf("DELETE a session: %v %v", resp, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, body := rawInitialize(t, srv.url, auth)
		if resp.StatusCode == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after closing one of 2 sessions: HTTP %d %s", resp.StatusCode, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Over HTTP all token holders share one spawn rate, as limcp mcp's do:
// with one run a minute allowed, a second session cannot start a run once
// the first has, so opening sessions does not multiply the rate; nor does
// changing protocol path: a client on 2026-07-28 (no session) and one
// with a session, at the same time, share the bucket whichever goes
// first.
func TestHTTPSpawnRateShared(t *testing.T) {
	for _, c := range []struct{ first, second string }{
		{protocolVersions[0], protocolVersions[0]},
		{protocolVersions[0], protocolVersions[1]},
		{protocolVersions[1], protocolVersions[0]},
		{protocolVersions[1], protocolVersions[1]},
	} {
		t.Run(c.first+" then "+c.second, func(t *testing.T) { spawnRateShared(t, c.first, c.second) })
	}
}

func spawnRateShared(t *testing.T, first, second string) {
	dir := copyFixture(t)
	config := filepath.Join(dir, "notes.yaml")
	b, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	spawn := strings.Replace(string(b), "path: [add],  class: control,", "path: [add],  class: spawn,", 1)
	if spawn == string(b) {
		t.Fatal("the fixture edit did not apply")
	}
	if err := os.WriteFile(config, []byte(spawn+"policy: policy.yaml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "policy.yaml"), []byte("version: 1\ndefault: allow\nlimits: {runs_per_minute: 1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := serveHTTPBin(t, vsEnv(t, t.TempDir(), tokenEnv+"="+httpToken), "-c", config, "--http", "127.0.0.1:0")
	a, b2 := httpClientAt(t, srv.url, httpToken, first), httpClientAt(t, srv.url, httpToken, second)
	_, fp := a.help("note.add")
	add := `{"op":"note.add","args":{"text":"t"},"fingerprint":"` + fp + `"}`
	if r := a.op(add); r["ok"] != true {
		t.Fatalf("session a, first run: %v", r)
	}
	if r := a.op(add); code(r) != "rate_limited" {
		t.Fatalf("session a, second run: %v; want rate_limited", r)
	}
	if r := b2.op(add); code(r) != "rate_limited" {
		t.Fatalf("session b, first run: %v; want rate_limited (one bucket for every token holder)", r)
	}
}
