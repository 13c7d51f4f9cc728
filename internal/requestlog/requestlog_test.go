//go:build unix

package requestlog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpen: the format names the stderr handler (off writes nothing),
// $VERBSURFACE_LOG_FILE adds a private JSON-lines file, and a file others
// may read, or an unknown format, is refused.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "requests.jsonl")
	env := func(k string) string {
		if k == FileEnv {
			return file
		}
		return ""
	}
	none := func(string) string { return "" }
	if l, _, err := Open("off", &bytes.Buffer{}, none); l != nil || err != nil {
		t.Errorf("off, no file: %v %v; want no logger", l, err)
	}
	var stderr bytes.Buffer
	l, closeLog, err := Open("text", &stderr, env)
	if err != nil {
		t.Fatal(err)
	}
	l.Info("mcp request", "method", "tools/list")
	closeLog()
	b, _ := os.ReadFile(file)
	if !strings.Contains(stderr.String(), "method=tools/list") || !strings.Contains(string(b), `"method":"tools/list"`) {
		t.Errorf("stderr %q, file %q", stderr.String(), b)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v; want 0600", fi.Mode().Perm())
	}
	os.Chmod(file, 0o644)
	if _, _, err := Open("off", &stderr, env); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a file others may read: %v", err)
	}
	if _, _, err := Open("yaml", &stderr, none); err == nil || !strings.Contains(err.Error(), "off, text or json") {
		t.Errorf("an unknown format: %v", err)
	}
}
