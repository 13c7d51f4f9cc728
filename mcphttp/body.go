//go:build unix

package mcphttp

import (
	"container/list"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// bodyGate bounds the memory requests take while they are decoded and
// served: one request's body is at most maxBody bytes (413 beyond, before a
// byte is read when it declares its length), and the bodies of the
// requests past this gate and not yet answered total at most budget bytes
// ([Options].MaxBodyBytes, [Options].MaxDecodingBytes). A request holds
// its body's length (maxBody when it does not declare one) from before its
// body is read until it is answered, since the decoded arguments live that
// long; the rest wait in arrival order, reading nothing. A request whose
// client goes away while it waits is dropped.
//
// Before it, 64 concurrent 4 MiB tools/call on one session took a server
// from 17 MB to 1.23 GB: each request was decoded, copied and held in
// full while it waited for a command slot.
//
// The body must then arrive within readTimeout; the connection's read
// deadline is cleared once it has (net/http cancels a request's context
// when a read deadline passes during the handler, which would cut short a
// long job.wait or an event stream).
type bodyGate struct {
	maxBody     int64
	readTimeout time.Duration
	budget      *byteBudget
	name        string // Options.Name, for the 413
}

func (g *bodyGate) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r) // GET and DELETE carry no body the SDK reads
			return
		}
		if r.ContentLength > g.maxBody {
			refuse(r, RefusedBodyTooLarge)
			closeAfter(w)
			http.Error(w, fmt.Sprintf("%s: Request Entity Too Large: the body is %d bytes, and this server takes at most %d in one request (--max-body-bytes); split the ops across requests",
				g.name, r.ContentLength, g.maxBody), http.StatusRequestEntityTooLarge)
			return
		}
		n := r.ContentLength
		if n < 0 {
			n = g.maxBody // not declared (chunked): the most it may be
		}
		if err := g.budget.acquire(r.Context(), n); err != nil {
			return // the client went away while waiting
		}
		defer g.budget.release(n)
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Now().Add(g.readTimeout))
		r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc, w: w}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody clears the connection's read deadline once the body has
// been read to its end. A body that fails (its deadline passed, its
// client went away) closes the connection after the answer: what is left
// of it on the wire cannot be the next request.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	w    http.ResponseWriter
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	switch {
	case b.done:
	case err == io.EOF:
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case err != nil:
		b.done = true
		b.w.Header().Set("Connection", "close")
	}
	return n, err
}

// byteBudget is a weighted semaphore over bytes, first come first served:
// a request that does not fit waits, and so does every request behind it,
// so a large request is never starved by a stream of small ones.
type byteBudget struct {
	mu      sync.Mutex
	size    int64
	used    int64
	waiters list.List // *budgetWaiter, in arrival order
}

type budgetWaiter struct {
	n     int64
	ready chan struct{} // closed once n is granted
}

func newByteBudget(size int64) *byteBudget { return &byteBudget{size: size} }

// acquire takes n bytes (n ≤ size), waiting until they are free or ctx
// ends; on error nothing is held.
func (b *byteBudget) acquire(ctx context.Context, n int64) error {
	b.mu.Lock()
	if b.waiters.Len() == 0 && b.size-b.used >= n {
		b.used += n
		b.mu.Unlock()
		return nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	elem := b.waiters.PushBack(w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		select {
		case <-w.ready: // granted meanwhile: give it back
			b.used -= n
		default:
			b.waiters.Remove(elem)
		}
		b.grantLocked() // the waiters behind it may fit now
		b.mu.Unlock()
		return ctx.Err()
	}
}

// release gives back n bytes taken by acquire.
func (b *byteBudget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.grantLocked()
	b.mu.Unlock()
}

func (b *byteBudget) grantLocked() {
	for e := b.waiters.Front(); e != nil; e = b.waiters.Front() {
		w := e.Value.(*budgetWaiter)
		if b.size-b.used < w.n {
			return
		}
		b.used += w.n
		b.waiters.Remove(e)
		close(w.ready)
	}
}

// inUse reports the bytes held and the requests waiting (for tests).
func (b *byteBudget) inUse() (used int64, waiting int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used, b.waiters.Len()
}

// writeDeadlines gives every write of a response timeout to complete: a
// client that stops reading (its receive window full) loses the
// connection after timeout instead of holding a goroutine and its buffers
// forever. The deadline is set before each write and flush rather than
// once per request (http.Server.WriteTimeout), since an event stream or a
// long job.wait legitimately spans minutes between writes; it is set once
// more when the handler returns, for what net/http still flushes.
func writeDeadlines(timeout time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		dw := &deadlineWriter{ResponseWriter: w, rc: rc, timeout: timeout}
		next.ServeHTTP(dw, r)
		_ = rc.SetWriteDeadline(time.Now().Add(timeout))
	})
}

// deadlineWriter is a ResponseWriter whose writes and flushes each get
// their own deadline. It unwraps to the writer it wraps, so a
// ResponseController reaches the connection.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (d *deadlineWriter) arm() { _ = d.rc.SetWriteDeadline(time.Now().Add(d.timeout)) }

func (d *deadlineWriter) Write(p []byte) (int, error) {
	d.arm()
	return d.ResponseWriter.Write(p)
}

func (d *deadlineWriter) Flush() { _ = d.FlushError() }

func (d *deadlineWriter) FlushError() error {
	d.arm()
	return d.rc.Flush()
}

func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }
