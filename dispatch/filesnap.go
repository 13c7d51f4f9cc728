//go:build unix

package dispatch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
)

// DefaultMaxFileBytes caps a [FileSnapshots] file when MaxBytes is zero.
const DefaultMaxFileBytes = 1 << 20 // 1 MiB

// FileSnapshots prepares a parameter naming a text file the CLI reads (a
// flow spec) the way [PromptSnapshots] prepares a prompt file: read once,
// at submit, capped, checked to be a non-empty UTF-8 regular file, and
// copied to a private snapshot whose path replaces the parameter, so the
// CLI reads exactly what was checked and later edits change nothing. Use
// its Prepare method as (part of) a verb's preparer (verbsurface.Preparer).
//
// It does not parse the file: the CLI does, from the snapshot.
type FileSnapshots struct {
	// Param is the parameter naming the file ("spec"). Required.
	Param string
	// MaxBytes caps the file (DefaultMaxFileBytes).
	MaxBytes int64
	// Dir is where snapshots are created (os.TempDir()).
	Dir string
	// Open, when set, opens the file instead of opening its path, as
	// [PromptSnapshots.Open] does.
	Open func(ctx context.Context, param, path string) (*os.File, error)
}

// Prepare is a verbsurface.Preparer: without Param in args it
// passes them through; otherwise Param must be a string naming a file that
// passes the checks above, each failure a [*PromptError] on Param. info
// holds PARAM_sha256 and PARAM_bytes; cleanup removes the snapshot and is
// never nil.
func (p FileSnapshots) Prepare(ctx context.Context, args map[string]any) (map[string]any, map[string]any, func(), error) {
	noop := func() {}
	if err := ctx.Err(); err != nil {
		return nil, nil, noop, err
	}
	val, ok := args[p.Param]
	if !ok || p.Param == "" {
		return args, map[string]any{}, noop, nil
	}
	path, ok := val.(string)
	if !ok {
		return nil, nil, noop, &PromptError{Parameter: p.Param, Reason: fmt.Sprintf("%s must be a path string, got %T", p.Param, val)}
	}
	limit := p.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxFileBytes
	}
	content, err := readCallerFile(ctx, p.Param, path, p.Param+" file", limit, p.Open)
	if err != nil {
		return nil, nil, noop, err
	}
	snap, release, err := writeSnapshot(p.Dir, "dispatch-"+p.Param+"-*", content)
	if err != nil {
		return nil, nil, noop, err
	}
	sum := sha256.Sum256(content)
	prepared := maps.Clone(args)
	prepared[p.Param] = snap
	return prepared, map[string]any{p.Param + "_sha256": hex.EncodeToString(sum[:]), p.Param + "_bytes": len(content)}, release, nil
}
