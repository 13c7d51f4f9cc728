//go:build unix

package dispatch

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestParseOutput pins how each output mode reads stdout, one row per rule.
func TestParseOutput(t *testing.T) {
	tests := []struct {
		name     string
		mode     Output
		stdout   string
		want     string // the output, as compact JSON
		replaced int
		wantErr  string // "" means it reads; else the problem must contain it
	}{
		{"json: an array", OutputJSON, "[1, 2,\n 3]\n", `[1,2,3]`, 0, ""},
		{"json: an object that looks like the envelope is data", OutputJSON, `{"result_version":1,"ok":false,"error":{"code":"x","message":"y"}}`, `{"result_version":1,"ok":false,"error":{"code":"x","message":"y"}}`, 0, ""},
		{"json: a scalar", OutputJSON, " 42 ", `42`, 0, ""},
		{"json: a string", OutputJSON, `"hi"`, `"hi"`, 0, ""},
		{"json: empty stdout is null", OutputJSON, "", `null`, 0, ""},
		{"json: whitespace only is null", OutputJSON, "\n\t \n", `null`, 0, ""},
		{"json: a large integer keeps its digits", OutputJSON, `12345678901234567890123`, `12345678901234567890123`, 0, ""},
		{"json: text is not one value", OutputJSON, "hello\n", "", 0, "stdout is not one JSON value"},
		{"json: two values are not one", OutputJSON, "1\n2\n", "", 0, "more follows the first value"},
		{"json: a value cut short", OutputJSON, `{"a": [1,`, "", 0, "cut short"},
		{"json: invalid UTF-8 in a string is replaced and counted", OutputJSON, "\"a\xffb\xfe\"", `"a` + "\uFFFD" + `b` + "\uFFFD" + `"`, 2, ""},
		{"json: a number beyond a double is refused", OutputJSON, `{"n": 1e400}`, "", 0, "beyond the range of a double"},
		{"json: nesting past 512 is refused", OutputJSON, strings.Repeat("[", 1000) + strings.Repeat("]", 1000), "", 0, "deeper than 512"},
		{"json: a lone surrogate is refused", OutputJSON, `"\ud800"`, "", 0, "half a surrogate pair"},
		{"jsonl: a lone surrogate on a line is refused", OutputJSONL, "1\n\"\\udc00\"\n", "", 0, "line 2 of stdout is JSON that not every client"},
		{"jsonl: one value per line, blank lines skipped", OutputJSONL, "{\"a\":1}\n\n[2]\r\n\"x\"\n", `[{"a":1},[2],"x"]`, 0, ""},
		{"jsonl: nothing is the empty array", OutputJSONL, "", `[]`, 0, ""},
		{"jsonl: a value across two lines is refused", OutputJSONL, "{\"a\":\n1}\n", "", 0, "line 1 of stdout"},
		{"jsonl: two values on a line are refused", OutputJSONL, "1\n2 3\n", "", 0, "line 2 of stdout"},
		{"text: the text as a string", OutputText, "a:1:1: [error] x\n", `"a:1:1: [error] x\n"`, 0, ""},
		{"text: empty is the empty string", OutputText, "", `""`, 0, ""},
		{"text: invalid UTF-8 bytes are replaced one by one and counted", OutputText, "ok \xff\xfe\xfd é", `"ok ` + "\uFFFD\uFFFD\uFFFD" + ` é"`, 3, ""},
		{"text: a truncated rune at the end is replaced", OutputText, "x\xc3", `"x` + "\uFFFD" + `"`, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, replaced, err := ParseOutput(tt.mode, []byte(tt.stdout))
			if tt.wantErr != "" {
				var e *Error
				if !errors.As(err, &e) || e.Kind != KindInvalidResult || !strings.Contains(e.Problem, tt.wantErr) || e.Excerpt == "" {
					t.Fatalf("ParseOutput(%q) = %s, %v; want invalid_result with an excerpt, mentioning %q", tt.stdout, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseOutput(%q): %v", tt.stdout, err)
			}
			if string(got) != tt.want || replaced != tt.replaced {
				t.Errorf("ParseOutput(%q) = %s, %d replaced; want %s, %d", tt.stdout, got, replaced, tt.want, tt.replaced)
			}
			if !json.Valid(got) {
				t.Errorf("output %q is not JSON", got)
			}
		})
	}
}

// TestParseOutputExcerptIsShort: an invalid_result shows the start of what
// was printed, not all of it.
func TestParseOutputExcerptIsShort(t *testing.T) {
	_, _, err := ParseOutput(OutputJSON, []byte(strings.Repeat("é", 1000)))
	var e *Error
	if !errors.As(err, &e) || len(e.Excerpt) > excerptLen+len("…") || !strings.HasPrefix(e.Excerpt, "éé") || !strings.HasSuffix(e.Excerpt, "…") {
		t.Fatalf("excerpt %q (%d bytes)", e.Excerpt, len(e.Excerpt))
	}
}

// shRunner runs a shell script as the command (a real subprocess).
func shRunner(t *testing.T, script string, opts Options) *Runner {
	t.Helper()
	opts.LeadingArgs = []string{"-c", script, "sh"}
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Second
	}
	opts.Grace = 300 * time.Millisecond
	r, err := NewRunner("/bin/sh", &opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestExecuteOutputModes: under the json, jsonl and text outputs the exit
// status alone decides the outcome, the output is data, and the result has
// the same four keys every time.
func TestExecuteOutputModes(t *testing.T) {
	tests := []struct {
		name   string
		script string
		mode   Output
		okExit []int
		want   OutputResult // when the run succeeds
		kind   Kind         // when it fails
	}{
		{"a JSON array with exit 0", `printf '[{"table":"t"}]\n'`, OutputJSON, nil,
			OutputResult{Output: json.RawMessage(`[{"table":"t"}]`)}, ""},
		{"the envelope's shape is data, never control", `printf '{"result_version":1,"ok":false,"error":{"code":"boom","message":"no"}}'`, OutputJSON, nil,
			OutputResult{Output: json.RawMessage(`{"result_version":1,"ok":false,"error":{"code":"boom","message":"no"}}`)}, ""},
		{"an unsupported version is data too", `printf '{"result_version":7}'`, OutputJSON, nil,
			OutputResult{Output: json.RawMessage(`{"result_version":7}`)}, ""},
		{"a linter's findings with exit 1 among the ok exits", `printf 'a.yaml:1:1: [error] bad\n'; echo warn >&2; exit 1`, OutputText, []int{0, 1},
			OutputResult{Output: json.RawMessage(`"a.yaml:1:1: [error] bad\n"`), ExitCode: 1, Stderr: "warn\n"}, ""},
		{"JSON lines", `printf '{"n":1}\n{"n":2}\n'`, OutputJSONL, nil,
			OutputResult{Output: json.RawMessage(`[{"n":1},{"n":2}]`)}, ""},
		{"text with invalid UTF-8", `printf 'a\377b'`, OutputText, nil,
			OutputResult{Output: json.RawMessage(`"a` + "\uFFFD" + `b"`), ReplacedBytes: 1}, ""},
		{"an exit outside the ok exits", `printf '[1]'; exit 2`, OutputJSON, []int{0, 1}, OutputResult{}, KindNonzeroExit},
		{"exit 1 with the default ok exits", `exit 1`, OutputText, nil, OutputResult{}, KindNonzeroExit},
		{"not one JSON value", `echo hello`, OutputJSON, nil, OutputResult{}, KindInvalidResult},
		{"a signal is never ok", `kill -9 $$`, OutputText, []int{0, 1}, OutputResult{}, KindNonzeroExit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := shRunner(t, tt.script, Options{Output: tt.mode, OKExit: tt.okExit})
			data, err := r.Run(bg(), nil)
			if tt.kind != "" {
				if kindOf(err) != tt.kind {
					t.Fatalf("Run = %s, %v; want %s", data, err, tt.kind)
				}
				return
			}
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			var keys map[string]json.RawMessage
			if err := json.Unmarshal(data, &keys); err != nil || len(keys) != 4 {
				t.Fatalf("result %s: want exactly output, exit_code, stderr, replaced_bytes", data)
			}
			var got OutputResult
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNonzeroExitKeepsTheOutput: an exit outside ok_exit is nonzero_exit
// whose details carry the exit code, the stderr tail and the output as
// read, so findings are never lost; stdout that does not read says why.
func TestNonzeroExitKeepsTheOutput(t *testing.T) {
	r := shRunner(t, `printf '[{"finding":1}]'; echo oops >&2; exit 3`, Options{Output: OutputJSON, OKExit: []int{0, 1}})
	_, err := r.Run(bg(), nil)
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindNonzeroExit {
		t.Fatalf("Run: %v", err)
	}
	d := e.ErrorDetails()
	out, _ := json.Marshal(d["output"])
	if d["exit_code"] != 3 || string(out) != `[{"finding":1}]` || d["stderr_tail"] != "oops\n" || d["replaced_bytes"] != 0 {
		t.Errorf("details %v", d)
	}
	if !strings.Contains(e.Problem, "not one of its ok exits [0 1]") {
		t.Errorf("problem %q", e.Problem)
	}

	r = shRunner(t, `echo not json; exit 3`, Options{Output: OutputJSON})
	_, err = r.Run(bg(), nil)
	if !errors.As(err, &e) || e.Kind != KindNonzeroExit {
		t.Fatalf("Run: %v", err)
	}
	d = e.ErrorDetails()
	out, _ = json.Marshal(d["output"])
	if string(out) != "null" || d["result_problem"] != "invalid_result" || d["excerpt"] != "not json" {
		t.Errorf("details of an exit 3 whose stdout is not JSON: %v", d)
	}
}

// TestOutputModesKeepTheStopKinds: output_overflow and timeout mean what
// they mean under the envelope.
func TestOutputModesKeepTheStopKinds(t *testing.T) {
	r := shRunner(t, `head -c 5000 /dev/zero`, Options{Output: OutputText, StdoutCap: 1000})
	if _, err := r.Run(bg(), nil); kindOf(err) != KindOutputOverflow {
		t.Errorf("flood: %v", err)
	}
	r = shRunner(t, `exec sleep 30`, Options{Output: OutputJSON, Timeout: 200 * time.Millisecond})
	if _, err := r.Run(bg(), nil); kindOf(err) != KindTimeout {
		t.Errorf("hang: %v", err)
	}
}

// TestNewRunnerOutputOptions: NewRunner refuses what cannot mean anything.
func TestNewRunnerOutputOptions(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts Options
		want string
	}{
		{"an unknown mode", Options{Output: "yaml"}, `Output "yaml" is not envelope, json, jsonl or text`},
		{"ok exits under the envelope", Options{OKExit: []int{0, 1}}, "OKExit applies to the json, jsonl and text outputs"},
		{"ok exits under the named envelope", Options{Output: OutputEnvelope, OKExit: []int{1}}, "OKExit applies"},
		{"a negative ok exit", Options{Output: OutputText, OKExit: []int{-1}}, "-1, which is not an exit status"},
		{"an ok exit past 255", Options{Output: OutputText, OKExit: []int{256}}, "256, which is not an exit status"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewRunner("/bin/sh", &tt.opts)
			if kindOf(err) != KindLaunchFailed || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("NewRunner: %v; want %q", err, tt.want)
			}
		})
	}
}

// BenchmarkParseOutput reads a 1 MiB stdout (the default cap) in each
// mode: what an output mode adds to a dispatched op.
func BenchmarkParseOutput(b *testing.B) {
	var rows strings.Builder
	for rows.Len() < 1<<20-200 {
		rows.WriteString(`{"table":"trees","count":2,"name":"oak é"}` + "\n")
	}
	lines := rows.String()
	array := "[" + strings.ReplaceAll(strings.TrimSuffix(lines, "\n"), "\n", ",") + "]"
	for _, bc := range []struct {
		mode   Output
		stdout string
	}{{OutputJSON, array}, {OutputJSONL, lines}, {OutputText, lines}} {
		b.Run(string(bc.mode), func(b *testing.B) {
			in := []byte(bc.stdout)
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if _, _, err := ParseOutput(bc.mode, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
