package projector

// Find returns the command at path (matching aliases of each element), or
// nil. Find() with no elements returns the root command. Each element is
// resolved under the command the previous elements resolved to, so an alias
// is honoured only where the parser would honour it.
func (t *Tree) Find(path ...string) *Command {
	if t == nil {
		return nil
	}
	var cur *Command
	for _, c := range t.Commands {
		if len(c.Path) == 0 {
			cur = c
			break
		}
	}
	if len(path) == 0 {
		return cur
	}
	var canon []string // the canonical path resolved so far
	for depth, elem := range path {
		var next *Command
		for _, c := range t.Commands {
			if len(c.Path) != depth+1 || !samePrefix(c.Path, canon) {
				continue
			}
			if c.Path[depth] == elem || contains(c.Aliases, elem) {
				next = c
				break
			}
		}
		if next == nil {
			return nil
		}
		cur = next
		canon = next.Path
	}
	return cur
}

func samePrefix(path, prefix []string) bool {
	for i := range prefix {
		if path[i] != prefix[i] {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
