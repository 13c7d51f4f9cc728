package projector

import "slices"

// Spliced returns a copy of t in which the command at path (by name, as
// listed: the first command whose Path equals path) is replaced by cmds,
// in their order: a reader that reads a listed command on demand
// ([Command.Unread]) puts the command it read, and the commands below
// it, in its place. No cmds removes the command. Every other command is
// shared with t, which is left as it was (a tree handed out must not
// change); a path t does not have returns t.
func Spliced(t *Tree, path []string, cmds []*Command) *Tree {
	i := slices.IndexFunc(t.Commands, func(c *Command) bool { return slices.Equal(c.Path, path) })
	if i < 0 {
		return t
	}
	out := &Tree{Program: t.Program, Dialect: t.Dialect}
	out.Commands = make([]*Command, 0, len(t.Commands)-1+len(cmds))
	out.Commands = append(append(append(out.Commands, t.Commands[:i]...), cmds...), t.Commands[i+1:]...)
	return out
}

// Unread lists the paths of t's commands that are not read yet
// ([Command.Unread]), in the tree's order.
func (t *Tree) Unread() [][]string {
	var out [][]string
	for _, c := range t.Commands {
		if c.Unread {
			out = append(out, c.Path)
		}
	}
	return out
}
