//go:build unix

package mcphttp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const limitsToken = "limits-test-token-0123456789abcdefghij"

const initializeJSON = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// limitServer serves srv like Serve does and returns its address and
// limiter; it stops when the test ends.
func limitServer(t *testing.T, srv *mcp.Server, o *Options) (string, *connLimiter) {
	t.Helper()
	if srv == nil {
		srv = mcp.NewServer(&mcp.Implementation{Name: "limits", Version: "v0"}, nil)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs, lim := newServer(ln, srv, o)
	go hs.Serve(lim)
	t.Cleanup(func() { hs.Close() })
	return ln.Addr().String(), lim
}

// rawConn is one TCP connection driven by hand.
type rawConn struct {
	t *testing.T
	net.Conn
	br *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{t: t, Conn: c, br: bufio.NewReader(c)}
}

// send writes one request: method, path, extra header lines, body.
func (c *rawConn) send(method, path, body string, hdr ...string) {
	c.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n", method, path, c.RemoteAddr())
	for _, h := range hdr {
		b.WriteString(h + "\r\n")
	}
	if body != "" && !strings.Contains(strings.Join(hdr, "\n"), "Content-Length") {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(body))
	}
	b.WriteString("\r\n" + body)
	if _, err := io.WriteString(c, b.String()); err != nil {
		c.t.Fatal(err)
	}
}

// response reads one response, body included.
func (c *rawConn) response() (*http.Response, string) {
	c.t.Helper()
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		c.t.Fatalf("reading a response: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// closedWithin reports whether the server closes the connection within d:
// whatever it still sends (an answer) is read, and then the read ends in
// EOF or a reset rather than a timeout.
func (c *rawConn) closedWithin(d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c.br)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// TestRefusalsCloseTheConnection: every refusal before the session ends
// the connection it was given on, so a client refused once cannot keep the
// connection; a request that passes keeps it for the next.
func TestRefusalsCloseTheConnection(t *testing.T) {
	addr, _ := limitServer(t, nil, &Options{Token: limitsToken, MaxSessions: 1, MaxBodyBytes: 1 << 10, Name: "front"})
	auth := "Authorization: Bearer " + limitsToken
	// The one session the cap allows, so the 503 row has something to hit.
	first := dialRaw(t, addr)
	first.send("POST", Path, initializeJSON, auth)
	resp, body := first.response()
	if resp.StatusCode != 200 {
		t.Fatalf("the first initialize: %d %s", resp.StatusCode, body)
	}
	session := "Mcp-Session-Id: " + resp.Header.Get(sessionIDHeader)
	for _, c := range []struct {
		name, method, path, body string
		hdr                      []string
		want                     int
	}{
		{"no token: 401", "POST", Path, initializeJSON, nil, 401},
		{"a wrong token: 401", "POST", Path, initializeJSON, []string{"Authorization: Bearer " + strings.Repeat("x", len(limitsToken))}, 401},
		{"a foreign Origin: 403", "POST", Path, initializeJSON, []string{auth, "Origin: https://evil.example"}, 403},
		{"another path: 404", "GET", "/", "", nil, 404},
		// ServeMux would answer these with a 307 to /mcp and keep the
		// connection, before the Origin and token checks.
		{"an unclean spelling //mcp: 404", "POST", "//mcp", initializeJSON, nil, 404},
		{"an unclean spelling /./mcp: 404", "POST", "/./mcp", initializeJSON, nil, 404},
		{"an unclean spelling /x/../mcp: 404", "POST", "/x/../mcp", initializeJSON, nil, 404},
		{"an unclean spelling /mcp/: 404", "GET", "/mcp/", "", nil, 404},
		{"a foreign Origin on an unclean spelling: 404", "POST", "//mcp", initializeJSON, []string{"Origin: https://evil.example"}, 404},
		{"a declared body over MaxBodyBytes: 413", "POST", Path, "", []string{auth, "Content-Length: 2048"}, 413},
		{"a session beyond MaxSessions: 503", "POST", Path, initializeJSON, []string{auth}, 503},
	} {
		t.Run(c.name, func(t *testing.T) {
			rc := dialRaw(t, addr)
			rc.send(c.method, c.path, c.body, c.hdr...)
			resp, body := rc.response()
			if resp.StatusCode != c.want || !strings.HasPrefix(body, "front: ") && c.want != 401 {
				t.Fatalf("HTTP %d %q; want %d naming the front", resp.StatusCode, body, c.want)
			}
			if !rc.closedWithin(5 * time.Second) {
				t.Fatal("the connection stays open after the refusal")
			}
		})
	}
	// A request that passes keeps its connection: the next one is served
	// on it.
	first.send("POST", Path, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, auth, session, "Mcp-Protocol-Version: 2025-06-18")
	if resp, body := first.response(); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("a second request on a passed connection: %d %s", resp.StatusCode, body)
	}
}

// waitFor polls cond until it holds or 10 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestConnCapMakesRoom: the rules of connLimiter, in its order. With the
// cap's worth of connections held by a client without the token, a token
// holder's initialize succeeds (the oldest on probation is closed for
// it); an admitted connection idle between requests makes room next; only
// when every connection is a token holder's in use is a newcomer refused,
// with 503 naming --max-conns.
func TestConnCapMakesRoom(t *testing.T) {
	const max = 8
	refusals := make(chan string, 64)
	addr, lim := limitServer(t, nil, &Options{Token: limitsToken, MaxConns: max, ReadHeaderTimeout: time.Minute, ReadTimeout: time.Minute, Name: "front",
		OnRefused: func(r string) {
			select {
			case refusals <- r:
			default:
			}
		}})
	auth := "Authorization: Bearer " + limitsToken

	// 1. The attacker holds every connection, sending nothing.
	var attacker []*rawConn
	for range max {
		attacker = append(attacker, dialRaw(t, addr))
	}
	waitFor(t, "8 connections on probation", func() bool { p, _ := lim.counts(); return p == max })
	holder := dialRaw(t, addr)
	holder.send("POST", Path, initializeJSON, auth)
	if resp, body := holder.response(); resp.StatusCode != 200 {
		t.Fatalf("the token holder's initialize with the cap held: HTTP %d %s", resp.StatusCode, body)
	}
	if !attacker[0].closedWithin(5 * time.Second) {
		t.Fatal("the oldest connection on probation was not closed to make room")
	}
	for _, c := range attacker[1:] {
		if c.closedWithin(50 * time.Millisecond) {
			t.Fatal("a newer connection on probation was closed too")
		}
	}
	if p, a := lim.counts(); p != max-1 || a != 1 {
		t.Fatalf("%d on probation, %d admitted; want %d and 1", p, a, max-1)
	}

	// 2. An idle admitted connection makes room when none is on probation:
	// token holders replace the attacker's connections one by one, each
	// with a request in flight (a body that never ends), but the holder's
	// first connection is idle.
	busy := make([]*rawConn, 0, max-1)
	for range max - 1 {
		c := dialRaw(t, addr)
		c.send("POST", Path, "", auth, "Content-Length: 100")
		busy = append(busy, c)
	}
	waitFor(t, "7 busy and 1 idle admitted", func() bool { _, a := lim.counts(); return a == max })
	extra := dialRaw(t, addr)
	if !holder.closedWithin(5 * time.Second) {
		t.Fatal("the idle admitted connection was not closed to make room")
	}

	// 3. Every connection a token holder's in use: the newcomer is refused.
	extra.send("POST", Path, "", auth, "Content-Length: 100")
	waitFor(t, "8 busy admitted", func() bool { _, a := lim.counts(); return a == max })
	refused := dialRaw(t, addr)
	resp, body := refused.response()
	if resp.StatusCode != 503 || !strings.Contains(body, "front: Service Unavailable: 8 connections are open") || !strings.Contains(body, "--max-conns") {
		t.Fatalf("a connection beyond a cap of busy token holders: HTTP %d %s", resp.StatusCode, body)
	}
	if p, a := lim.counts(); p != 0 || a != max {
		t.Fatalf("counts %d, %d after the refusal; want 0 and %d", p, a, max)
	}
	// The one refusal, told before it was written; making room is none.
	select {
	case r := <-refusals:
		if r != RefusedConnections || len(refusals) != 0 {
			t.Fatalf("refusals heard: %q and %d more; want one %q", r, len(refusals), RefusedConnections)
		}
	default:
		t.Fatal("the connection refused was not heard")
	}
	// Closing connections gives their places back.
	for _, c := range append(busy, extra) {
		c.Close()
	}
	waitFor(t, "every place back", func() bool { p, a := lim.counts(); return p+a == 0 })
}

// TestConnTimeouts: each timeout closes the connection it bounds, and none
// cuts short a request that is slower than all of them but keeps going.
func TestConnTimeouts(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "slow"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		select { // longer than every timeout below
		case <-time.After(1500 * time.Millisecond):
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	const d = 300 * time.Millisecond
	addr, _ := limitServer(t, srv, &Options{Token: limitsToken, ReadHeaderTimeout: d, ReadTimeout: d, WriteTimeout: d, IdleTimeout: d})
	auth := "Authorization: Bearer " + limitsToken
	for _, c := range []struct {
		name string
		do   func(c *rawConn)
	}{
		{"read header: a connection that sends nothing", func(*rawConn) {}},
		{"read header: headers that never end", func(c *rawConn) { io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: x\r\n") }},
		{"read: a body that never ends", func(c *rawConn) { c.send("POST", Path, "", auth, "Content-Length: 100"); io.WriteString(c, `{"json`) }},
		{"idle: a connection idle after its request", func(c *rawConn) {
			c.send("POST", Path, initializeJSON, auth)
			if resp, body := c.response(); resp.StatusCode != 200 {
				t.Fatalf("initialize: %d %s", resp.StatusCode, body)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rc := dialRaw(t, addr)
			c.do(rc)
			if !rc.closedWithin(10 * time.Second) {
				t.Fatal("the connection is still open")
			}
		})
	}

	// A tool call slower than every timeout completes: the body's deadline
	// is cleared once it is read, and writes are timed one by one.
	tr := &mcp.StreamableClientTransport{Endpoint: "http://" + addr + Path, HTTPClient: &http.Client{Transport: bearerRT(limitsToken)}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow"})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "done" {
		t.Fatalf("a call slower than the timeouts: %v %+v", err, res)
	}
}

type bearerRT string

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestWriteTimeoutDropsAClientThatDoesNotRead: a response to a client
// that reads nothing fails once the socket's buffers are full and a write
// has waited WriteTimeout; a response with pauses longer than the timeout
// between its writes, to a client that reads, is whole.
func TestWriteTimeoutDropsAClientThatDoesNotRead(t *testing.T) {
	const d = 200 * time.Millisecond
	failed := make(chan error, 1)
	ts := httptest.NewServer(writeDeadlines(d, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/pauses" {
			for i := range 3 {
				fmt.Fprintf(w, "part %d\n", i)
				w.(http.Flusher).Flush()
				time.Sleep(2 * d)
			}
			return
		}
		chunk := make([]byte, 1<<20)
		for {
			if _, err := w.Write(chunk); err != nil {
				failed <- err
				return
			}
		}
	})))
	defer ts.Close()
	c := dialRaw(t, ts.Listener.Addr().String())
	c.send("GET", "/flood", "")
	select {
	case err := <-failed:
		t.Logf("the write to a client that reads nothing failed: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("a response to a client that reads nothing never failed")
	}
	resp, err := http.Get(ts.URL + "/pauses")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(b) != "part 0\npart 1\npart 2\n" {
		t.Fatalf("a response with pauses between its writes: %q %v", b, err)
	}
}

// TestByteBudget: first come first served (a small request that would fit
// waits behind a large one that does not), a cancelled waiter leaves the
// queue and lets the ones behind it through, and nothing overshoots.
func TestByteBudget(t *testing.T) {
	b := newByteBudget(10)
	if err := b.acquire(context.Background(), 6); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 3)
	take := func(ctx context.Context, name string, n int64) {
		if err := b.acquire(ctx, n); err != nil {
			got <- name + " cancelled"
			return
		}
		got <- name
	}
	waiting := func(n int) func() bool { return func() bool { _, w := b.inUse(); return w == n } }
	cctx, cancel := context.WithCancel(context.Background())
	go take(cctx, "big", 8)
	waitFor(t, "big waiting", waiting(1))
	go take(context.Background(), "large", 6)
	waitFor(t, "large waiting", waiting(2))
	go take(context.Background(), "small", 1)
	waitFor(t, "small waiting", waiting(3))
	select {
	case g := <-got:
		t.Fatalf("%s was granted past the queue", g)
	default:
	}
	cancel() // big leaves; large still does not fit (6+6 > 10), so small waits behind it
	if g := <-got; g != "big cancelled" {
		t.Fatalf("got %s", g)
	}
	waitFor(t, "large and small waiting", waiting(2))
	b.release(6)
	if a, c := <-got, <-got; a+c != "largesmall" && a+c != "smalllarge" {
		t.Fatalf("granted %s and %s; want large and small", a, c)
	}
	if used, w := b.inUse(); used != 7 || w != 0 {
		t.Fatalf("used %d, %d waiting; want 7, 0", used, w)
	}
}

// TestBodyGateHoldsBodiesWithinBudget: ten requests of 1,000 bytes at once
// through a budget of 3,000: three are served at a time, the others wait
// without a byte of their body read, and all are answered; a declared
// body beyond the cap is refused unread; a body of undeclared length holds
// the cap's worth.
func TestBodyGateHoldsBodiesWithinBudget(t *testing.T) {
	const body, budget = 1000, 3000
	var inFlight, peak atomic.Int64
	release := make(chan struct{})
	g := &bodyGate{maxBody: 2000, readTimeout: time.Minute, budget: newByteBudget(budget), name: "front"}
	ts := httptest.NewServer(g.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		n := inFlight.Add(int64(len(b)))
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		<-release
		inFlight.Add(-int64(len(b)))
	})))
	defer ts.Close()
	var wg sync.WaitGroup
	codes := make(chan int, 10)
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(ts.URL, "application/json", strings.NewReader(strings.Repeat("x", body)))
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			codes <- resp.StatusCode
		}()
	}
	waitFor(t, "three served and seven waiting", func() bool {
		used, w := g.budget.inUse()
		return inFlight.Load() == budget && used == budget && w == 7
	})
	close(release)
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != 200 {
			t.Errorf("HTTP %d", c)
		}
	}
	if p := peak.Load(); p != budget {
		t.Fatalf("peak %d bytes of bodies in flight; want the budget, %d", p, budget)
	}

	req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(strings.Repeat("x", 2001)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 413 || !strings.Contains(string(b), "--max-body-bytes") || !resp.Close {
		t.Fatalf("a declared body over the cap: HTTP %d %s", resp.StatusCode, b)
	}

	// Undeclared length: the request holds maxBody while it is served.
	hold := make(chan struct{})
	g2 := &bodyGate{maxBody: 2000, readTimeout: time.Minute, budget: newByteBudget(budget), name: "front"}
	ts2 := httptest.NewServer(g2.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.ReadAll(r.Body); <-hold })))
	defer ts2.Close()
	pr, pw := io.Pipe()
	go func() { pw.Write([]byte("chunked")); pw.Close() }()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.Post(ts2.URL, "application/json", pr); err == nil {
			resp.Body.Close()
		}
	}()
	waitFor(t, "an undeclared body holding the cap", func() bool { used, _ := g2.budget.inUse(); return used == 2000 })
	close(hold)
	<-done
}
