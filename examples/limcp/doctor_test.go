//go:build unix

package main

import (
	"strings"
	"testing"
)

// TestMCPDoctor: `limcp mcp doctor` starts `limcp mcp` as an installed
// client would and says the client will see the one tool; against a
// running HTTP server it reaches it with the token from $LIMCP_MCP_TOKEN,
// and says why not (exit 1) when the token is wrong or not set.
func TestMCPDoctor(t *testing.T) {
	e := newClientEnv(t)
	const sees = `a client will see the one tool "request"`
	if out, stderr, code := e.limcp("mcp", "doctor"); code != 0 || !strings.Contains(out, sees) || !strings.Contains(out, "started "+limcpBin+" mcp") {
		t.Fatalf("limcp mcp doctor: exit %d\n%s%s", code, out, stderr)
	}
	const token = "doctor-token-0123456789abcdef0123456789"
	srv := e.startHTTPServer(token)
	for _, tt := range []struct {
		name, tokenVar, want string
		code                 int
	}{
		{"the token", "LIMCP_MCP_TOKEN=" + token, sees, 0},
		{"a wrong token", "LIMCP_MCP_TOKEN=not-the-token-0123456789abcdef0123", "a client will NOT see the tool", 1},
		{"no token", "LIMCP_MCP_TOKEN=", "$LIMCP_MCP_TOKEN is not set here", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e.extra = append(e.extra, tt.tokenVar)
			defer func() { e.extra = e.extra[:len(e.extra)-1] }()
			out, stderr, code := e.limcp("mcp", "doctor", "--http", srv.url)
			if code != tt.code || !strings.Contains(out+stderr, tt.want) {
				t.Fatalf("limcp mcp doctor --http: exit %d; want %d and %q\n%s%s", code, tt.code, tt.want, out, stderr)
			}
		})
	}
}

// TestMCPInstallChecks: install ends with the doctor's check, on the
// server it just configured.
func TestMCPInstallChecks(t *testing.T) {
	e := newClientEnv(t)
	out, stderr, code := e.limcp("mcp", "install", "cursor")
	if code != 0 || !strings.Contains(out, `check: started `+limcpBin+` mcp as the client will`) || !strings.Contains(out, `a client will see the one tool "request"`) {
		t.Fatalf("limcp mcp install cursor: exit %d\n%s%s", code, out, stderr)
	}
}
