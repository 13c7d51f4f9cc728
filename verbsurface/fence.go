package verbsurface

import (
	"fmt"
	"strings"
)

// DefaultFence is the fenced command paths a registry uses when its options
// name none: state-store schema migration, trusting a plugin,
// trusting hooks. Each grants privilege that only a human at a terminal may
// grant, so no agent may reach them through the surface: not as a verb, not
// as a synonym, not through help.
//
// The boundary is the allowlist: only registered verbs run, and
// registration refuses a verb mapped onto a fenced path (or a path under
// one). The fence's look-alike matching of names (see foldName) does not
// keep anything out that the allowlist lets in; it decides which refusal an
// unregistered name gets.
var DefaultFence = [][]string{
	{"state", "migrate"},
	{"plugin", "trust"},
	{"hooks", "trust"},
}

// fence is a compiled list of fenced command paths.
type fence struct {
	paths  [][]string // folded tokens of each fenced path
	joined []string   // the same, concatenated without separators
	shown  []string   // the path as configured, space-joined, for messages
}

func newFence(paths [][]string) (*fence, error) {
	f := &fence{}
	for i, p := range paths {
		var toks []string
		for _, elem := range p {
			toks = append(toks, foldTokens(elem)...)
		}
		if len(toks) == 0 {
			return nil, fmt.Errorf("verbsurface: fence entry %d (%q) is empty after normalisation", i, p)
		}
		f.paths = append(f.paths, toks)
		f.joined = append(f.joined, strings.Join(toks, ""))
		f.shown = append(f.shown, strings.Join(p, " "))
	}
	return f, nil
}

// matchName reports whether name, however spelled, denotes a fenced command
// path, returning that path as configured. A name is fenced when its folded
// tokens begin with a fenced path's tokens ("state.migrate",
// "state migrate --force", "STATE/Migrate/now"), when its folded letters
// with every separator removed equal the fenced path's ("statemigrate",
// "stateMigrate"), or when they miss it by one edit or one transposition
// ("state.migrat", "stat.migrate", "state.mirgate"): a near miss of a
// fenced command is refused as fenced, not taught as an unknown verb whose
// closest match is the fenced one.
func (f *fence) matchName(name string) (string, bool) {
	toks := foldTokens(name)
	if p, ok := f.matchTokens(toks); ok {
		return p, true
	}
	joined := strings.Join(toks, "")
	for i, j := range f.joined {
		if len(joined) <= maxDistanceRunes && withinOneEdit(joined, j) {
			return f.shown[i], true
		}
	}
	return "", false
}

// matchPath is matchName for a command path given as elements.
func (f *fence) matchPath(path []string) (string, bool) {
	var toks []string
	for _, elem := range path {
		toks = append(toks, foldTokens(elem)...)
	}
	return f.matchTokens(toks)
}

func (f *fence) matchTokens(toks []string) (string, bool) {
	if f == nil || len(toks) == 0 {
		return "", false
	}
	joined := strings.Join(toks, "")
	for i, p := range f.paths {
		if joined == f.joined[i] || hasTokenPrefix(toks, p) {
			return f.shown[i], true
		}
	}
	return "", false
}

func hasTokenPrefix(toks, prefix []string) bool {
	if len(toks) < len(prefix) {
		return false
	}
	for i := range prefix {
		if toks[i] != prefix[i] {
			return false
		}
	}
	return true
}

// fencedMessage is the sentence an op or help naming a fenced command gets.
func fencedMessage(name, path string) string {
	return fmt.Sprintf("%s names the fenced command %q, which grants privilege and is a human-at-a-terminal operation: "+
		"it is not reachable through this surface; ask the operator to run it themselves", short(name), path)
}
