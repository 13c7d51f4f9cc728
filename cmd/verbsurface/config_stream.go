//go:build unix

package main

import (
	"fmt"

	"github.com/verbsurface/verbsurface/dispatch"
)

// streamProblem is what is wrong with an output_stream: key under the
// output mode out ("" when nothing): stdout or stderr, and stderr only
// where the output is data (json, jsonl, text), never under the
// envelope, whose contract is on stdout.
func streamProblem(out, stream string) string {
	switch dispatch.Stream(stream) {
	case "", dispatch.StreamStdout:
		return ""
	case dispatch.StreamStderr:
		if out == "" || out == string(dispatch.OutputEnvelope) {
			return "stderr applies to output json, jsonl and text: the envelope's machine result is on stdout"
		}
		return ""
	}
	return fmt.Sprintf("%q is not stdout or stderr", stream)
}
