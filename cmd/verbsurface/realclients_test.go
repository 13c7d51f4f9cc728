//go:build unix

package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/internal/clientconfig/clienttest"
)

// TestInstallRealClients runs `verbsurface install CLIENT -c FILE`
// (stdio, and --http with the token from $VERBSURFACE_TOKEN) against the
// real Claude Code, Codex CLI and Gemini CLI that .ci/run installs from
// npm (.ci/clients), each in a home of its own, and shows each client
// reaching the server and receiving the one tool
// (clienttest.RealUser.SeesTheTool). No login, no model call.
func TestInstallRealClients(t *testing.T) {
	bin := clienttest.RealClientsBin(t)
	config := filepath.Join(copyFixture(t), "notes.yaml")
	for _, client := range []string{"claude", "codex", "gemini"} {
		for _, transport := range []string{"stdio", "http"} {
			t.Run(client+"/"+transport, func(t *testing.T) {
				u := clienttest.NewRealUser(t, bin, vsEnv(t, t.TempDir()))
				args := []string{"install", client, "-c", config}
				name := "notes"
				var more []string
				if transport == "http" {
					srv := serveHTTPBin(t, vsEnv(t, t.TempDir(), tokenEnv+"="+httpToken, "VERBSURFACE_LOG_FILE="+u.Log), "-c", config, "--http", "127.0.0.1:0")
					name = "notes-http"
					args = append(args, "--http", srv.url, "--name", name)
					more = []string{tokenEnv + "=" + httpToken}
				}
				if client == "gemini" {
					args = append(args, "--trust-folder", u.Home)
				}
				cmd := exec.Command(vsBin, args...)
				cmd.Env = u.Env
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("verbsurface %s: %v\n%s", strings.Join(args, " "), err, out)
				}
				u.SeesTheTool(client, name, more)
			})
		}
	}
}
