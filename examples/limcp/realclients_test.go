//go:build unix

package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/internal/clientconfig/clienttest"
)

// TestInstallRealClients runs `limcp mcp install` (stdio, and --http with
// the token from the environment) against the real Claude Code, Codex CLI
// and Gemini CLI that .ci/run installs from npm (.ci/clients), each in a
// home of its own, and shows each client reaching the server and receiving
// the one tool (clienttest.RealUser.SeesTheTool). No login, no model call.
func TestInstallRealClients(t *testing.T) {
	bin := clienttest.RealClientsBin(t)
	const token = "real-clients-token-0123456789abcdef0123"
	for _, client := range []string{"claude", "codex", "gemini"} {
		for _, transport := range []string{"stdio", "http"} {
			t.Run(client+"/"+transport, func(t *testing.T) {
				e := newEnv(t)
				u := clienttest.NewRealUser(t, bin, e.environ())
				args := []string{"--home", e.home, "mcp", "install", client}
				var more []string
				if transport == "http" {
					srv := e.startHTTPServerEnv(token, []string{"VERBSURFACE_LOG_FILE=" + u.Log})
					args = append(args, "--http", srv.url, "--name", "limcp-http")
					more = []string{"LIMCP_MCP_TOKEN=" + token}
				}
				if client == "gemini" {
					args = append(args, "--trust-folder", u.Home)
				}
				out, stderr, code := runAs(e, u, args...)
				if code != 0 {
					t.Fatalf("limcp %s: exit %d\n%s%s", strings.Join(args, " "), code, out, stderr)
				}
				name := "limcp"
				if transport == "http" {
					name = "limcp-http"
				}
				u.SeesTheTool(client, name, more)

				// A second install under the name is refused, with what to do.
				if out, stderr, code := runAs(e, u, append(args, "--json")...); code == 0 || !strings.Contains(out+stderr, `"already_exists"`) {
					t.Fatalf("a second install: exit %d\n%s%s", code, out, stderr)
				}
				if out, stderr, code := runAs(e, u, append(args, "--force")...); code != 0 {
					t.Fatalf("install --force: exit %d\n%s%s", code, out, stderr)
				}
			})
		}
	}
}

// TestInspectorRealClient: the MCP Inspector's CLI mode lists the one tool
// and calls it, over stdio and over HTTP with the bearer token in
// --header.
func TestInspectorRealClient(t *testing.T) {
	bin := clienttest.RealClientsBin(t)
	const token = "inspector-token-0123456789abcdef0123456789"
	e := newEnv(t)
	u := clienttest.NewRealUser(t, bin, e.environ())
	srv := e.startHTTPServer(token)
	stdio := []string{"-e", "LIMCP_HOME=" + e.home, limcpBin, "mcp"}
	http := []string{srv.url, "--transport", "http", "--header", "Authorization: Bearer " + token}
	for name, target := range map[string][]string{"stdio": stdio, "http": http} {
		t.Run(name, func(t *testing.T) {
			list := u.Inspect(append(target, "--method", "tools/list")...)
			tools, _ := list["tools"].([]any)
			if len(tools) != 1 || tools[0].(map[string]any)["name"] != "request" {
				t.Fatalf("tools/list: %v", list)
			}
			call := u.Inspect(append(target, "--method", "tools/call", "--tool-name", "request", "--tool-arg", "help=true")...)
			b, _ := json.Marshal(call)
			if !strings.Contains(string(b), `job.status(ids)`) || call["isError"] == true {
				t.Fatalf("tools/call request help=true: %s", b)
			}
		})
	}
}

// runAs runs limcp args... as the real user (their HOME and PATH).
func runAs(e *env, u *clienttest.RealUser, args ...string) (string, string, int) {
	e.t.Helper()
	cmd := execLimcp(e, u.Env, args...)
	var out, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		code = cmd.ProcessState.ExitCode()
		if code < 0 {
			e.t.Fatal(err)
		}
	}
	return out.String(), stderr.String(), code
}
