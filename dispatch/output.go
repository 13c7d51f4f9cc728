//go:build unix

package dispatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/verbsurface/verbsurface/internal/portablejson"
)

// Output says how a command answers on stdout, and so how [Runner.Execute]
// reads it (Options.Output).
//
// The zero value is [OutputEnvelope]: the machine-result contract, where the
// command's own JSON says whether it succeeded. Every other mode is for a
// program not written for that contract (a linter, a formatter, a program
// printing a JSON listing): its stdout is data and never control. Nothing it
// prints can turn a run into an error, a success or another result
// version; only its exit status, against Options.OKExit, decides the
// outcome. A program whose JSON happens to read
// {"result_version":1,"ok":false,"error":{...}} is returned as that JSON.
type Output string

const (
	// OutputEnvelope is the machine-result contract (the package
	// documentation): the zero value, and the only mode whose stdout is
	// read as control.
	OutputEnvelope Output = "envelope"
	// OutputJSON: stdout is exactly one JSON value of any type (object,
	// array, string, number, boolean, null); empty stdout (or only
	// whitespace) is null.
	OutputJSON Output = "json"
	// OutputJSONL: stdout is JSON lines, one value per line (blank lines
	// are skipped); the output is the array of them, [] for none.
	OutputJSONL Output = "jsonl"
	// OutputText: stdout is text; the output is one JSON string holding it
	// whole.
	OutputText Output = "text"
)

// Valid reports whether o is one of the four modes ("" counts as envelope).
func (o Output) Valid() bool {
	switch o {
	case "", OutputEnvelope, OutputJSON, OutputJSONL, OutputText:
		return true
	}
	return false
}

// OutputResult is the data [Runner.Run] returns for a command run in any
// mode but [OutputEnvelope]: the op's result object, with the same four
// keys every time (contract C9 in CONTRACTS.md).
type OutputResult struct {
	// Output is stdout as the mode reads it: any JSON value (json), an
	// array of them (jsonl), or a string (text).
	Output json.RawMessage `json:"output"`
	// ExitCode is the exit status, one of Options.OKExit.
	ExitCode int `json:"exit_code"`
	// Stderr is what the command wrote on stderr (its tail, at most the
	// stderr cap); "" when nothing.
	Stderr string `json:"stderr"`
	// ReplacedBytes counts the bytes of stdout that were not UTF-8 and
	// were each replaced by U+FFFD before reading, in every mode (JSON
	// must be UTF-8, and a JSON string cannot carry them); 0 normally.
	ReplacedBytes int `json:"replaced_bytes"`
}

// excerptLen bounds the stdout shown in an invalid_result error: enough to
// recognise what the program printed instead, never the whole output.
const excerptLen = 120

// ParseOutput reads stdout as mode o (which must not be OutputEnvelope) and
// returns the output value as compact JSON and the count of bytes that were
// not UTF-8 (each replaced by U+FFFD first). The error is an [*Error] of kind
// [KindInvalidResult] with an excerpt of what stdout held instead: for json,
// stdout that is not exactly one JSON value; for jsonl, a line that is not
// exactly one. text never fails.
func ParseOutput(o Output, stdout []byte) (json.RawMessage, int, error) {
	return parseOutput(o, "stdout", stdout)
}

// parseOutput is ParseOutput of the stream named stream.
func parseOutput(o Output, stream string, stdout []byte) (json.RawMessage, int, error) {
	clean, replaced := replaceInvalidUTF8(stdout)
	switch o {
	case OutputText:
		b, _ := json.Marshal(string(clean)) // valid UTF-8 now: cannot fail
		return b, replaced, nil
	case OutputJSON:
		if len(bytes.TrimSpace(clean)) == 0 {
			return json.RawMessage("null"), replaced, nil
		}
		var b bytes.Buffer
		if err := appendValue(&b, clean); err != nil {
			return nil, replaced, invalidOutput(o, fmt.Sprintf("%s is not one JSON value: %s", stream, err), clean)
		}
		if err := portablejson.Check(b.Bytes()); err != nil {
			return nil, replaced, invalidOutput(o, "stdout is JSON that not every client can decode: "+err.Error(), clean)
		}
		return b.Bytes(), replaced, nil
	case OutputJSONL:
		var b bytes.Buffer
		b.Grow(len(clean) + 2)
		b.WriteByte('[')
		n := 0
		for i, line := range bytes.Split(clean, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			if n > 0 {
				b.WriteByte(',')
			}
			at := b.Len()
			if err := appendValue(&b, line); err != nil {
				return nil, replaced, invalidOutput(o, fmt.Sprintf("line %d of %s is not one JSON value: %s", i+1, stream, err), line)
			}
			if err := portablejson.Check(b.Bytes()[at:]); err != nil {
				return nil, replaced, invalidOutput(o, fmt.Sprintf("line %d of stdout is JSON that not every client can decode: %s", i+1, err), line)
			}
			n++
		}
		b.WriteByte(']')
		return b.Bytes(), replaced, nil
	}
	return nil, replaced, fmt.Errorf("dispatch: ParseOutput: output mode %q is not json, jsonl or text", o)
}

// appendValue appends the single JSON value in b to out, compacted (one
// pass when b is valid); otherwise it says what is wrong, and out may hold
// part of it.
func appendValue(out *bytes.Buffer, b []byte) error {
	if err := json.Compact(out, b); err == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("%s", describeJSONError(err))
	}
	return fmt.Errorf("more follows the first value (near byte %d)", dec.InputOffset())
}

func invalidOutput(o Output, problem string, shown []byte) *Error {
	e := resultError(KindInvalidResult, fmt.Sprintf("%s (output %s)", problem, o))
	e.Excerpt = excerpt(shown)
	return e
}

// excerpt is the start of b, cut at excerptLen bytes on a rune boundary.
func excerpt(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) <= excerptLen {
		return string(b)
	}
	cut := b[:excerptLen]
	for len(cut) > 0 && !utf8.Valid(cut) {
		cut = cut[:len(cut)-1]
	}
	return string(cut) + "…"
}

// replaceInvalidUTF8 replaces every byte that is not part of a valid UTF-8
// sequence by U+FFFD, and counts them. b is returned as is when it is valid.
func replaceInvalidUTF8(b []byte) ([]byte, int) {
	if utf8.Valid(b) {
		return b, 0
	}
	out := make([]byte, 0, len(b)+8)
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			out = append(out, "\uFFFD"...)
			n++
			b = b[1:]
			continue
		}
		out = append(out, b[:size]...)
		b = b[size:]
	}
	return out, n
}

// checkOutputOptions is NewRunner's check of Output and OKExit.
func checkOutputOptions(o Output, okExit []int) error {
	if !o.Valid() {
		return fmt.Errorf("option Output %q is not envelope, json, jsonl or text", o)
	}
	if (o == "" || o == OutputEnvelope) && len(okExit) > 0 {
		return fmt.Errorf("option OKExit applies to the json, jsonl and text outputs: under the machine-result contract an ok result needs exit status 0")
	}
	for _, c := range okExit {
		if c < 0 || c > 255 {
			return fmt.Errorf("option OKExit holds %d, which is not an exit status (0 to 255)", c)
		}
	}
	return nil
}

// finishOutput is Execute's end for a mode other than envelope, once the
// command exited on its own (not stopped, no overflow): stdout read as the
// mode says, and the exit status against the ok exits, in this order:
//
//  1. The exit status is not one of Options.OKExit (or the command died of
//     a signal): nonzero_exit, carrying the exit code, the stderr tail and
//     the output as read (or, when stdout is not what the mode says, the
//     problem and an excerpt), so a linter's findings are never lost.
//  2. stdout is not what the mode says: invalid_result with an excerpt.
//  3. Otherwise the result is an [OutputResult].
func (r *Runner) finishOutput(res *Result, e *Error, signal string, fail func(*Error) (*Result, error)) (*Result, error) {
	machineName, _ := r.machineStreams()
	machine, other := res.Stdout, res.Stderr
	if r.stream == StreamStderr {
		machine, other = res.Stderr, res.Stdout
	}
	out, replaced, perr := parseOutput(r.output, machineName, machine)
	if perr != nil {
		out = json.RawMessage("null")
	}
	if signal != "" || !slices.Contains(r.okExit, res.ExitCode) {
		e.Kind, e.Signal, e.Output, e.ReplacedBytes = KindNonzeroExit, signal, out, replaced
		status := "exited with status " + strconv.Itoa(res.ExitCode)
		if signal != "" {
			status = fmt.Sprintf("died of a signal (%s)", signal)
		}
		e.Problem = fmt.Sprintf("%s, which is not one of its ok exits %v", status, r.okExit)
		if perr != nil {
			pe := perr.(*Error)
			e.ResultProblem, e.Excerpt = pe.Kind, pe.Excerpt
			e.Problem += "; and " + pe.Problem
		}
		return fail(e)
	}
	if perr != nil {
		pe := perr.(*Error)
		pe.ExitCode, pe.Stderr, pe.Stdout = res.ExitCode, e.Stderr, e.Stdout
		return fail(pe)
	}
	otherText, _ := replaceInvalidUTF8(other)
	var result any = OutputResult{Output: out, ExitCode: res.ExitCode, Stderr: string(otherText), ReplacedBytes: replaced}
	if r.stream == StreamStderr {
		result = StderrOutputResult{Output: out, ExitCode: res.ExitCode, Stdout: string(otherText), ReplacedBytes: replaced}
	}
	data, err := json.Marshal(result)
	if err != nil { // cannot happen: out is compact JSON
		return fail(&Error{Kind: KindInvalidResult, ExitCode: res.ExitCode, Problem: err.Error()})
	}
	res.Data = data
	return res, nil
}
