//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// bgFront builds, in this process, the background fixture's front with
// its state in a directory of the test's own.
func bgFront(t *testing.T, extra string) *front {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	supervisorExe = func() (string, error) { return vsBin, nil }
	b, err := os.ReadFile(filepath.Join("testdata", "background", "front.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "front.yaml")
	if err := os.WriteFile(p, append(b, extra...), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := newFront(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.bg.Close() })
	return f
}

// handle answers one request through the front's surface.
func (f *front) handleJSON(t *testing.T, req string) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal(f.surface.Handle(context.Background(), json.RawMessage(req), nil).JSON(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func firstResult(r map[string]any) map[string]any {
	return r["results"].([]any)[0].(map[string]any)
}

func (f *front) fingerprint(t *testing.T, verb string) string {
	t.Helper()
	h := f.handleJSON(t, `{"help":"`+verb+`"}`)["help"].(map[string]any)
	return h["schema_fingerprint"].(string)
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A background op answers at once with a run id; job.wait sees it end;
// job.output gives, once it has ended, exactly the result the same op
// gives in the foreground.
func TestBackgroundResultIsTheForegroundResult(t *testing.T) {
	f := bgFront(t, "")
	script := `echo one; echo two >&2; exit 1`
	fp := f.fingerprint(t, "sh.run")
	start := firstResult(f.handleJSON(t, `{"ops":[{"op":"sh.run","fingerprint":"`+fp+`","args":{"script":`+jsonString(script)+`}}]}`))
	if start["ok"] != true {
		t.Fatalf("start: %v", start)
	}
	data, _ := start["result"].(map[string]any)
	id, _ := data["run_id"].(string)
	if id == "" || data["background"] != true || data["output"] != "text" {
		t.Fatalf("start: %v", start)
	}
	w := firstResult(f.handleJSON(t, `{"ops":[{"op":"job.wait","args":{"ids":["`+id+`"],"max_wait_seconds":60}}]}`))
	wd, _ := w["result"].(map[string]any)
	if wd == nil || wd["all_terminal"] != true {
		t.Fatalf("wait: %v", w)
	}
	out, _ := firstResult(f.handleJSON(t, `{"ops":[{"op":"job.output","args":{"id":"`+id+`"}}]}`))["result"].(map[string]any)
	now := firstResult(f.handleJSON(t, `{"ops":[{"op":"sh.now","fingerprint":"`+f.fingerprint(t, "sh.now")+`","args":{"script":`+jsonString(script)+`}}]}`))
	if out["data"] != "one\n" || out["ended"] != true || out["eof"] != true {
		t.Fatalf("output: %v", out)
	}
	want := map[string]any{"ok": true, "result": now["result"]}
	if jsonString(out["result"]) != jsonString(want) {
		t.Fatalf("background result %s\nforeground       %s", jsonString(out["result"]), jsonString(want))
	}
}
