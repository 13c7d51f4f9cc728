//go:build unix

package mcphttp

import (
	"context"
	"net/http"
)

// The reasons a request or a connection is refused, as [Options].OnRefused
// receives them. The first ones are this package's own refusals, before
// the SDK; the last four name what the SDK's handler refused, by its
// status, since it does not say more to the code that serves it.
const (
	RefusedOrigin       = "origin"         // 403: a browser origin not allowed (--allow-origin)
	RefusedToken        = "token"          // 401 or 403: no valid bearer token, or OAuth access token for the resource
	RefusedPath         = "path"           // 404: a path other than Path
	RefusedConnections  = "connections"    // 503: MaxConns reached, nothing to make room with
	RefusedBodyTooLarge = "body_too_large" // 413: a body over MaxBodyBytes
	RefusedSessions     = "sessions"       // 503: MaxSessions reached
	RefusedProtocol     = "protocol"       // the SDK's 400: a protocol version not served, a missing or mismatched header, a malformed message
	RefusedHost         = "host"           // the SDK's 403: a Host that is not the loopback the connection came to (DNS rebinding)
	RefusedNotFound     = "not_found"      // the SDK's 404: a session closed or expired, a method 2026-07-28 removed
	RefusedOther        = "other"          // any other status of 400 and above the SDK answers
)

// refusalKey carries a request's *refusal in its context.
type refusalKey struct{}

// refusal is the reason a request is being refused, set where it is and
// cleared where a check it was set for passes.
type refusal struct{ reason string }

// refuse records why r is being refused (reason ""; it passed after all).
func refuse(r *http.Request, reason string) {
	if f, ok := r.Context().Value(refusalKey{}).(*refusal); ok {
		f.reason = reason
	}
}

// countRefusals calls on once for each request refused, with its reason:
// the one a check of this package recorded, or else, when the answer's
// status is 400 or above, the SDK's by that status. One place sees every
// refusal of [Handler], whichever check made it.
func countRefusals(on func(reason string), next http.Handler) http.Handler {
	if on == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := &refusal{}
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), refusalKey{}, f)))
		switch {
		case f.reason != "":
			on(f.reason)
		case sw.status == http.StatusBadRequest:
			on(RefusedProtocol)
		case sw.status == http.StatusForbidden:
			on(RefusedHost)
		case sw.status == http.StatusNotFound:
			on(RefusedNotFound)
		case sw.status == http.StatusRequestEntityTooLarge:
			on(RefusedBodyTooLarge)
		case sw.status >= 400:
			on(RefusedOther)
		}
	})
}

// statusWriter remembers the status of the answer. It unwraps to the
// writer it wraps, so a ResponseController reaches the connection, and
// flushes through it, as an event stream needs.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(p []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(p)
}

func (s *statusWriter) Flush() { _ = s.FlushError() }

func (s *statusWriter) FlushError() error {
	return http.NewResponseController(s.ResponseWriter).Flush()
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
