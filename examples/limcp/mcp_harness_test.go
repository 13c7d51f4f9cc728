//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP end-to-end tests drive `limcp mcp` (the binary TestMain built)
// through real go-sdk client sessions: over stdio (mcp.CommandTransport,
// as an agent's MCP client starts it) and over streamable HTTP. The server
// runs with the test's home and tag, so the harness's process checks cover
// it and everything it starts.

// mcpErr is an error object of the surface.
type mcpErr struct {
	Code              string           `json:"code"`
	Message           string           `json:"message"`
	Use               string           `json:"use"`
	Matches           []string         `json:"matches"`
	SchemaFingerprint string           `json:"schema_fingerprint"`
	HelpCall          json.RawMessage  `json:"help_call"`
	Schema            json.RawMessage  `json:"schema"`
	Problems          []map[string]any `json:"problems"`
	Details           map[string]any   `json:"details"`
}

// mcpOp is one op's result; its extra members (the preparer's info) are
// kept in raw.
type mcpOp struct {
	OK     bool            `json:"ok"`
	Op     string          `json:"op"`
	Class  string          `json:"class"`
	Result json.RawMessage `json:"result"`
	Error  *mcpErr         `json:"error"`
	raw    json.RawMessage
}

type mcpResp struct {
	Status  string          `json:"status"`
	Results []*mcpOp        `json:"results"`
	Help    json.RawMessage `json:"help"`
	Error   *mcpErr         `json:"error"`
	raw     []byte
	isError bool
}

type mcpHelp struct {
	Verb   string `json:"verb"`
	Class  string `json:"class"`
	Schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	} `json:"schema"`
	SchemaFingerprint   string `json:"schema_fingerprint"`
	PlaybookFingerprint string `json:"playbook_fingerprint"`
}

// mcpClient is one client session with a limcp MCP server.
type mcpClient struct {
	t    testing.TB
	cs   *mcp.ClientSession
	home string // the server's state home: never named in an answer's words
}

// serverLog collects a server's stderr for failure messages.
type serverLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *serverLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *serverLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// dialStdio starts `limcp --home HOME mcp ARGS...` and opens a stdio
// session with it.
func (e *env) dialStdio(opts *mcp.ClientOptions, extraEnv []string, args ...string) *mcpClient {
	e.t.Helper()
	cmd := execLimcp(e, extraEnv, append([]string{"--home", e.home, "mcp"}, args...)...)
	log := &serverLog{}
	cmd.Stderr = log
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, opts).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		e.t.Fatalf("starting limcp mcp: %v\n%s", err, log)
	}
	e.t.Cleanup(func() { cs.Close() })
	return &mcpClient{t: e.t, cs: cs, home: e.home}
}

// rawServer is a `limcp mcp` child whose stdin the test holds, so it can
// disconnect abruptly (as a client that dies does) instead of closing the
// session gracefully (the SDK's Close first waits for calls in flight).
type rawServer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited chan struct{}
	log    *serverLog
}

func (e *env) dialRaw(args ...string) (*mcpClient, *rawServer) {
	e.t.Helper()
	cmd := execLimcp(e, nil, append([]string{"--home", e.home, "mcp"}, args...)...)
	srv := &rawServer{cmd: cmd, exited: make(chan struct{}), log: &serverLog{}}
	cmd.Stderr = srv.log
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if srv.stdin, err = cmd.StdinPipe(); err != nil {
		e.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); close(srv.exited) }()
	e.t.Cleanup(func() {
		srv.stdin.Close()
		select {
		case <-srv.exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-srv.exited
		}
	})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: stdout, Writer: srv.stdin}, nil)
	if err != nil {
		e.t.Fatalf("connecting to limcp mcp: %v\n%s", err, srv.log)
	}
	return &mcpClient{t: e.t, cs: cs, home: e.home}, srv
}

// startHTTP starts `limcp --home HOME mcp --http 127.0.0.1:0` (with the
// token in $LIMCP_MCP_TOKEN when not empty; without one the server
// generates HOME/mcp-token) and returns its endpoint URL. The server is
// stopped (SIGTERM) at cleanup.
func (e *env) startHTTP(token string, args ...string) string {
	e.t.Helper()
	return e.startHTTPServer(token, args...).url
}

// startHTTPEnv is startHTTP with more environment for the server.
func (e *env) startHTTPEnv(token string, extra []string, args ...string) string {
	e.t.Helper()
	return e.startHTTPServerEnv(token, extra, args...).url
}

// httpServer is a running `limcp mcp --http`.
type httpServer struct {
	url string
	pid int
	log *serverLog // its stderr so far
}

// startHTTPServer is startHTTP, returning the server's pid and stderr too.
func (e *env) startHTTPServer(token string, args ...string) *httpServer {
	e.t.Helper()
	return e.startHTTPServerEnv(token, nil, args...)
}

// startHTTPServerEnv is startHTTPServer with more environment for the
// server.
func (e *env) startHTTPServerEnv(token string, extra []string, args ...string) *httpServer {
	e.t.Helper()
	extra = append([]string(nil), extra...)
	if token != "" {
		extra = append(extra, "LIMCP_MCP_TOKEN="+token)
	}
	cmd := execLimcp(e, extra, append([]string{"--home", e.home, "mcp", "--http", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	done := make(chan struct{})
	e.t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	log := &serverLog{}
	lines := bufio.NewScanner(stderr)
	urlRE := regexp.MustCompile(`serving streamable HTTP on (http://\S+/mcp)`)
	found := make(chan string, 1)
	go func() {
		defer close(done)
		sent := false
		for lines.Scan() {
			log.Write(append(lines.Bytes(), '\n'))
			if m := urlRE.FindStringSubmatch(lines.Text()); m != nil && !sent {
				found <- m[1]
				sent = true
			}
		}
		_ = cmd.Wait()
		if !sent {
			close(found)
		}
	}()
	select {
	case u, ok := <-found:
		if !ok {
			e.t.Fatalf("limcp mcp --http exited without serving:\n%s", log)
		}
		return &httpServer{url: u, pid: cmd.Process.Pid, log: log}
	case <-time.After(30 * time.Second):
		e.t.Fatalf("limcp mcp --http did not report its address:\n%s", log)
	}
	return nil
}

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// dialHTTP opens a streamable HTTP session with the server at url.
func (e *env) dialHTTP(url, token string) *mcpClient {
	e.t.Helper()
	return e.dialHTTPAt(url, token, "")
}

// dialHTTPAt is dialHTTP with the client pinned to a protocol version
// ("" for the SDK's default): on 2026-07-28 it opens no session, and
// every request names the version.
func (e *env) dialHTTPAt(url, token, version string) *mcpClient {
	e.t.Helper()
	hc := &http.Client{Transport: bearer{token: token, base: http.DefaultTransport}}
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, opts)
	if err != nil {
		e.t.Fatalf("connecting to %s on %q: %v", url, version, err)
	}
	if version != "" && cs.InitializeResult().ProtocolVersion != version {
		e.t.Fatalf("connected to %s on %s; want %s", url, cs.InitializeResult().ProtocolVersion, version)
	}
	e.t.Cleanup(func() { cs.Close() })
	return &mcpClient{t: e.t, cs: cs, home: e.home}
}

// call sends one request and decodes the response.
func (c *mcpClient) call(ctx context.Context, req any) mcpResp {
	c.t.Helper()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "request", Arguments: req})
	if err != nil {
		c.t.Fatalf("tools/call %s: %v", mustJSON(c.t, req), err)
	}
	if len(res.Content) != 1 {
		c.t.Fatalf("tool result has %d content items, want 1", len(res.Content))
	}
	text := res.Content[0].(*mcp.TextContent).Text
	structured, _ := json.Marshal(res.StructuredContent)
	if !jsonEqual(structured, []byte(text)) {
		c.t.Fatalf("structured content and text differ:\n%s\n%s", structured, text)
	}
	var r mcpResp
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		c.t.Fatalf("response is not JSON: %v\n%s", err, text)
	}
	var raws struct {
		Results []json.RawMessage `json:"results"`
	}
	_ = json.Unmarshal([]byte(text), &raws)
	for i := range r.Results {
		r.Results[i].raw = raws.Results[i]
	}
	r.raw, r.isError = []byte(text), res.IsError
	c.checkWords(r.raw)
	return r
}

// internalsRE matches what a caller must never read in an error's words:
// a Go package of this module speaking in its own voice ("fromcobra: …").
var internalsRE = regexp.MustCompile(`(?:^|[\s"(])(fromcobra|fromargparse|projector|verbsurface|dispatch|procid|yamldoc|kill|wait|server|cli|store|run|playbook|provider|notify|machine): `)

// checkWords scans every message and reason of a response (what an agent
// reads as words, not the CLI's data under "result" or a schema's
// descriptions) for Go package names and the server's state home. Every
// error the end-to-end suite provokes passes through here.
func (c *mcpClient) checkWords(raw []byte) {
	c.t.Helper()
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return
	}
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "result" || k == "schema" {
					continue
				}
				walk(k, e)
			}
		case []any:
			for _, e := range x {
				walk(key, e)
			}
		case string:
			if key != "message" && key != "reason" {
				return
			}
			if m := internalsRE.FindString(x); m != "" {
				c.t.Errorf("an answer's %s speaks as Go package %q: %s", key, m, x)
			}
			if c.home != "" && strings.Contains(x, c.home) {
				c.t.Errorf("an answer's %s names the server's state home %s: %s", key, c.home, x)
			}
		}
	}
	walk("", v)
}

func (c *mcpClient) request(req any) mcpResp {
	c.t.Helper()
	return c.call(context.Background(), req)
}

// op runs one op and returns its result (failed or not).
func (c *mcpClient) op(verb string, args map[string]any, fingerprint string) *mcpOp {
	c.t.Helper()
	o := map[string]any{"op": verb, "args": args}
	if fingerprint != "" {
		o["fingerprint"] = fingerprint
	}
	r := c.request(map[string]any{"ops": []any{o}})
	if len(r.Results) != 1 {
		c.t.Fatalf("%s: %s", verb, r.raw)
	}
	return r.Results[0]
}

// must runs one op that must succeed and decodes its result into v.
func (c *mcpClient) must(v any, verb string, args map[string]any, fingerprint string) *mcpOp {
	c.t.Helper()
	o := c.op(verb, args, fingerprint)
	if !o.OK {
		c.t.Fatalf("%s %s failed: %s", verb, mustJSON(c.t, args), o.raw)
	}
	if v != nil {
		if err := json.Unmarshal(o.Result, v); err != nil {
			c.t.Fatalf("%s: decoding result: %v\n%s", verb, err, o.Result)
		}
	}
	return o
}

// fail runs one op that must fail with code.
func (c *mcpClient) fail(code, verb string, args map[string]any, fingerprint string) *mcpOp {
	c.t.Helper()
	o := c.op(verb, args, fingerprint)
	if o.OK || o.Error == nil || o.Error.Code != code {
		c.t.Fatalf("%s %s: %s; want error %s", verb, mustJSON(c.t, args), o.raw, code)
	}
	return o
}

func (c *mcpClient) help(h any) mcpHelp {
	c.t.Helper()
	r := c.request(map[string]any{"help": h})
	var vh mcpHelp
	if r.Status != "success" || json.Unmarshal(r.Help, &vh) != nil || vh.SchemaFingerprint == "" {
		c.t.Fatalf("help %v: %s", h, r.raw)
	}
	return vh
}

type catalog struct {
	Verbs       []string          `json:"verbs"`
	Unavailable []json.RawMessage `json:"unavailable"`
	Next        string            `json:"next"`
}

func (c *mcpClient) catalog() catalog {
	c.t.Helper()
	r := c.request(map[string]any{"help": true})
	var cat catalog
	if r.Status != "success" || json.Unmarshal(r.Help, &cat) != nil {
		c.t.Fatalf("catalog: %s", r.raw)
	}
	return cat
}

// submitEcho submits an agent run through the server, fingerprint fetched.
func (c *mcpClient) submitEcho(model, prompt string) submitted {
	c.t.Helper()
	fp := c.help("agent.submit").SchemaFingerprint
	var s submitted
	c.must(&s, "agent.submit", map[string]any{"model": model, "prompt": prompt}, fp)
	if s.ID == "" {
		c.t.Fatalf("agent.submit: no id")
	}
	return s
}

type waitData struct {
	Entries []struct {
		ID         string                 `json:"id"`
		Kind       string                 `json:"kind"`
		Status     string                 `json:"status"`
		Terminal   bool                   `json:"terminal"`
		Outcome    string                 `json:"outcome"`
		ReasonCode string                 `json:"reason_code"`
		Error      *struct{ Code string } `json:"error"`
	} `json:"entries"`
	AllTerminal         bool     `json:"all_terminal"`
	TimedOut            bool     `json:"timed_out"`
	Pending             []string `json:"pending"`
	PollIntervalSeconds float64  `json:"poll_interval_seconds"`
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// limcpCall runs `limcp --home HOME call ARGS...` with stdin.
func (e *env) limcpCall(stdin string, args ...string) (stdout, stderr string, code int) {
	e.t.Helper()
	cmd := execLimcp(e, nil, append([]string{"--home", e.home, "call"}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}
