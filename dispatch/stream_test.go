//go:build unix

package dispatch

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOutputStreamStderr: with OutputStream stderr the mode reads stderr,
// stdout comes back under "stdout" in its place, and each stream keeps
// its own cap and what it keeps (the machine stream its head, within the
// stdout cap; the other its tail, within the stderr cap).
func TestOutputStreamStderr(t *testing.T) {
	r := shRunner(t, `printf '[{"n":1}]' >&2; echo progress; exit 1`, Options{Output: OutputJSON, OKExit: []int{0, 1}, OutputStream: StreamStderr})
	data, err := r.Run(bg(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil || len(keys) != 4 {
		t.Fatalf("result %s: want exactly output, exit_code, stdout, replaced_bytes", data)
	}
	var got StderrOutputResult
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := StderrOutputResult{Output: json.RawMessage(`[{"n":1}]`), ExitCode: 1, Stdout: "progress\n"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}

	// stderr past the stdout cap is an overflow of stderr, at that cap,
	// while 5,000 bytes of stdout pass (the stderr cap is theirs).
	r = shRunner(t, `head -c 5000 /dev/zero; head -c 2000 /dev/zero >&2`, Options{Output: OutputText, OutputStream: StreamStderr, StdoutCap: 1000, StderrCap: 8000})
	_, err = r.Run(bg(), nil)
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindOutputOverflow || e.Stream != "stderr" || e.Cap != 1000 {
		t.Errorf("stderr past the stdout cap: %v", err)
	}
	r = shRunner(t, `head -c 5000 /dev/zero`, Options{Output: OutputText, OutputStream: StreamStderr, StdoutCap: 8000, StderrCap: 1000})
	if _, err = r.Run(bg(), nil); !errors.As(err, &e) || e.Kind != KindOutputOverflow || e.Stream != "stdout" || e.Cap != 1000 {
		t.Errorf("stdout past the stderr cap: %v", err)
	}

	// A failure quotes stdout's tail, not stderr (which is the output),
	// and names stderr when it is not what the mode says.
	r = shRunner(t, `echo '{"a":' >&2; echo last words; exit 3`, Options{Output: OutputJSON, OutputStream: StreamStderr})
	_, err = r.Run(bg(), nil)
	if !errors.As(err, &e) || e.Kind != KindNonzeroExit {
		t.Fatalf("exit 3: %v", err)
	}
	d := e.ErrorDetails()
	if d["stdout_tail"] != "last words\n" || d["stderr_tail"] != nil || !strings.Contains(e.Problem, "stderr is not one JSON value") {
		t.Errorf("details %v, problem %q", d, e.Problem)
	}
}

func TestOutputStreamRefused(t *testing.T) {
	for _, tt := range []struct {
		opts Options
		want string
	}{
		{Options{OutputStream: StreamStderr}, "OutputStream stderr applies to the json, jsonl and text outputs"},
		{Options{Output: OutputJSON, OutputStream: "stdin"}, `OutputStream "stdin" is not stdout or stderr`},
	} {
		if _, err := NewRunner("/bin/sh", &tt.opts); kindOf(err) != KindLaunchFailed || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewRunner(%+v): %v; want %q", tt.opts, err, tt.want)
		}
	}
}

// A real program that writes its JSON report to stderr: gcc's
// diagnostics under -fdiagnostics-format=json.
func TestOutputStreamStderrGCC(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc is not installed")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "bad.c")
	if err := os.WriteFile(src, []byte("int main(void) { return x; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := NewRunner(gcc, &Options{Output: OutputJSON, OKExit: []int{0, 1}, OutputStream: StreamStderr, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	data, err := r.Run(bg(), []string{"-fsyntax-only", "-fdiagnostics-format=json", src})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Output []struct {
			Kind    string `json:"kind"`
			Message string `json:"message"`
		} `json:"output"`
		ExitCode int    `json:"exit_code"`
		Stdout   string `json:"stdout"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.ExitCode != 1 || len(got.Output) != 1 || got.Output[0].Kind != "error" || !strings.Contains(got.Output[0].Message, "undeclared") || got.Stdout != "" {
		t.Errorf("gcc's report: %s", data)
	}
}
