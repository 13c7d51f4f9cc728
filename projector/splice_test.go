package projector

import (
	"slices"
	"testing"
)

// Spliced puts the commands read in place of the one listed, shares the
// rest, and leaves the tree it was given as it was.
func TestSpliced(t *testing.T) {
	root := &Command{Path: []string{}}
	a := &Command{Path: []string{"a"}, Unread: true}
	b := &Command{Path: []string{"b"}, Unread: true}
	old := &Tree{Program: "p", Dialect: DialectPflag, Commands: []*Command{root, a, b}}
	readA := &Command{Path: []string{"a"}, Params: []*Param{{Name: "x"}}}
	readAB := &Command{Path: []string{"a", "b"}}
	got := Spliced(old, []string{"a"}, []*Command{readA, readAB})
	if want := []*Command{root, readA, readAB, b}; !slices.Equal(got.Commands, want) {
		t.Errorf("Spliced: %v; want %v", got.Commands, want)
	}
	if !slices.Equal(old.Commands, []*Command{root, a, b}) || old.Find("a") != a {
		t.Error("Spliced changed the tree it was given")
	}
	if got.Find("a") != readA || got.Find("a", "b") != readAB {
		t.Error("the spliced tree does not find the commands read")
	}
	if u := got.Unread(); len(u) != 1 || !slices.Equal(u[0], []string{"b"}) {
		t.Errorf("Unread = %v; want [[b]]", u)
	}
	if gone := Spliced(got, []string{"b"}, nil); len(gone.Commands) != 3 || gone.Find("b") != nil {
		t.Errorf("Spliced with no commands kept it: %v", gone.Commands)
	}
	if same := Spliced(got, []string{"zzz"}, nil); same != got {
		t.Error("a path the tree does not have: want the tree itself")
	}
}
