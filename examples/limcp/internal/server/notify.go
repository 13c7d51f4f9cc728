//go:build unix

package server

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// NotifyURLEnv is the environment variable through which the server
// attaches its own terminal notify to the runs it submits (issue 9): the
// runner that executes every CLI command carries it, so each run submitted
// through the server is told to POST its terminal record there. A run
// submitted elsewhere has no such notify and is still observed correctly
// by polling and the store signal.
const NotifyURLEnv = "LIMCP_NOTIFY_URL"

// notifyBodyCap bounds what the endpoint reads of a notification. The body
// is never interpreted: a notification is a prompt to read the store, not
// a statement of what it holds.
const notifyBodyCap = 1 << 20

// notifyEndpoint is the loopback HTTP endpoint the CLI's terminal notify
// posts to. Its path holds 128 random bits, so another local user who
// finds the port still cannot make the server do anything — and even a
// forged notification only makes a job.wait observe once more.
type notifyEndpoint struct {
	ln       net.Listener
	srv      *http.Server
	path     string
	url      string
	received atomic.Int64
}

func startNotifyEndpoint(onNotify func()) (*notifyEndpoint, error) {
	var secret [16]byte
	if _, err := rand.Read(secret[:]); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	n := &notifyEndpoint{ln: ln, path: "/notify/" + hex.EncodeToString(secret[:])}
	n.url = "http://" + ln.Addr().String() + n.path
	n.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if subtle.ConstantTimeCompare([]byte(r.URL.Path), []byte(n.path)) != 1 {
				http.NotFound(w, r)
				return
			}
			if r.Method != http.MethodPost {
				w.Header().Set("Allow", http.MethodPost)
				http.Error(w, "POST only", http.StatusMethodNotAllowed)
				return
			}
			_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, notifyBodyCap))
			n.received.Add(1)
			onNotify()
			w.WriteHeader(http.StatusNoContent)
		}),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
	}
	go func() {
		if err := n.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			// The listener failed: notifications stop, polling and the
			// store signal still wake the waits.
			return
		}
	}()
	return n, nil
}

func (n *notifyEndpoint) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := n.srv.Shutdown(ctx); err != nil {
		n.srv.Close()
	}
}
