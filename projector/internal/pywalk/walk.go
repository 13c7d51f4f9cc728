package pywalk

import (
	"context"
	"errors"
	"fmt"

	"github.com/verbsurface/verbsurface/projector"
)

// Status is what every walker reports for each target of a walk: ok, or
// the kind and message of its failure. An adapter's per-target answer
// embeds it.
type Status struct {
	OK      bool   `json:"ok"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// Walker is one adapter's walker: its Python source, how it runs, and the
// adapter's own error for a failure.
type Walker struct {
	Source string
	Config Config
	// Fail makes the adapter's error for a failure of one target, or of
	// the whole run (target "").
	Fail func(target, kind, message string) error
	// Request holds more fields of the "walk" request, beside its
	// targets, for a walker that reads them (fromoptparse's command
	// factory).
	Request map[string]any
}

// Call runs mode as [Run] does, a [Failure] becoming w.Fail's error.
func (w *Walker) Call(ctx context.Context, mode string, request, answer any) error {
	err := Run(ctx, w.Config, w.Source, mode, request, answer)
	var f *Failure
	if errors.As(err, &f) {
		return w.Fail("", f.Kind, f.Message)
	}
	return err
}

// Walk runs w's "walk" mode over targets with one Python process
// (Python's start-up dominates a walk) and returns the trees in the order
// of targets: status reads each target's answer R, and build makes the
// tree of one whose status is OK. If any target fails, the error joins one
// w.Fail per failed target and no tree is returned.
func Walk[R any](ctx context.Context, w *Walker, targets []string, status func(R) Status, build func(target string, r R) *projector.Tree) ([]*projector.Tree, error) {
	var answer struct {
		Results []R `json:"results"`
	}
	request := map[string]any{"targets": targets}
	for k, v := range w.Request {
		request[k] = v
	}
	if err := w.Call(ctx, "walk", request, &answer); err != nil {
		return nil, err
	}
	if len(answer.Results) != len(targets) {
		return nil, w.Fail("", "python_failed", fmt.Sprintf("walker answered %d results for %d targets", len(answer.Results), len(targets)))
	}
	var errs []error
	trees := make([]*projector.Tree, len(targets))
	for i, r := range answer.Results {
		if s := status(r); !s.OK {
			errs = append(errs, w.Fail(targets[i], s.Kind, s.Message))
			continue
		}
		trees[i] = build(targets[i], r)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return trees, nil
}
