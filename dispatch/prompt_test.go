//go:build unix

package dispatch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hardPrompt returns exactly n bytes of text built to break naive argv or
// shell handling: it starts with dashes and is full of quotes, braces,
// backslashes, dollars, newlines and non-ASCII.
func hardPrompt(n int) string {
	unit := "--flag=\"quoted\" {\"json\": [1, {}]} 'single' \\back $HOME `tick` -x\n\t--\n€ ünïcode\n"
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(unit)
	}
	s := b.String()[:n]
	for len(s) > 0 && !strings.HasSuffix(s, "\n") { // cut on a line so the text stays valid UTF-8
		s = s[:len(s)-1]
	}
	return s + strings.Repeat("y", n-len(s))
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// promptReport is what the fake CLI's prompt mode echoes back.
type promptReport struct {
	Via    string `json:"via"`
	Path   string `json:"path"`
	Mode   string `json:"mode"`
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
}

// runPrompt renders prepared args the way a projector would for the fake
// CLI (prompt_file → --prompt-file, prompt → --prompt) and runs it.
func runPrompt(t *testing.T, prepared map[string]any) promptReport {
	t.Helper()
	r := newFake(t, Options{LeadingArgs: []string{"prompt"}})
	var argv []string
	if p, ok := prepared["prompt_file"]; ok {
		argv = []string{"--prompt-file", p.(string)}
	} else {
		argv = []string{"--prompt", prepared["prompt"].(string)}
	}
	data, err := r.Run(bg(), argv)
	if err != nil {
		t.Fatal(err)
	}
	var rep promptReport
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestLargePromptReachesCLIByteIdentical: a 1 MiB prompt full of quotes,
// braces, newlines and leading dashes reaches a real CLI exactly, through a
// private snapshot (0600 while the command runs, gone after cleanup),
// whether it came as text or as a file.
func TestLargePromptReachesCLIByteIdentical(t *testing.T) {
	prompt := hardPrompt(1 << 20)
	if len(prompt) != 1<<20 || !strings.HasPrefix(prompt, "--") {
		t.Fatalf("bad test prompt: %d bytes", len(prompt))
	}
	src := filepath.Join(t.TempDir(), "prompt.txt")
	if err := os.WriteFile(src, []byte(prompt), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args map[string]any
	}{
		{"as text, too large for argv", map[string]any{"prompt": prompt, "model": "m"}},
		{"as an absolute prompt_file", map[string]any{"prompt_file": src, "model": "m"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			snapDir := t.TempDir()
			before := maps.Clone(tt.args)
			prepared, info, cleanup, err := PromptSnapshots{Dir: snapDir}.Prepare(bg(), tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(before, tt.args); diff != "" {
				t.Fatalf("Prepare modified the caller's args (-before +after):\n%s", diff)
			}
			if _, ok := prepared["prompt"]; ok {
				t.Fatal("prompt text is still in the prepared args; it must not reach argv")
			}
			if prepared["model"] != "m" {
				t.Errorf("other args lost: %v", prepared)
			}
			snap := prepared["prompt_file"].(string)
			if filepath.Dir(snap) != snapDir || snap == src {
				t.Fatalf("snapshot %q is not a new file in %q", snap, snapDir)
			}
			wantSource := "prompt"
			if _, ok := tt.args["prompt_file"]; ok {
				wantSource = "prompt_file"
				// The read moment is Prepare: editing the file afterwards
				// changes nothing the CLI sees.
				if err := os.WriteFile(src, []byte("changed after submit"), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.WriteFile(src, []byte(prompt), 0o644) })
			}
			wantInfo := map[string]any{"prompt_sha256": sha(prompt), "prompt_bytes": 1 << 20, "prompt_source": wantSource}
			if diff := cmp.Diff(wantInfo, info); diff != "" {
				t.Errorf("info (-want +got):\n%s", diff)
			}
			if ents, _ := os.ReadDir(snapDir); fdNames() && len(ents) != 0 {
				t.Fatalf("a live snapshot has a name in %s: %v (a killed server would leave it)", snapDir, ents)
			}
			rep := runPrompt(t, prepared)
			wantPath := snap
			if fdNames() {
				wantPath = "/dev/fd/3" // handed over as the command's descriptor 3
			}
			if rep.Via != "file" || rep.Path != wantPath || rep.SHA256 != sha(prompt) || rep.Bytes != 1<<20 {
				t.Errorf("CLI saw %+v; want the snapshot %s with sha %s and %d bytes", rep, wantPath, sha(prompt), 1<<20)
			}
			if rep.Mode != "0600" {
				t.Errorf("snapshot mode %s while the command ran, want 0600", rep.Mode)
			}
			cleanup()
			if _, err := os.Stat(snap); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("snapshot still there after cleanup: %v", err)
			}
			cleanup() // idempotent
		})
	}
}

// TestSmallPromptStaysInArgv: text within MaxArgBytes is left where it is
// (no file, nothing to clean), and still arrives byte-identical.
func TestSmallPromptStaysInArgv(t *testing.T) {
	prompt := hardPrompt(DefaultMaxArgBytes)
	args := map[string]any{"prompt": prompt}
	prepared, info, cleanup, err := PromptSnapshots{Dir: t.TempDir()}.Prepare(bg(), args)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if diff := cmp.Diff(args, prepared); diff != "" {
		t.Fatalf("prepared differs from args (-args +prepared):\n%s", diff)
	}
	if info["prompt_sha256"] != sha(prompt) || info["prompt_bytes"] != DefaultMaxArgBytes {
		t.Errorf("info %v", info)
	}
	rep := runPrompt(t, prepared)
	if rep.Via != "argv" || rep.SHA256 != sha(prompt) || rep.Bytes != len(prompt) {
		t.Errorf("CLI saw %+v", rep)
	}
	// One byte more and it moves to a file.
	prepared, _, cleanup2, err := PromptSnapshots{Dir: t.TempDir()}.Prepare(bg(), map[string]any{"prompt": prompt + "z"})
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup2()
	if _, ok := prepared["prompt_file"]; !ok {
		t.Errorf("a %d-byte prompt stayed in argv", len(prompt)+1)
	}
}

func TestPromptSnapshotRules(t *testing.T) {
	t.Run("a NUL byte, which argv cannot carry, moves small text to a file", func(t *testing.T) {
		prepared, _, cleanup, err := PromptSnapshots{Dir: t.TempDir()}.Prepare(bg(), map[string]any{"prompt": "a\x00b"})
		if err != nil {
			t.Fatal(err)
		}
		defer cleanup()
		if b, _ := readSnapshot(t, prepared["prompt_file"].(string)); b != "a\x00b" {
			t.Fatalf("snapshot %q", b)
		}
	})
	t.Run("neither parameter: args pass through, no info", func(t *testing.T) {
		args := map[string]any{"model": "m"}
		prepared, info, cleanup, err := PromptSnapshots{}.Prepare(bg(), args)
		if err != nil || cleanup == nil || len(info) != 0 || !maps.Equal(args, prepared) {
			t.Fatalf("Prepare = %v, %v, cleanup nil %v, %v", prepared, info, cleanup == nil, err)
		}
		cleanup()
	})
	t.Run("MaxArgBytes above the kernel limit is clamped", func(t *testing.T) {
		prepared, _, cleanup, err := PromptSnapshots{Dir: t.TempDir(), MaxArgBytes: 1 << 20}.Prepare(bg(), map[string]any{"prompt": strings.Repeat("a", 128<<10)})
		if err != nil {
			t.Fatal(err)
		}
		defer cleanup()
		if _, ok := prepared["prompt_file"]; !ok {
			t.Fatal("a 128 KiB argument was left in argv; the kernel would refuse it")
		}
	})
	t.Run("custom parameter names", func(t *testing.T) {
		p := PromptSnapshots{TextParam: "task", FileParam: "task_file", MaxArgBytes: 4, Dir: t.TempDir()}
		prepared, info, cleanup, err := p.Prepare(bg(), map[string]any{"task": "hello"})
		if err != nil {
			t.Fatal(err)
		}
		defer cleanup()
		if _, ok := prepared["task"]; ok || prepared["task_file"] == nil || info["prompt_source"] != "task" {
			t.Fatalf("prepared %v info %v", prepared, info)
		}
	})
	t.Run("an unwritable snapshot directory is not the caller's fault", func(t *testing.T) {
		_, _, cleanup, err := PromptSnapshots{Dir: filepath.Join(t.TempDir(), "missing")}.Prepare(bg(), map[string]any{"prompt": strings.Repeat("a", DefaultMaxArgBytes+1)})
		var pe interface{ Param() string }
		if err == nil || errors.As(err, &pe) || cleanup == nil {
			t.Fatalf("error %v (param-typed %v); want a plain error and a non-nil cleanup", err, pe != nil)
		}
	})
}

// TestPromptSnapshotsRefuses: each caller mistake is a *PromptError naming
// the parameter, with a reason naming the file.
func TestPromptSnapshotsRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, content []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.txt", []byte("hello"))
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Root reads any file whatever its mode, so as root the unreadable file
	// is /proc/self/mem: a regular file that opens but fails to read.
	unreadable, unreadableWhy := "/proc/self/mem", "cannot be read"
	if os.Geteuid() != 0 {
		unreadable, unreadableWhy = write("secret.txt", []byte("x")), "cannot be opened"
		if err := os.Chmod(unreadable, 0); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name      string
		p         PromptSnapshots
		args      map[string]any
		wantParam string
		wantIn    []string
	}{
		{"both parameters given", PromptSnapshots{}, map[string]any{"prompt": "x", "prompt_file": good}, "prompt_file", []string{"either prompt or prompt_file"}},
		{"relative path", PromptSnapshots{}, map[string]any{"prompt_file": "good.txt"}, "prompt_file", []string{`"good.txt"`, "not an absolute path"}},
		{"empty path", PromptSnapshots{}, map[string]any{"prompt_file": ""}, "prompt_file", []string{"empty"}},
		{"path not a string", PromptSnapshots{}, map[string]any{"prompt_file": 42.0}, "prompt_file", []string{"path string", "float64"}},
		{"missing file", PromptSnapshots{}, map[string]any{"prompt_file": filepath.Join(dir, "nope.txt")}, "prompt_file", []string{"nope.txt", "does not exist"}},
		{"a directory", PromptSnapshots{}, map[string]any{"prompt_file": dir}, "prompt_file", []string{"is a directory"}},
		{"a FIFO (would block a reader forever)", PromptSnapshots{}, map[string]any{"prompt_file": fifo}, "prompt_file", []string{"not a regular file"}},
		{"unreadable file", PromptSnapshots{}, map[string]any{"prompt_file": unreadable}, "prompt_file", []string{unreadable, unreadableWhy}},
		{"oversized file", PromptSnapshots{MaxPromptBytes: 10}, map[string]any{"prompt_file": write("big.txt", bytes.Repeat([]byte("a"), 11))}, "prompt_file", []string{"big.txt", "over the 10-byte limit"}},
		{"empty file", PromptSnapshots{}, map[string]any{"prompt_file": write("empty.txt", nil)}, "prompt_file", []string{"empty.txt", "is empty"}},
		{"file not UTF-8", PromptSnapshots{}, map[string]any{"prompt_file": write("latin1.txt", []byte("caf\xe9 au lait"))}, "prompt_file", []string{"latin1.txt", "not valid UTF-8", "offset 3"}},
		{"text not a string", PromptSnapshots{}, map[string]any{"prompt": []any{"a"}}, "prompt", []string{"must be a string"}},
		{"oversized text", PromptSnapshots{MaxPromptBytes: 10}, map[string]any{"prompt": strings.Repeat("a", 11)}, "prompt", []string{"11 bytes", "over the 10-byte limit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.p.Dir = t.TempDir()
			prepared, _, cleanup, err := tt.p.Prepare(bg(), tt.args)
			var pe interface{ Param() string }
			if !errors.As(err, &pe) {
				t.Fatalf("Prepare = %v, %v; want an error with Param()", prepared, err)
			}
			if pe.Param() != tt.wantParam {
				t.Errorf("Param() = %q, want %q", pe.Param(), tt.wantParam)
			}
			for _, w := range tt.wantIn {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("reason %q lacks %q", err, w)
				}
			}
			if cleanup == nil {
				t.Fatal("cleanup is nil")
			}
			cleanup()
			if left, _ := os.ReadDir(tt.p.Dir); len(left) != 0 {
				t.Errorf("a refused prompt left files behind: %v", left)
			}
		})
	}
}
