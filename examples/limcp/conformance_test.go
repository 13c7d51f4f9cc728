//go:build unix

package main

import (
	"testing"

	"github.com/verbsurface/verbsurface/internal/conformance"
)

// TestHTTPConformance runs the official MCP conformance suite's server
// scenarios that apply to a one-tool server against `limcp mcp --http`,
// on protocol 2026-07-28 and on the older versions (internal/conformance
// lists them). The suite sends no token, so the server is on loopback
// with --insecure-no-auth.
func TestHTTPConformance(t *testing.T) {
	prog := conformance.Program(t)
	conformance.Run(t, prog, newEnv(t).startHTTP("", "--insecure-no-auth"))
}
