//go:build unix

package dispatch

import (
	"encoding/json"
	"fmt"
)

// Stream names the output stream a command writes its machine output to
// (Options.OutputStream).
type Stream string

const (
	// StreamStdout: the machine output is on stdout (the zero value).
	StreamStdout Stream = "stdout"
	// StreamStderr: the machine output is on stderr, for a program that
	// writes its report there (gcc's -fdiagnostics-format=json). Only
	// under OutputJSON, OutputJSONL and OutputText. stderr is then read
	// as that mode says and capped like stdout (Options.StdoutCap, its
	// head kept), and stdout becomes the other stream: capped by
	// Options.StderrCap, its tail kept, returned under the key "stdout"
	// where "stderr" would be ([StderrOutputResult]; in a failure's
	// details "stdout_tail").
	StreamStderr Stream = "stderr"
)

// StderrOutputResult is [OutputResult] for a command whose machine output
// is on stderr ([StreamStderr]): the same four keys, but for the other
// stream, stdout, in place of stderr.
type StderrOutputResult struct {
	// Output is stderr as the mode reads it.
	Output   json.RawMessage `json:"output"`
	ExitCode int             `json:"exit_code"`
	// Stdout is what the command wrote on stdout (its tail, at most the
	// stderr cap); "" when nothing.
	Stdout string `json:"stdout"`
	// ReplacedBytes counts the bytes of stderr that were not UTF-8.
	ReplacedBytes int `json:"replaced_bytes"`
}

// checkStream is NewRunner's check of OutputStream.
func checkStream(s Stream, o Output) error {
	switch s {
	case "", StreamStdout:
		return nil
	case StreamStderr:
		if o == "" || o == OutputEnvelope {
			return fmt.Errorf("option OutputStream stderr applies to the json, jsonl and text outputs: the machine-result contract is on stdout")
		}
		return nil
	}
	return fmt.Errorf("option OutputStream %q is not stdout or stderr", s)
}

// machineStreams are the names of the stream holding the machine output
// and of the other one.
func (r *Runner) machineStreams() (machine, other string) {
	if r.stream == StreamStderr {
		return "stderr", "stdout"
	}
	return "stdout", "stderr"
}
