// Package ctxenv carries, in a context, environment entries one command
// adds to its runner's own: the seam through which verbsurface hands a
// caller's declared identity to package dispatch, which knows nothing of
// callers. Entries are "NAME=value"; a later entry of a name wins, as for
// os/exec.
package ctxenv

import (
	"context"
	"slices"
)

type key struct{}

// With returns ctx carrying env after whatever ctx already carries.
func With(ctx context.Context, env []string) context.Context {
	if len(env) == 0 {
		return ctx
	}
	return context.WithValue(ctx, key{}, append(slices.Clip(From(ctx)), env...))
}

// From returns the entries ctx carries (nil when none).
func From(ctx context.Context) []string {
	env, _ := ctx.Value(key{}).([]string)
	return env
}
