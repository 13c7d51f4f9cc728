//go:build unix

package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// teach completes the reason a verb cannot be offered with what the
// operator can write about it, as check's path warning does: a parameter
// of a class the model cannot express is left out by name (for a click
// program, while walking: source.click.exclude; otherwise exclude:), and
// the reader's words for its own options (fromclick's Options.Callbacks)
// are the configuration's keys (source.click.callbacks).
func (f *front) teach(ctx context.Context, p verbsurface.Unoffered) string {
	reason := p.Reason
	click := f.cfg.Source.Click != nil
	if click {
		reason = strings.NewReplacer("Options.Callbacks", "source.click.callbacks",
			"Options.StringTypes", "source.click.string_types", "Options.Exclude", "source.click.exclude").Replace(reason)
	}
	if p.Param == "" || !strings.Contains(reason, fmt.Sprintf("parameter %q", p.Param)) {
		return reason
	}
	spelled := p.Param
	if t, err := f.raw(ctx); err == nil {
		for i := range f.cfg.Verbs {
			if f.cfg.Verbs[i].Name != p.Verb {
				continue
			}
			if c := t.Find(f.cfg.Verbs[i].Path...); c != nil {
				if i := slices.IndexFunc(c.Params, func(q *projector.Param) bool { return q.Name == p.Param }); i >= 0 && len(c.Params[i].Options) > 0 {
					spelled = c.Params[i].Options[len(c.Params[i].Options)-1]
				}
			}
		}
	}
	if click {
		return fmt.Sprintf("%s; to offer the verb without it, leave it out while walking: source.click.exclude: [%s]", reason, spelled)
	}
	return fmt.Sprintf("%s; to offer the verb without it, leave it out: exclude: [%s] (every command), or this verb's exclude: [%s]", reason, spelled, spelled)
}
