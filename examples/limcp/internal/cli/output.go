//go:build unix

package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/run"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/termsafe"
)

// A container (a play, its session, a show) has no output of its own
// worth reading: its work is done by the invocations under it. `job output`
// of a container therefore shows its children's outputs, so that following
// the id a play submit returns leads to what the agents wrote.
const (
	// ChildOutputCap bounds each stream of each child shown inline (the
	// tail is kept).
	ChildOutputCap = 16 << 10
	// ChildrenInlineBudget bounds all children's streams together. Past it
	// no child is inlined: the answer lists every child with the call that
	// reads it, rather than a cut that hides some children.
	ChildrenInlineBudget = OutputCap
	// MaxChildrenListed bounds how many descendants are gathered at all.
	MaxChildrenListed = 256
)

// ChildOutput is one run under a container, in creation order. Stdout and
// Stderr are present when the children are inlined; otherwise ReadWith is
// the request that reads this child.
type ChildOutput struct {
	ID          string         `json:"id"`
	Kind        store.Kind     `json:"kind"`
	Label       string         `json:"label"`
	Status      store.Status   `json:"status"`
	Terminal    bool           `json:"terminal"`
	Stdout      *string        `json:"stdout,omitempty"`
	Stderr      *string        `json:"stderr,omitempty"`
	StdoutBytes int64          `json:"stdout_bytes"`
	StderrBytes int64          `json:"stderr_bytes"`
	Truncated   bool           `json:"truncated,omitempty"`
	ReadWith    map[string]any `json:"read_with,omitempty"`
}

// containerKinds are the kinds whose work is done by their children.
var containerKinds = map[store.Kind]bool{store.KindPlay: true, store.KindSession: true, store.KindShow: true}

// childOutputs gathers the invocations under r, depth first in creation
// order, and inlines their outputs when they fit the budget. more reports
// that there were more than MaxChildrenListed.
func childOutputs(ctx context.Context, st *store.Store, home string, r store.Record, tail int) (children []ChildOutput, inline, more bool, err error) {
	var walk func(id string) error
	walk = func(id string) error {
		kids, err := st.Children(ctx, id)
		if err != nil {
			return err
		}
		for _, k := range kids {
			if len(children) == MaxChildrenListed {
				more = true
				return nil
			}
			if containerKinds[k.Kind] {
				if err := walk(k.ID); err != nil {
					return err
				}
				continue
			}
			children = append(children, ChildOutput{ID: k.ID, Kind: k.Kind, Label: k.Label, Status: k.Status, Terminal: k.Terminal()})
		}
		return nil
	}
	if err := walk(r.ID); err != nil {
		return nil, false, false, err
	}
	type streams struct{ out, errs string }
	read := make([]streams, len(children))
	total := 0
	for i := range children {
		dir := run.Dir(home, children[i].ID)
		var cut1, cut2 bool
		read[i].out, children[i].StdoutBytes, cut1 = readBoundedTo(filepath.Join(dir, run.StdoutFile), tail, ChildOutputCap)
		read[i].errs, children[i].StderrBytes, cut2 = readBoundedTo(filepath.Join(dir, run.StderrFile), tail, ChildOutputCap)
		children[i].Truncated = cut1 || cut2
		total += len(read[i].out) + len(read[i].errs)
	}
	inline = !more && total <= ChildrenInlineBudget
	for i := range children {
		if inline {
			children[i].Stdout, children[i].Stderr = &read[i].out, &read[i].errs
			continue
		}
		children[i].Truncated = false
		children[i].ReadWith = map[string]any{"op": "job.output", "args": map[string]any{"id": children[i].ID}}
	}
	return children, inline, more, nil
}

// writeChildren is the human form of a container's children.
func writeChildren(w io.Writer, children []ChildOutput, inline bool) {
	for _, c := range children {
		fmt.Fprintf(w, "== %s %s (%s) %s\n", c.Kind, c.ID, termsafe.Line(c.Label), c.Status)
		switch {
		case !inline:
			fmt.Fprintf(w, "   limcp job output %s\n", c.ID)
		case c.Stdout != nil && *c.Stdout != "":
			io.WriteString(w, *c.Stdout)
			if (*c.Stdout)[len(*c.Stdout)-1] != '\n' {
				io.WriteString(w, "\n")
			}
		}
	}
}
