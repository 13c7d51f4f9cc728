//go:build unix

package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPPath is where the streamable HTTP endpoint is served.
const HTTPPath = "/mcp"

// TokenEnv is the environment variable holding the bearer token of the
// HTTP transport (--token-file is the other way to give it).
const TokenEnv = "LIMCP_MCP_TOKEN"

// MinTokenLength is the shortest bearer token accepted: a token is the only
// thing between the network and starting agent runs.
const MinTokenLength = 16

// ErrNonLoopback is returned by Listen when the address is not a loopback
// one and no token is configured.
var ErrNonLoopback = errors.New("refusing to serve MCP on a non-loopback address without a bearer token")

// Listen opens the HTTP listener for addr and enforces the bind policy:
// without a token only a loopback address is served (127.0.0.0/8, ::1;
// an empty host or 0.0.0.0 means every interface and is refused). The
// check is made on the address actually bound, so a host name that
// resolves to a public address is refused too.
func Listen(addr, token string) (net.Listener, error) {
	if token != "" && len(token) < MinTokenLength {
		return nil, fmt.Errorf("the bearer token is %d characters; use at least %d (random)", len(token), MinTokenLength)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	ta, ok := ln.Addr().(*net.TCPAddr)
	if token == "" && (!ok || !ta.IP.IsLoopback()) {
		ln.Close()
		return nil, fmt.Errorf("%w: %s is not loopback; set %s (or --token-file) or bind 127.0.0.1", ErrNonLoopback, addr, TokenEnv)
	}
	return ln, nil
}

// HTTPHandler returns the streamable HTTP handler of the one tool, at
// HTTPPath. With a token, every request must carry "Authorization: Bearer
// TOKEN" or gets 401; the comparison is constant-time (over SHA-256
// digests, so not even the length leaks). The SDK's DNS-rebinding
// protection stays on.
func (s *Server) HTTPHandler(token string) http.Handler {
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil)
	if token != "" {
		want := sha256.Sum256([]byte(token))
		verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
			sum := sha256.Sum256([]byte(got))
			if subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
				return nil, auth.ErrInvalidToken
			}
			return &auth.TokenInfo{}, nil
		}
		h = auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
	}
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, h)
	return mux
}

// ServeHTTP serves streamable HTTP on ln until ctx ends, then shuts down
// (in-flight requests get a few seconds).
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, token string) error {
	srv := &http.Server{Handler: s.HTTPHandler(token), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			srv.Close()
		}
		<-errc
		return nil
	}
}
