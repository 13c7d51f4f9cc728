//go:build unix

package server

import (
	"strings"
	"sync"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/provider"
	"github.com/verbsurface/verbsurface/projector"
)

// liveModels keeps the description of every model parameter current: the
// presets and providers usable on this machine now (provider.ModelHelp),
// judged with the PATH and home the CLI commands the server runs get. The
// tree walked at start is never changed; a request gets a copy whose
// model parameters carry the description, rebuilt only when the
// description changes. A model parameter is one whose pattern is
// provider.ModelPattern (agent's MODEL, fanout's MODEL and
// --with-synthesis): the pattern is how the CLI marks them.
//
// The answer is kept for liveModelsTTL: looking the programs up costs a
// stat per PATH directory per program and providers.yaml a parse, which
// would otherwise be paid by every request (BenchmarkLiveModels). A
// program installed while the server runs is offered within that time.
//
// The description is part of the schema, so agent.submit's fingerprint
// follows it: installing claude (or editing providers.yaml) while the
// server runs makes an old fingerprint stale, and the stale_fingerprint
// error carries the new schema and fingerprint.
type liveModels struct {
	home string
	look provider.LookPath

	mu   sync.Mutex
	at   time.Time // when help was worked out
	help string
	tree *projector.Tree
}

// liveModelsTTL is how long a worked-out model description is reused.
const liveModelsTTL = time.Second

func newLiveModels(home string, env []string) *liveModels {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	return &liveModels{home: home, look: provider.LookPathIn(path)}
}

// treeOf returns base with the model parameters' description as it stands
// now. A providers.yaml that does not load is described as if empty: the
// CLI reports it at submit.
func (l *liveModels) treeOf(base *projector.Tree) *projector.Tree {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tree != nil && time.Since(l.at) < liveModelsTTL {
		return l.tree
	}
	cfg, _ := provider.LoadConfig(l.home)
	help := provider.ModelHelp(provider.Availabilities(cfg, l.look))
	if l.tree == nil || l.help != help {
		l.tree, l.help = withModelHelp(base, help), help
	}
	l.at = time.Now()
	return l.tree
}

// withModelHelp returns a copy of t in which each model parameter's help
// is help (a positional, whose help is only its Use-line word) or its own
// help followed by help (a flag). Commands without one are shared.
func withModelHelp(t *projector.Tree, help string) *projector.Tree {
	out := *t
	out.Commands = make([]*projector.Command, len(t.Commands))
	for i, c := range t.Commands {
		out.Commands[i] = c
		var cc *projector.Command
		for j, p := range c.Params {
			if p.Pattern != provider.ModelPattern {
				continue
			}
			if cc == nil {
				copied := *c
				copied.Params = append([]*projector.Param(nil), c.Params...)
				cc = &copied
				out.Commands[i] = cc
			}
			np := *p
			if len(p.Options) == 0 {
				np.Help = "the model: " + help
			} else {
				np.Help = strings.TrimSuffix(p.Help, ".") + ". Models: " + help
			}
			cc.Params[j] = &np
		}
	}
	return &out
}
