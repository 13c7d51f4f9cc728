package policy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestAuditAppendsPrivateLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := OpenAudit(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				if err := a.Write(&AuditRecord{Time: time.Now(), Index: j, Verb: "job.status", Result: "ok", Session: fmt.Sprint(i)}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	a.Close()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	if n := countLines(t, path); n != 400 {
		t.Errorf("%d lines, want 400", n)
	}
	// Reopening appends.
	a, _ = OpenAudit(path, nil)
	a.Write(&AuditRecord{Verb: "job.list", Result: "ok"})
	a.Close()
	if n := countLines(t, path); n != 401 {
		t.Errorf("%d lines after reopening, want 401", n)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenAudit(path, nil); err == nil || !strings.Contains(err.Error(), "private") {
		t.Errorf("a world-readable audit opened: %v", err)
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var rec AuditRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d is not a record: %v", n+1, err)
		}
		n++
	}
	return n
}

func TestAuditRotates(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	a, err := OpenAudit(path, &AuditOptions{MaxBytes: 1000, Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 60; i++ {
		if err := a.Write(&AuditRecord{Verb: "job.status", Result: "ok", Index: i}); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	for _, name := range []string{"audit.jsonl", "audit.jsonl.1", "audit.jsonl.2"} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if st.Size() > 1000 || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: size %d mode %v", name, st.Size(), st.Mode().Perm())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "audit.jsonl.3")); err == nil {
		t.Error("kept more than Keep rotated files")
	}
}

func TestRedactArgs(t *testing.T) {
	long := strings.Repeat("secret words ", 40)
	args := map[string]any{"prompt": "do the thing", "model": "opus", "notes": long, "prompt_file": "/x/p.md", "n": json.Number("3")}
	out := RedactArgs(args)
	b, _ := json.Marshal(out)
	if strings.Contains(string(b), "do the thing") || strings.Contains(string(b), "secret words") {
		t.Fatalf("prompt text in %s", b)
	}
	if out["model"] != "opus" || out["n"] != json.Number("3") {
		t.Errorf("ordinary values changed: %s", b)
	}
	if d, ok := out["prompt"].(TextDigest); !ok || d.Size != len("do the thing") || len(d.SHA256) != 64 {
		t.Errorf("prompt = %#v", out["prompt"])
	}
	if args["prompt"] != "do the thing" {
		t.Error("RedactArgs modified its input")
	}
}

// TestRedactArgsReachesNestedPrompts: prompts are redacted wherever they
// sit: a long string inside an array or object, a "prompt" key at any
// depth, and the strings the caller names as prompts (found by parsing a
// stored command), whole or as an --option=VALUE word. Before, only
// top-level strings were looked at, and a schedule's command kept its
// prompt verbatim.
func TestRedactArgsReachesNestedPrompts(t *testing.T) {
	long := strings.Repeat("long secret ", 30)
	args := map[string]any{
		"name":    "nightly",
		"command": []any{"agent", "echo", "short secret", "--label=ok", "--note=short secret"},
		"nested":  map[string]any{"deep": []any{long}, "inner_prompt": "inner secret"},
	}
	out := RedactArgs(args, "short secret")
	b, _ := json.Marshal(out)
	for _, secret := range []string{"short secret", "long secret", "inner secret"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("%q survives redaction: %s", secret, b)
		}
	}
	for _, kept := range []string{`"agent"`, `"echo"`, `"--label=ok"`, `"nightly"`, `"option":"--note"`} {
		if !strings.Contains(string(b), kept) {
			t.Errorf("%s was redacted too: %s", kept, b)
		}
	}
	if args["command"].([]any)[2] != "short secret" {
		t.Error("RedactArgs modified its input")
	}
}

// BenchmarkAuditWrite: one audit line (with redacted args) appended to a
// file, what --audit adds to every op.
func BenchmarkAuditWrite(b *testing.B) {
	a, err := OpenAudit(filepath.Join(b.TempDir(), "audit.jsonl"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	args := map[string]any{"ids": []any{"01J9ZK3M4N5P6Q7R8S9T0V1W2X"}}
	b.ReportAllocs()
	for b.Loop() {
		rec := &AuditRecord{Time: time.Now(), Session: "s1", Client: "claude-code", ClientVersion: "2.1.0", Verb: "job.status",
			ArgsSHA256: "9f2c4b1e0d3a5c7e9f2c4b1e0d3a5c7e9f2c4b1e0d3a5c7e9f2c4b1e0d3a5c7e", Args: RedactArgs(args),
			Decision: "allow", Rule: "reads-are-free", Result: "ok", DurationMS: 6.5}
		if err := a.Write(rec); err != nil {
			b.Fatal(err)
		}
	}
}
