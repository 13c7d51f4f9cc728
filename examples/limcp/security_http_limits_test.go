//go:build unix

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/verbsurface/verbsurface/internal/procstat"
)

// The HTTP attacks of issue 25 on connections and memory, against the
// built binary: before, 1,000 connections that had each read a 401 stayed
// open (descriptors 12 → 1,012), a token holder's initialize timed out
// behind them, and 64 concurrent 4 MiB tools/call took the server from 17
// MB to 1.23 GB. The same attacks on `verbsurface serve --http` are in
// cmd/verbsurface/http_limits_test.go.
// connCount is how many TCP connections the server pid accepted on the
// port of serverURL (procstat.Conns: not its other descriptors).
func connCount(t testing.TB, pid int, serverURL string) int {
	t.Helper()
	u, err := url.Parse(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatalf("no port in %s: %v", serverURL, err)
	}
	n, err := procstat.Conns(pid, port)
	if err != nil {
		t.Skipf("cannot count connections here: %v", err)
	}
	return n
}

func fdCount(t testing.TB, pid int) int {
	t.Helper()
	n, err := procstat.FDs(pid)
	if err != nil {
		t.Skipf("cannot count descriptors here: %v", err)
	}
	return n
}

// vmHWMMB is a process's peak resident set size in MB.
func vmHWMMB(t testing.TB, pid int) float64 {
	t.Helper()
	mb, err := procstat.StatusMB(pid, "VmHWM")
	if err != nil {
		t.Skipf("cannot read the peak resident set here: %v", err)
	}
	return mb
}

// attackConn is one raw connection to the server.
type attackConn struct {
	net.Conn
	br *bufio.Reader
}

func dialAttack(t testing.TB, rawURL string) *attackConn {
	t.Helper()
	u, _ := url.Parse(rawURL)
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &attackConn{Conn: c, br: bufio.NewReader(c)}
}

// post writes one POST of body to /mcp with the given header lines.
func (c *attackConn) post(body string, hdr ...string) error {
	return c.postParts([]string{body}, hdr...)
}

// postParts is post of a body written in parts: the headers go out at
// once and no part is copied, so a 4 MiB request costs the test nothing
// before the server sees its headers.
func (c *attackConn) postParts(body []string, hdr ...string) error {
	n := 0
	for _, p := range body {
		n += len(p)
	}
	req := "POST /mcp HTTP/1.1\r\nHost: " + c.RemoteAddr().String() + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
	newer := false // a request on 2026-07-28 names its method, and its version or none
	for _, h := range hdr {
		req += h + "\r\n"
		newer = newer || strings.HasPrefix(h, "Mcp-Method:")
	}
	if !newer {
		req += "Mcp-Protocol-Version: " + legacyProtocol + "\r\n"
	}
	req += fmt.Sprintf("Content-Length: %d\r\n\r\n", n)
	for _, p := range append([]string{req}, body...) {
		if _, err := io.WriteString(c, p); err != nil {
			return err
		}
	}
	return nil
}

// response reads one response and its body, waiting a minute at most.
func (c *attackConn) response() (*http.Response, string, error) { return c.responseWithin(time.Minute) }

func (c *attackConn) responseWithin(d time.Duration) (*http.Response, string, error) {
	c.SetReadDeadline(time.Now().Add(d))
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return nil, "", err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b), err
}

// closedWithin reports whether the server has closed the connection, or
// does within d: a read ends in EOF or a reset, not a timeout.
func (c *attackConn) closedWithin(d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c.br)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// stillOpen is how many of conns the server has not closed within d,
// all waited for at once.
func stillOpen(conns []*attackConn, d time.Duration) int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	open := 0
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !c.closedWithin(d) {
				mu.Lock()
				open++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return open
}

// TestHTTPRefusedConnectionsAreClosed: 300 connections that each send one
// token-less POST and read the 401 are all closed by the server, and its
// descriptors come back to where they were.
func TestHTTPRefusedConnectionsAreClosed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const token = "conns-test-token-0123456789abcdefghij"
	srv := e.startHTTPServer(token)
	before := fdCount(t, srv.pid)
	const n = 300
	conns := make([]*attackConn, n)
	for i := range conns {
		c := dialAttack(t, srv.url)
		p := protocolPaths[i%len(protocolPaths)] // half on each path
		if err := c.post(p.probe, p.lines()...); err != nil {
			t.Fatal(err)
		}
		resp, _, err := c.response()
		if err != nil || resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("connection %d: %v %v; want 401", i, resp, err)
		}
		conns[i] = c
	}
	open := stillOpen(conns, 10*time.Second)
	after := fdCount(t, srv.pid)
	t.Logf("server descriptors: %d before, %d after %d refused connections stayed open on the client side; %d still open on the server's", before, after, n, open)
	if open > 0 {
		t.Fatalf("%d of %d connections refused with 401 are still open", open, n)
	}
	if after > before+8 {
		t.Fatalf("the server holds %d descriptors, %d before the attack", after, before)
	}
}

// TestHTTPTokenHolderAmidRefusedConnections is the attack: with
// the server's descriptor limit lowered to 128, a client without the
// token opens 300 connections one after another, each sending one POST,
// reading its 401 and staying open. Every one of them is answered (the
// server closed each after its 401, so none holds a descriptor), and a
// token holder's real go-sdk session then initializes and works. Before,
// the connections stayed open until the server could accept no more, and
// the token holder's initialize timed out.
func TestHTTPTokenHolderAmidRefusedConnections(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const token = "amid-test-token-0123456789abcdefghijk"
	srv := e.startHTTPServer(token)
	lowerDescriptorLimit(t, srv.pid, 128)
	served := 0
	for range 300 {
		c := dialAttack(t, srv.url)
		if err := c.post(initializeBody); err != nil {
			break
		}
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		resp, err := http.ReadResponse(c.br, nil)
		if err != nil || resp.StatusCode != http.StatusUnauthorized {
			break // the server took no more
		}
		resp.Body.Close()
		served++
	}
	t.Logf("%d of 300 token-less connections answered with 401 under a limit of 128 descriptors; %d descriptors open", served, fdCount(t, srv.pid))
	if served != 300 {
		t.Errorf("the server stopped answering after %d connections", served)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	hc := &http.Client{Transport: bearer{token: token, base: http.DefaultTransport}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "holder", Version: "v0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatalf("the token holder's initialize: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "request", Arguments: map[string]any{"ops": []any{map[string]any{"op": "job.list", "args": map[string]any{}}}}})
	if err != nil || res.IsError {
		t.Fatalf("the token holder's job.list: %v %+v", err, res)
	}
}

// TestHTTPConnectionCap: with --max-conns 64 held by a client without the
// token (64 connections that sent half a request and wait), a token
// holder's real go-sdk session initializes and works: connections on
// probation are closed to make room, and the server never holds more
// connections than the cap. With every connection a token holder's busy
// request, a newcomer gets 503 naming --max-conns.
func TestHTTPConnectionCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const token = "cap-test-token-0123456789abcdefghijkl"
	const max = 64
	srv := e.startHTTPServer(token, "--max-conns", fmt.Sprint(max))
	attack := make([]*attackConn, max)
	for i := range attack {
		attack[i] = dialAttack(t, srv.url)
		io.WriteString(attack[i], "POST /mcp HTTP/1.1\r\nHost: x\r\n") // and nothing more
	}
	// Every attack connection is the server's before the token holder comes.
	deadline := time.Now().Add(10 * time.Second)
	for connCount(t, srv.pid, srv.url) < max {
		if time.Now().After(deadline) {
			t.Fatalf("the server took %d of %d attack connections", connCount(t, srv.pid, srv.url), max)
		}
		time.Sleep(10 * time.Millisecond)
	}
	c := e.dialHTTP(srv.url, token)
	c.must(nil, "job.list", map[string]any{}, "")
	closed := max - stillOpen(attack, 50*time.Millisecond)
	if closed == 0 {
		t.Fatal("no connection on probation was closed to make room")
	}
	if n := connCount(t, srv.pid, srv.url); n > max {
		t.Fatalf("the server holds %d connections; the cap is %d", n, max)
	}
	t.Logf("%d of %d attack connections closed to make room for the token holder's session", closed, max)
	c.cs.Close()

	// Every connection a token holder's, each with a request in flight (a
	// body that has not arrived): the newcomer is refused, saying why.
	// The server's "100 Continue" says the request passed the token and is
	// being read: its connection is admitted.
	for i := range max {
		b := dialAttack(t, srv.url)
		io.WriteString(b, "POST /mcp HTTP/1.1\r\nHost: "+b.RemoteAddr().String()+"\r\nAuthorization: Bearer "+token+"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n")
		if resp, _, err := b.response(); err != nil || resp.StatusCode != http.StatusContinue {
			t.Fatalf("busy connection %d: %v %v; want 100 Continue", i, resp, err)
		}
	}
	late := dialAttack(t, srv.url)
	resp, body, err := late.response()
	if err != nil || resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "limcp mcp: Service Unavailable: 64 connections are open") || !strings.Contains(body, "--max-conns") {
		t.Fatalf("a connection beyond 64 busy token holders: %v %v %q; want 503 naming --max-conns", resp, err, body)
	}
}

// TestHTTPConnectionTimeouts: a connection that sends no request is closed
// after the header timeout, a body that does not arrive after
// --read-timeout, and a connection idle between requests after
// --idle-timeout.
func TestHTTPConnectionTimeouts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const token = "timeouts-test-token-0123456789abcdefghi"
	srv := e.startHTTPServer(token, "--read-timeout", "500ms", "--idle-timeout", "500ms")
	silent := dialAttack(t, srv.url)
	slowBody := dialAttack(t, srv.url)
	io.WriteString(slowBody, "POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+token+"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
	idle := dialAttack(t, srv.url)
	idle.post(initializeBody, "Authorization: Bearer "+token)
	if resp, body, err := idle.response(); err != nil || resp.StatusCode != 200 {
		t.Fatalf("initialize: %v %v %s", resp, err, body)
	}
	for name, c := range map[string]*attackConn{"a body that does not arrive": slowBody, "a connection idle after its request": idle} {
		if !c.closedWithin(10 * time.Second) {
			t.Errorf("%s: still open", name)
		}
	}
	// The header timeout is 10 s (mcphttp.DefaultReadHeaderTimeout).
	if !silent.closedWithin(20 * time.Second) {
		t.Error("a connection that sends no request: still open")
	}
}

// TestHTTPMemoryBoundedUnderConcurrentBodies: 64 concurrent tools/call of
// 4 MiB each leave the server's peak resident set below the bytes sent
// (see memoryBoundMB): the decoding budget bounds it, with a margin no
// load on the machine reaches; every call is answered. So on each path a
// body takes: on one session (2025-11-25), on protocol 2026-07-28 (served
// without a session), and on 2026-07-28 without its version header, the
// one path where the server reads the body before the SDK does, to find
// the version in its _meta (each refused, -32020, after the whole body
// is read). $VERBSURFACE_MEMORY_ARGS adds server flags, to measure
// another bound: VERBSURFACE_MEMORY_ARGS=--max-decoding-bytes=33554432 go
// test -run TestHTTPMemoryBounded -v ./examples/limcp/
func TestHTTPMemoryBoundedUnderConcurrentBodies(t *testing.T) {
	t.Parallel()
	const token = "memory-test-token-0123456789abcdefghij"
	args := strings.Fields(os.Getenv("VERBSURFACE_MEMORY_ARGS"))
	newer := []string{"Mcp-Protocol-Version: 2026-07-28", "Mcp-Method: tools/call", "Mcp-Name: request"}
	for _, path := range []struct {
		name    string
		headers []string // besides the token; nil: on a session
		status  int      // every answer's
		answer  string   // what every answer holds
	}{
		{"session", nil, 200, `"result"`},
		{"2026-07-28", newer, 200, `"result"`},
		{"2026-07-28 without the version header", newer[1:], 400, `-32020`},
	} {
		t.Run(path.name, func(t *testing.T) {
			e := newEnv(t)
			srv := e.startHTTPServer(token, args...)
			headers := append([]string{"Authorization: Bearer " + token}, path.headers...)
			if path.headers == nil {
				id, status, body := openSession(t, srv.url, token)
				if status != 200 {
					t.Fatalf("initialize: %d %s", status, body)
				}
				headers = append(headers, "Mcp-Session-Id: "+id)
			}
			fresh := vmHWMMB(t, srv.pid)
			memoryAttack(t, srv.url, headers, path.status, path.answer)
			peak := vmHWMMB(t, srv.pid)
			bound := memoryBoundMB(fresh, decodingBytes(args))
			t.Logf("limcp mcp --http, %s: peak resident set %.1f MB fresh, %.1f MB after 64 concurrent 4 MiB tools/call (bound %.0f MB)", path.name, fresh, peak, bound)
			if peak > bound {
				t.Fatalf("peak resident set %.1f MB; the bound is %.0f MB", peak, bound)
			}
		})
	}
}

// memoryBoundMB is what the test holds a server's peak resident set to
// while the 64 bodies of memoryAttack are decoded: fresh + the larger of
// the bytes sent (64 × 4 MiB) and twice SECURITY.md's estimate (30 MB +
// 7 × --max-decoding-bytes).
//
// Not the estimate itself: how far the heap overshoots its goal depends on
// how much CPU the collector gets, so on a loaded machine the same run
// measured 124.7 MB against an estimate-plus-margin of 118 MB. What the
// test is for is that the decoding budget bounds memory at all: without
// it a server holds every body at once, several times over (725 MB here,
// 1.23 GB in the report that led to the budget), more than the bytes
// sent; with it the default measures 64 to 125 MB, half the bound.
func memoryBoundMB(fresh float64, decoding int64) float64 {
	const sent = 64 * 4 // MiB: memoryAttack's bodies
	return fresh + max(sent, 2*(30+7*float64(decoding)/(1<<20)))
}

// decodingBytes is the --max-decoding-bytes=N among args, else the
// default.
func decodingBytes(args []string) int64 {
	for _, a := range args {
		var n int64
		if _, err := fmt.Sscanf(a, "--max-decoding-bytes=%d", &n); err == nil {
			return n
		}
	}
	return 8 << 20
}

// memoryAttack sends 64 concurrent tools/call, each a 4 MiB request (an
// agent.submit whose prompt fills the body, then a _meta naming protocol
// 2026-07-28), with headers, and requires an answer of status holding
// answer to each.
func memoryAttack(t *testing.T, rawURL string, headers []string, status int, answer string) {
	t.Helper()
	const n = 64
	head := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"request","arguments":{"ops":[{"op":"agent.submit","args":{"model":"echo","prompt":"`
	tail := `"}}]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	if strings.Contains(strings.Join(headers, "\n"), "Mcp-Session-Id") {
		tail = `"}}]}}}` // a session's request names no version
	}
	filler := strings.Repeat("A", 4<<20-len(head)-len(tail)-16)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := dialAttack(t, rawURL)
			if err := c.postParts([]string{fmt.Sprintf(head, i+10), filler, tail}, headers...); err != nil {
				errs <- err
				return
			}
			// The calls are answered about two at a time, as the decoding
			// budget allows: the last waits for all the others.
			resp, body, err := c.responseWithin(5 * time.Minute)
			switch {
			case err != nil:
				errs <- err
			case resp.StatusCode != status || !strings.Contains(body, answer):
				errs <- fmt.Errorf("HTTP %d %.300s; want %d and %s", resp.StatusCode, body, status, answer)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a 4 MiB call: %v", err)
	}
}

// TestHTTPBoundRefusals: a bound that would turn its limit off, or a
// decoding budget below the body cap, stops the server at start, naming
// the flag; a bound without --http is refused too.
func TestHTTPBoundRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-conns", "0"}, "--max-conns 0: must be at least 1"},
		{[]string{"--read-timeout", "0s"}, "--read-timeout 0s: must be positive"},
		{[]string{"--write-timeout", "-1s"}, "--write-timeout -1s: must be positive"},
		{[]string{"--idle-timeout", "0s"}, "--idle-timeout 0s: must be positive"},
		{[]string{"--max-body-bytes", "0"}, "--max-body-bytes 0: must be at least 1"},
		{[]string{"--max-body-bytes", "2048", "--max-decoding-bytes", "1024"}, "--max-decoding-bytes 1024 is below --max-body-bytes 2048"},
	} {
		bad := e.fail("invalid_argument", append([]string{"mcp", "--http", "127.0.0.1:0"}, c.args...)...)
		if !strings.Contains(bad.Error.Message, c.want) {
			t.Errorf("%v: %s; want %q", c.args, bad.Error.Message, c.want)
		}
	}
	if bad := e.fail("invalid_argument", "mcp", "--max-conns", "3"); !strings.Contains(bad.Error.Message, "--max-conns applies to --http only") {
		t.Errorf("a bound without --http: %s", bad.Error.Message)
	}
}

// TestHTTPBodyCapOnBothPaths: a body over --max-body-bytes is refused
// with 413, on a session and on protocol 2026-07-28, with
// its length declared (refused unread, naming the flag) or not (chunked:
// refused once the cap is passed, by the SDK's own 413).
func TestHTTPBodyCapOnBothPaths(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const token = "body-cap-token-0123456789abcdefghijkl"
	srv := e.startHTTPServer(token, "--max-body-bytes", "65536")
	id, status, body := openSession(t, srv.url, token)
	if status != 200 {
		t.Fatalf("initialize: %d %s", status, body)
	}
	over := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"request","arguments":{"help":"` + strings.Repeat("x", 70000) + `"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	for _, p := range protocolPaths {
		hdr := p.hdr(map[string]string{"Authorization": "Bearer " + token, "Mcp-Method": "", "Mcp-Session-Id": id})
		if p.version == newerProtocol {
			hdr["Mcp-Method"], hdr["Mcp-Name"], hdr["Mcp-Session-Id"] = "tools/call", "request", ""
		}
		for _, chunked := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/chunked=%v", p.name, chunked), func(t *testing.T) {
				var rd io.Reader = strings.NewReader(over)
				if chunked {
					rd = io.MultiReader(rd) // no length: sent chunked
				}
				resp, b := rawSend(t, "POST", srv.url, rd, hdr)
				if resp.StatusCode != http.StatusRequestEntityTooLarge || (!chunked && !strings.Contains(b, "--max-body-bytes")) {
					t.Fatalf("HTTP %d %s; want 413 naming --max-body-bytes", resp.StatusCode, b)
				}
			})
		}
	}
}
