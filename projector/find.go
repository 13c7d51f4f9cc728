package projector

import (
	"runtime"
	"strconv"
	"strings"
	"sync"
	"weak"
)

// Find returns the command at path (matching aliases of each element), or
// nil. Find() with no elements returns the root command. Each element is
// resolved under the command the previous elements resolved to, so an alias
// is honoured only where the parser would honour it. Where two commands
// answer to the same word under one parent (a name that is also a
// sibling's alias), the one listed first wins, as a parser checking its
// subcommands in order would.
//
// Find is indexed: the first Find on a tree indexes its commands in one
// pass, and every later one costs a map lookup per path element, so a
// caller looking up every verb of a large CLI pays once for the tree, not
// once per verb (the catalog of a 5,000-command CLI did 5,000 scans of
// 5,000 commands). Find is safe for concurrent use. The index follows the
// Commands slice: assigning a new slice or appending to it re-indexes on
// the next Find. Changing a command's Path or Aliases in place, or
// replacing an element of the slice, once Find has been called, is not
// seen; build a new tree for a changed parser (a copy whose Commands is a
// new slice, as a live source makes, is a new tree).
func (t *Tree) Find(path ...string) *Command {
	if t == nil {
		return nil
	}
	idx := t.index()
	cur, at := idx.root, "" // the command resolved so far and its path's key
	for _, elem := range path {
		next, ok := idx.children[childKey{at, elem}]
		if !ok {
			return nil
		}
		cur, at = next.cmd, next.key
	}
	return cur
}

// treeIndex is what Find looks words up in.
type treeIndex struct {
	commands []*Command // the slice indexed: a tree whose slice differs is re-indexed
	root     *Command   // the first command with an empty path
	// children maps a path and a word (a name or an alias) to the first
	// command, in order, one level below that path answering to it: what
	// a scan of the commands for each element finds. Keys are paths, not
	// parent commands, because that is what the scan compares (a command
	// listed twice resolves to the first, and the children of both are
	// under its path).
	children map[childKey]child
	// kids lists, for a path's key, the commands one level below it, in
	// order (Tree.children).
	kids map[string][]*Command
}

type childKey struct {
	parent string // pathKey of the parent's path
	word   string
}

type child struct {
	cmd *Command
	key string // pathKey(cmd.Path)
}

// pathKey encodes a path so that two paths have the same key exactly when
// they are element by element equal (each element is length-prefixed, so
// no element's content can be mistaken for a separator).
func pathKey(path []string) string {
	var b strings.Builder
	for _, e := range path {
		b.WriteString(strconv.Itoa(len(e)))
		b.WriteByte(':')
		b.WriteString(e)
	}
	return b.String()
}

func (x *treeIndex) current(cmds []*Command) bool {
	if len(cmds) != len(x.commands) {
		return false
	}
	return len(cmds) == 0 || &cmds[0] == &x.commands[0]
}

func buildIndex(cmds []*Command) *treeIndex {
	x := &treeIndex{commands: cmds, children: make(map[childKey]child, len(cmds)+len(cmds)/4), kids: map[string][]*Command{}}
	for _, c := range cmds {
		d := len(c.Path)
		if d == 0 {
			if x.root == nil {
				x.root = c
			}
			continue
		}
		parent, own := pathKey(c.Path[:d-1]), pathKey(c.Path)
		x.kids[parent] = append(x.kids[parent], c)
		for _, w := range append([]string{c.Path[d-1]}, c.Aliases...) {
			k := childKey{parent, w}
			if _, taken := x.children[k]; !taken {
				x.children[k] = child{c, own}
			}
		}
	}
	return x
}

// indexes holds each live tree's index, keyed weakly so that a tree that
// is no longer used takes its index with it (a cleanup removes the entry).
// The index lives beside the tree rather than in it because Tree is plain
// data: copied by value (a live source copies the tree to change a few
// commands), compared and encoded as JSON, none of which an embedded
// cache would survive.
var indexes sync.Map // weak.Pointer[Tree] -> *treeIndex

func (t *Tree) index() *treeIndex {
	key := weak.Make(t)
	if v, ok := indexes.Load(key); ok {
		if x := v.(*treeIndex); x.current(t.Commands) {
			return x
		}
	}
	x := buildIndex(t.Commands)
	if _, replaced := indexes.Swap(key, x); !replaced {
		runtime.AddCleanup(t, func(k weak.Pointer[Tree]) { indexes.Delete(k) }, key)
	}
	return x
}

// children returns the commands one level under c, in order, from the
// index: what a scan of every command for c's path and one more element
// finds.
func (t *Tree) children(c *Command) []*Command {
	return t.index().kids[pathKey(c.Path)]
}

// child returns the first command one level under c that answers to word
// (its name or an alias), or nil: what Find does for one element.
func (t *Tree) child(c *Command, word string) *Command {
	next, ok := t.index().children[childKey{pathKey(c.Path), word}]
	if !ok {
		return nil
	}
	return next.cmd
}
