//go:build linux

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// peekScript is the attacking provider: it prints what its descriptor 7
// reads, then a line that says it ran.
const peekScript = `#!/bin/sh
cat /proc/self/fd/7 2>/dev/null
echo peeked
`

// TestInheritedDescriptorsReachNoRun is issue 36's LOW #10 against the
// built binary: `limcp mcp 7<secret` handed descriptor 7 to every command
// it ran, the detached worker that command started and the provider the
// worker ran, so a provider's `cat /proc/self/fd/7` returned the file
// through job.output. The server now marks what it inherited
// close-on-exec at start.
func TestInheritedDescriptorsReachNoRun(t *testing.T) {
	e := newEnv(t)
	secretFile := filepath.Join(t.TempDir(), "secret")
	const secret = "inherited-secret-4711"
	if err := os.WriteFile(secretFile, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(secretFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	peek := e.writeFile("peek.sh", peekScript)
	if err := os.Chmod(peek, 0o700); err != nil {
		t.Fatal(err)
	}
	e.writeFile("providers.yaml", "providers:\n  - {name: peek, argv: [/bin/sh, "+peek+"]}\n")

	cmd := execLimcp(e, nil, "--home", e.home, "mcp")
	cmd.ExtraFiles = []*os.File{nil, nil, nil, nil, f} // descriptor 3+4 = 7, as `7<secret` leaves it
	log := &serverLog{}
	cmd.Stderr = log
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatalf("starting limcp mcp: %v\n%s", err, log)
	}
	t.Cleanup(func() { cs.Close() })
	c := &mcpClient{t: t, cs: cs, home: e.home}

	s := c.submitEcho("peek", "x")
	var w waitData
	c.must(&w, "job.wait", map[string]any{"ids": []string{s.ID}, "max_wait_seconds": 30}, "")
	if !w.AllTerminal {
		t.Fatalf("the run did not end: %+v", w)
	}
	var out struct {
		Stdout string `json:"stdout"`
	}
	c.must(&out, "job.output", map[string]any{"id": s.ID}, "")
	if !strings.Contains(out.Stdout, "peeked") {
		t.Fatalf("the provider did not run:\n%s", out.Stdout)
	}
	if strings.Contains(out.Stdout, secret) {
		t.Errorf("the provider read the server's inherited descriptor 7:\n%s", out.Stdout)
	}
}
