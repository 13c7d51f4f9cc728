//go:build linux

package main

import (
	"strings"
	"testing"
)

// A background run gets its signals as a foreground one does: the
// supervisor catches the signals it must survive, and ignores none, since
// an ignored signal would stay ignored in the program it starts.
func TestBackgroundRunIgnoresNoSignal(t *testing.T) {
	f := bgFront(t, "")
	script := `grep SigIgn /proc/$$/status`
	id := f.startRun(t, script)
	f.op(t, `{"op":"job.wait","args":{"ids":["`+id+`"],"max_wait_seconds":30}}`)
	bg := f.op(t, `{"op":"job.output","args":{"id":"`+id+`"}}`)["result"].(map[string]any)["data"].(string)
	fg := f.op(t, `{"op":"sh.now","fingerprint":"`+f.fingerprint(t, "sh.now")+`","args":{"script":`+jsonString(script)+`}}`)["result"].(map[string]any)["output"].(string)
	if !strings.HasPrefix(bg, "SigIgn:") || bg != fg {
		t.Fatalf("background %q, foreground %q", bg, fg)
	}
}
