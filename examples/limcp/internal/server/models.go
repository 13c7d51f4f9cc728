//go:build unix

package server

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/playbook"
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
	// books is the playbook parameter's live sentence: the playbooks in
	// the state home now, kept current like help.
	books string
	tree  *projector.Tree
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
	books := playbooksHelp(l.home)
	if l.tree == nil || l.help != help || l.books != books {
		l.tree, l.help, l.books = withPlaybooksHelp(withModelHelp(base, help), books), help, books
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

// MaxPlaybooksNamed is how many playbooks the playbook parameter's
// description names; past it, it counts the rest.
const MaxPlaybooksNamed = 20

// playbooksHelp is the sentence that tells a caller which playbooks exist
// now: their names (at most MaxPlaybooksNamed), and the verb that lists
// them all.
func playbooksHelp(home string) string {
	entries, _ := os.ReadDir(filepath.Join(home, playbook.Dir))
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), playbook.Suffix); ok && e.Type().IsRegular() {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	switch {
	case len(names) == 0:
		return "None is present now (the operator adds playbooks/NAME.playbook.yaml to the state home)."
	case len(names) > MaxPlaybooksNamed:
		return fmt.Sprintf("Present now: %s and %d more (state.list lists them).", strings.Join(names[:MaxPlaybooksNamed], ", "), len(names)-MaxPlaybooksNamed)
	}
	return "Present now: " + strings.Join(names, ", ") + " (state.list lists them)."
}

// withPlaybooksHelp returns a copy of t whose play command's playbook
// parameter ends with books. Other commands are shared.
func withPlaybooksHelp(t *projector.Tree, books string) *projector.Tree {
	out := *t
	out.Commands = append([]*projector.Command(nil), t.Commands...)
	for i, c := range out.Commands {
		if len(c.Path) != 1 || c.Path[0] != playbook.PlayCommand {
			continue
		}
		cc := *c
		cc.Params = append([]*projector.Param(nil), c.Params...)
		for j, p := range cc.Params {
			if p.Name == "playbook" && p.Positional() {
				np := *p
				np.Help = strings.TrimSuffix(p.Help, ".") + ". " + books
				cc.Params[j] = &np
			}
		}
		out.Commands[i] = &cc
	}
	return &out
}

// LiveTree returns base with the model and playbook parameters described
// as a server with this state home and command environment describes them
// now (liveModels): what `limcp __verbsurface-tree` prints, so that a front
// reading that tree projects the schemas and fingerprints `limcp mcp` does.
// base is not changed.
func LiveTree(base *projector.Tree, home string, env []string) *projector.Tree {
	return newLiveModels(home, env).treeOf(base)
}
