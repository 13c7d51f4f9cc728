//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeAudit: `serve --audit FILE` writes limcp mcp's audit, line for
// line (verbsurface.AuditRecord through policy.Audit): one JSON line per
// op, refused ones included, with the client, the verb, the args' digest,
// the result and the duration; argument values only with --audit-args.
func TestServeAudit(t *testing.T) {
	config := filepath.Join(copyFixture(t), "notes.yaml")
	for _, withArgs := range []bool{false, true} {
		audit := filepath.Join(t.TempDir(), "audit.jsonl")
		args := []string{"serve", "-c", config, "--audit", audit}
		if withArgs {
			args = append(args, "--audit-args")
		}
		cmd := exec.Command(vsBin, args...)
		cmd.Env = vsEnv(t, t.TempDir())
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "audit-client", Version: "v3"}, nil).
			Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
		if err != nil {
			t.Fatalf("serve --audit: %v\n%s", err, stderr.String())
		}
		c := &client{t: t, cs: cs}
		_, fp := c.help("note.add")
		c.call(`{"ops":[{"op":"note.add","args":{"text":"buy milk"},"fingerprint":"` + fp + `"},{"op":"note.nope"}]}`)
		cs.Close()

		f, err := os.Open(audit)
		if err != nil {
			t.Fatal(err)
		}
		var lines []map[string]any
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var l map[string]any
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatalf("%v: %s", err, sc.Bytes())
			}
			lines = append(lines, l)
		}
		f.Close()
		if len(lines) != 2 {
			t.Fatalf("audit has %d lines; want one per op: %v", len(lines), lines)
		}
		add, nope := lines[0], lines[1]
		if add["verb"] != "note.add" || add["result"] != "ok" || add["client"] != "audit-client" || add["client_version"] != "v3" ||
			add["index"] != 0.0 || add["args_sha256"] == "" || nope["verb"] != "note.nope" || nope["result"] != "unknown_verb" || nope["index"] != 1.0 {
			t.Errorf("audit lines %v", lines)
		}
		var keys []string
		for k := range add {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		want := []string{"args_sha256", "client", "client_version", "duration_ms", "index", "result", "time", "verb"}
		if withArgs {
			want = []string{"args", "args_sha256", "client", "client_version", "duration_ms", "index", "result", "time", "verb"}
		}
		if !reflect.DeepEqual(keys, want) {
			t.Errorf("--audit-args %v: a line has %v; want %v", withArgs, keys, want)
		}
		if fi, err := os.Stat(audit); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("audit file: %v %v; want mode 0600", fi.Mode(), err)
		}
	}
}
