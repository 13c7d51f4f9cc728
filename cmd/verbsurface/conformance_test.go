//go:build unix

package main

import (
	"path/filepath"
	"testing"

	"github.com/verbsurface/verbsurface/internal/conformance"
)

// TestHTTPConformance runs the official MCP conformance suite's server
// scenarios that apply to a one-tool server against `verbsurface serve
// --http` (the argparse notes fixture), on protocol 2026-07-28 and on the
// older versions (internal/conformance lists them). The suite sends no
// token, so the server is on loopback with --insecure-no-auth.
func TestHTTPConformance(t *testing.T) {
	prog := conformance.Program(t)
	dir := copyFixture(t)
	srv := serveHTTPBin(t, vsEnv(t, t.TempDir()), "-c", filepath.Join(dir, "notes.yaml"), "--http", "127.0.0.1:0", "--insecure-no-auth")
	conformance.Run(t, prog, srv.url)
}
