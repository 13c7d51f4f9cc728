//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPDoctor: `limcp mcp doctor` starts `limcp mcp` as an installed
// client would and says the client will see the one tool; against a
// running HTTP server it reaches it with the token from $LIMCP_MCP_TOKEN,
// and says why not (exit 1) when the token is wrong or not set.
func TestMCPDoctor(t *testing.T) {
	e := newUserEnv(t)
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
	e := newUserEnv(t)
	out, stderr, code := e.limcp("mcp", "install", "cursor")
	if code != 0 || !strings.Contains(out, `check: started `+limcpBin+` mcp as the client will`) || !strings.Contains(out, `a client will see the one tool "request"`) {
		t.Fatalf("limcp mcp install cursor: exit %d\n%s%s", code, out, stderr)
	}
}

// TestMCPInstallWritesThroughADanglingLink (issue 36, LOW #13): a client
// configuration kept in a dotfiles repository is a symlink, and before its
// target exists the link dangles. `limcp mcp install cursor` replaced such
// a link with a regular file, cutting it from the repository; now it
// writes through the link, creating the target, and the link stays.
func TestMCPInstallWritesThroughADanglingLink(t *testing.T) {
	e := newUserEnv(t)
	dots := filepath.Join(e.user, "dotfiles")
	for _, d := range []string{dots, filepath.Join(e.user, ".cursor")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(e.user, ".cursor", "mcp.json")
	if err := os.Symlink("../dotfiles/cursor.json", link); err != nil {
		t.Fatal(err)
	}
	if out, stderr, code := e.limcp("mcp", "install", "cursor"); code != 0 {
		t.Fatalf("limcp mcp install cursor: exit %d\n%s%s", code, out, stderr)
	}
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the configuration link was replaced: %v, mode %v", err, fi.Mode())
	}
	b, err := os.ReadFile(filepath.Join(dots, "cursor.json"))
	if err != nil || !strings.Contains(string(b), `"limcp"`) {
		t.Fatalf("the link's target holds no server entry: %v\n%s", err, b)
	}
}
