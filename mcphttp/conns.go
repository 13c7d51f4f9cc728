//go:build unix

package mcphttp

import (
	"container/list"
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// connLimiter caps the connections open at once ([Options].MaxConns). Each
// open connection holds a descriptor, a goroutine and buffers; before it,
// a thousand connections that had each read a 401 and stayed open took a
// server from 12 to 1,012 descriptors, and with the descriptor limit
// lowered, a token holder's initialize timed out.
//
// The cap protects token holders from everyone else. A connection starts
// on probation and is admitted once a request on it has passed the Origin
// and token checks ([admitConn]); a refusal before that closes it (see
// [closeAfter]), and one that sends nothing is closed after
// ReadHeaderTimeout, so a client without the token holds a connection for
// seconds at most. When a connection arrives with the cap reached, the
// limiter makes room by closing, in this order:
//
//  1. the oldest connection on probation: whoever holds the cap's worth of
//     connections without the token cannot keep a token holder out, since
//     a token holder's connection is admitted by its first request, long
//     before it is the oldest on probation;
//  2. the oldest admitted connection that is idle between requests (a
//     client's keep-alive; it reconnects);
//  3. none: the new connection is answered 503, naming the cap and
//     --max-conns, and closed. Only token holders' connections in use
//     can fill the cap this far.
type connLimiter struct {
	net.Listener
	max       int
	name      string              // Options.Name, for the 503
	onRefused func(reason string) // Options.OnRefused

	mu        sync.Mutex
	probation list.List // *trackedConn, oldest first
	admitted  list.List // *trackedConn, oldest first
}

func newConnLimiter(ln net.Listener, max int, name string) *connLimiter {
	return &connLimiter{Listener: ln, max: max, name: name}
}

// trackedConn is an accepted connection the limiter counts until it is
// closed.
type trackedConn struct {
	net.Conn
	l    *connLimiter
	elem *list.Element // in l.probation or l.admitted; nil once closed
	ok   bool          // admitted
	idle bool          // between requests (http.StateIdle)
	once sync.Once
}

// Accept returns the next connection within the cap, making room as the
// type's documentation says, and answers the ones it cannot take.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		tc, victim := l.add(c)
		if victim != nil {
			victim.Conn.Close() // the server's read fails; its Close finds it gone
		}
		if tc != nil {
			return tc, nil
		}
		l.refuse(c)
	}
}

// add counts c, choosing a victim when the cap is reached; it returns nil
// when there is no room at all.
func (l *connLimiter) add(c net.Conn) (tc, victim *trackedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.probation.Len()+l.admitted.Len() >= l.max {
		victim = l.victimLocked()
		if victim == nil {
			return nil, nil
		}
		l.removeLocked(victim)
	}
	tc = &trackedConn{Conn: c, l: l}
	tc.elem = l.probation.PushBack(tc)
	return tc, victim
}

func (l *connLimiter) victimLocked() *trackedConn {
	if e := l.probation.Front(); e != nil {
		return e.Value.(*trackedConn)
	}
	for e := l.admitted.Front(); e != nil; e = e.Next() {
		if tc := e.Value.(*trackedConn); tc.idle {
			return tc
		}
	}
	return nil
}

func (l *connLimiter) removeLocked(tc *trackedConn) {
	if tc.elem == nil {
		return
	}
	if tc.ok {
		l.admitted.Remove(tc.elem)
	} else {
		l.probation.Remove(tc.elem)
	}
	tc.elem = nil
}

// refuse answers a connection beyond the cap with a 503 and closes it.
// The write goes to a fresh socket's empty send buffer, so it does not
// wait on the client; the deadline bounds it regardless.
func (l *connLimiter) refuse(c net.Conn) {
	if l.onRefused != nil {
		l.onRefused(RefusedConnections)
	}
	body := fmt.Sprintf("%s: Service Unavailable: %d connections are open, the most this server allows (--max-conns); close idle ones or retry shortly\n", l.name, l.max)
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	c.Close()
}

// Close closes the connection and gives its place back.
func (tc *trackedConn) Close() error {
	tc.once.Do(func() {
		tc.l.mu.Lock()
		tc.l.removeLocked(tc)
		tc.l.mu.Unlock()
	})
	return tc.Conn.Close()
}

// admit moves tc off probation: a request on it passed the checks.
func (tc *trackedConn) admit() {
	tc.l.mu.Lock()
	defer tc.l.mu.Unlock()
	if tc.ok || tc.elem == nil {
		return
	}
	tc.l.probation.Remove(tc.elem)
	tc.ok = true
	tc.elem = tc.l.admitted.PushBack(tc)
}

// connState is the http.Server's ConnState hook: it records which
// admitted connections are idle between requests.
func (l *connLimiter) connState(c net.Conn, s http.ConnState) {
	tc, ok := c.(*trackedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	tc.idle = s == http.StateIdle
	l.mu.Unlock()
}

// counts reports the connections on probation and admitted (for tests).
func (l *connLimiter) counts() (probation, admitted int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.probation.Len(), l.admitted.Len()
}

type connKey struct{}

// connContext is the http.Server's ConnContext hook: it lets a handler
// find the connection its request came on.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if tc, ok := c.(*trackedConn); ok {
		return context.WithValue(ctx, connKey{}, tc)
	}
	return ctx
}

// admitConn admits the connection of every request that reaches it (it
// sits right after the Origin and token checks). Outside [Serve] there is
// no limiter and it does nothing.
func admitConn(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tc, ok := r.Context().Value(connKey{}).(*trackedConn); ok {
			tc.admit()
		}
		next.ServeHTTP(w, r)
	})
}

// closeAfter marks a refusal before the session: the connection is closed
// once the answer is written, so a client that is refused (no token, a
// foreign Origin, too large a body, no session left) cannot keep the
// connection it was refused on. The read deadline bounds what net/http
// still reads of a small body nobody will use before closing (it reads it
// so the client is not reset before it has the answer); the answer's
// writes have WriteTimeout as every write does.
func closeAfter(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(refusalGrace))
}

// keepOpen undoes closeAfter for a request that passed: the connection
// may serve the next request, and the body is read under the body gate's
// deadline, not the refusal's.
func keepOpen(w http.ResponseWriter) {
	w.Header().Del("Connection")
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
}

// refusalGrace is how long a refused request's connection may still spend
// reading the rest of its body.
const refusalGrace = time.Second
