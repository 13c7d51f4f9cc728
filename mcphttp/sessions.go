//go:build unix

package mcphttp

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionIDHeader is the Streamable HTTP session header (the SDK's name
// for it is unexported).
const sessionIDHeader = "Mcp-Session-Id"

// sessionGate caps the Streamable HTTP sessions live at once. Clients on
// protocol versions before 2026-07-28 open a session with an initialize
// POST that carries no Mcp-Session-Id; each live session holds memory in
// the server until it is closed (DELETE) or its idle timer fires. Without a
// cap, a client holding the token could open sessions faster than the
// timer closes them.
//
// A slot is taken before the SDK sees a session-opening request and given
// back when that session ends (ServerSession.Wait returns) or, if the
// request opened none (a failed initialize, a refused protocol version),
// as soon as the request is answered. Taking it first means concurrent
// initializes can never overshoot the cap. The SDK keeps its session
// table private, so the gate learns the new session's id from the
// response's Mcp-Session-Id header and finds it among the MCP server's
// sessions.
type sessionGate struct {
	srv     *mcp.Server
	slots   chan struct{}
	timeout time.Duration
	name    string // Options.Name, for the refusal the client reads
}

func newSessionGate(srv *mcp.Server, max int, timeout time.Duration, name string) *sessionGate {
	return &sessionGate{srv: srv, slots: make(chan struct{}, max), timeout: timeout, name: name}
}

func (g *sessionGate) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get(sessionIDHeader) != "" {
			next.ServeHTTP(w, r) // not opening a session
			return
		}
		select {
		case g.slots <- struct{}{}:
		default:
			// Idle sessions expire one timeout after their last request at
			// the latest; a minute is a polite first retry.
			w.Header().Set("Retry-After", strconv.Itoa(int(min(g.timeout, time.Minute).Seconds())))
			refuse(r, RefusedSessions)
			closeAfter(w)
			http.Error(w, fmt.Sprintf("%s: Service Unavailable: %d MCP sessions are open, the most this server allows (--max-sessions); "+
				"close one (HTTP DELETE with its Mcp-Session-Id) or wait for an idle one to expire (--session-timeout %s)",
				g.name, cap(g.slots), g.timeout), http.StatusServiceUnavailable)
			return
		}
		next.ServeHTTP(w, r)
		if ss := g.session(w.Header().Get(sessionIDHeader)); ss != nil {
			go func() {
				_ = ss.Wait()
				<-g.slots
			}()
			return
		}
		<-g.slots
	})
}

// session finds the live session with this id ("" finds none).
func (g *sessionGate) session(id string) *mcp.ServerSession {
	if id == "" {
		return nil
	}
	for ss := range g.srv.Sessions() {
		if ss.ID() == id {
			return ss
		}
	}
	return nil
}
