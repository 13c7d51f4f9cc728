//go:build unix

package server

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The server's own paths — the executable it runs, its state home, its
// working directory, its temporary directory — are no caller's business,
// and a CLI error or a dispatch failure names them freely ("dispatch:
// /opt/bin/limcp --json ...: did not finish", "invalid config
// /home/me/.local/state/limcp/config.yaml"). Every error a command or the
// tree source returns passes through a scrubber before the surface words
// it: each such path becomes a name the caller can read without learning
// it (limcp, $LIMCP_HOME, ., $TMPDIR). What a command returns on success is
// the CLI's data and is left as it is (state.show names the home: that is
// its answer).

// scrubber replaces the server's paths in words.
type scrubber struct {
	pairs []string // old, new, … longest old first
}

func newScrubber(exe, home string) *scrubber {
	type pair struct{ old, new string }
	var ps []pair
	add := func(path, name string) {
		if path == "" || path == "/" || path == "." {
			return
		}
		ps = append(ps, pair{path, name})
		if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
			ps = append(ps, pair{real, name})
		}
	}
	add(exe, "limcp")
	add(home, "$"+HomeEnv)
	if wd, err := os.Getwd(); err == nil {
		add(wd, ".")
	}
	add(filepath.Clean(os.TempDir()), "$TMPDIR")
	slices.SortStableFunc(ps, func(a, b pair) int { return len(b.old) - len(a.old) })
	s := &scrubber{}
	for _, p := range ps {
		s.pairs = append(s.pairs, p.old, p.new)
	}
	return s
}

// words returns s with every server path replaced.
func (s *scrubber) words(text string) string {
	if len(s.pairs) == 0 {
		return text
	}
	return strings.NewReplacer(s.pairs...).Replace(text)
}

// value scrubs every string inside v (details: maps, lists, strings).
func (s *scrubber) value(v any) any {
	switch x := v.(type) {
	case string:
		return s.words(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = s.value(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = s.value(e)
		}
		return out
	case []string:
		out := make([]string, len(x))
		for i, e := range x {
			out[i] = s.words(e)
		}
		return out
	}
	return v
}

// err wraps err so that its words (Error, ErrorMessage, ErrorDetails)
// name none of the server's paths, its code unchanged; errors.Is and As
// still reach the original. A dispatch failure loses its "dispatch: "
// prefix, Go's voice rather than the server's.
func (s *scrubber) err(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	var w interface{ ErrorMessage() string }
	if errors.As(err, &w) && w.ErrorMessage() != "" {
		msg = w.ErrorMessage()
	}
	plain := scrubbedError{orig: err, msg: s.words(strings.TrimPrefix(msg, "dispatch: "))}
	var c interface{ ErrorCode() string }
	var d interface{ ErrorDetails() map[string]any }
	hasCode, hasDetails := errors.As(err, &c), errors.As(err, &d)
	if !hasCode && !hasDetails {
		return &plain
	}
	out := &scrubbedCodedError{scrubbedError: plain}
	if hasCode {
		out.code = c.ErrorCode()
	}
	if hasDetails {
		if m, ok := s.value(d.ErrorDetails()).(map[string]any); ok {
			out.details = m
		}
	}
	return out
}

// runner wraps r so that every error it returns is scrubbed.
func (s *scrubber) runner(r interface {
	Run(context.Context, []string) (json.RawMessage, error)
}) scrubbedRunner {
	return scrubbedRunner{r: r, s: s}
}

type scrubbedRunner struct {
	r interface {
		Run(context.Context, []string) (json.RawMessage, error)
	}
	s *scrubber
}

func (sr scrubbedRunner) Run(ctx context.Context, argv []string) (json.RawMessage, error) {
	data, err := sr.r.Run(ctx, argv)
	return data, sr.s.err(err)
}

// scrubbedError is an error whose words have been scrubbed.
type scrubbedError struct {
	orig error
	msg  string
}

func (e *scrubbedError) Error() string        { return e.msg }
func (e *scrubbedError) ErrorMessage() string { return e.msg }
func (e *scrubbedError) Unwrap() error        { return e.orig }

// scrubbedCodedError is a scrubbed error that had a code or details: it
// keeps both, the details scrubbed.
type scrubbedCodedError struct {
	scrubbedError
	code    string
	details map[string]any
}

func (e *scrubbedCodedError) ErrorCode() string            { return e.code }
func (e *scrubbedCodedError) ErrorDetails() map[string]any { return e.details }
