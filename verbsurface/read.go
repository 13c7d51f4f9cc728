package verbsurface

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
)

// pendingSignature stands in a catalog line for the parameters of a verb
// whose command is listed but not read yet: "pkg.install(…) — install a
// package".
const pendingSignature = "(…)"

// pendingNext is added, once, to the next of a listing or a search that
// shows a pending verb's line.
const pendingNext = `; "(…)": parameters not read yet, {"help":"VERB"} reads them`

// readForRequest calls Options.Read with the command paths env's request
// will project fully, before the request takes its tree, and keeps Read's
// error for the request's pending verbs. It does nothing without Read or
// when the request names no verb.
func (s *Surface) readForRequest(ctx context.Context, rs *requestState, env *envelope) {
	if s.opts.Read == nil {
		return
	}
	if paths := s.readPaths(env); len(paths) > 0 {
		rs.readErr = s.opts.Read(ctx, paths)
	}
}

// readPaths are the command paths of the verbs env's request projects
// fully, in registration order without duplicates: each op's verb (and
// the commands a stored command op may store), and the verb a help names.
// A name that resolves to no verb adds nothing: its op fails before any
// projection.
func (s *Surface) readPaths(env *envelope) [][]string {
	want := map[*Verb]bool{}
	for _, op := range env.ops {
		if v := s.verbNamed(op.Op); v != nil {
			want[v] = true
		}
	}
	if h := env.help; h != nil && !h.all && !h.listing && !h.searching && len(h.bad) == 0 {
		if v := s.verbNamed(h.verb); v != nil {
			want[v] = true
		}
	}
	if len(want) == 0 {
		return nil
	}
	var paths [][]string
	add := func(p []string) {
		if !slices.ContainsFunc(paths, func(q []string) bool { return slices.Equal(p, q) }) {
			paths = append(paths, p)
		}
	}
	var stored [][]string
	for _, v := range s.reg.snapshot() {
		if !want[v] {
			continue
		}
		add(v.Path)
		if v.StoredCommand != nil {
			stored = append(stored, v.StoredCommand.Allow...)
		}
	}
	// The guard of a stored command parses it with the parameters of the
	// commands it may run.
	for _, p := range stored {
		add(p)
	}
	return paths
}

// verbNamed is the verb name resolves to (a verb's name, or a v1 synonym
// before the sunset), or nil: resolve without the error it explains.
func (s *Surface) verbNamed(name string) *Verb {
	if v := s.reg.lookup(name); v != nil {
		return v
	}
	if v := s.reg.synonym(name); v != nil && !s.synonymsRetired() {
		return v
	}
	return nil
}

// pendingProjection is the projection of v while its command cmd is
// listed but not read: never ok (it has no parameters to offer, and
// projecting it would offer a verb without any), unavailable to an op or
// a help with the reason, and listed by the catalog as "VERB(…)".
func (s *Surface) pendingProjection(rs *requestState, v *Verb, cmd *projector.Command) *projection {
	reason := fmt.Sprintf("the parameters of %q could not be read yet", strings.Join(cmd.Path, " "))
	switch {
	case rs.readErr != nil:
		reason += ": " + rs.readErr.Error()
	case s.opts.Read == nil:
		reason += " (the surface has no reader: Options.Read)"
	default:
		reason += fmt.Sprintf("; {\"help\": %q} tries again", v.Name)
	}
	return &projection{verb: v.Name, unread: cmd, signature: pendingSignature,
		unavailable: &unavailableReason{Reason: reason}}
}
