package projector

import (
	"slices"
	"testing"
)

func TestExcludeParams(t *testing.T) {
	str := func(name string, opts ...string) *Param {
		return &Param{Name: name, Options: opts, Kind: KindString, Arity: ArityOne}
	}
	orig := &Tree{Program: "x", Dialect: DialectArgparse, Commands: []*Command{
		{Path: []string{}, Params: []*Param{str("home", "--home", "-H")}},
		{Path: []string{"add"}, Runnable: true,
			Params:      []*Param{str("home", "--home"), str("text", "--text"), str("file", "--file")},
			Groups:      []Group{{Params: []string{"home", "text"}}, {Params: []string{"home"}}},
			AnyRequired: [][]string{{"home", "file"}}},
	}}
	got := ExcludeParams(orig, "-H", "home")
	add := got.Find("add")
	if slices.ContainsFunc(add.Params, func(p *Param) bool { return p.Name == "home" }) || len(add.Params) != 2 {
		t.Errorf("params %v", add.Params)
	}
	if !slices.Equal(add.Excluded, []string{"--home"}) || !slices.Equal(got.Find().Excluded, []string{"--home", "-H"}) {
		t.Errorf("excluded %q / %q", add.Excluded, got.Find().Excluded)
	}
	if len(add.Groups) != 1 || !slices.Equal(add.Groups[0].Params, []string{"text"}) {
		t.Errorf("groups %v", add.Groups)
	}
	if len(add.AnyRequired) != 1 || !slices.Equal(add.AnyRequired[0], []string{"file"}) {
		t.Errorf("any_required %v", add.AnyRequired)
	}
	if len(orig.Find("add").Params) != 3 || orig.Find("add").Excluded != nil {
		t.Error("the original tree was modified")
	}
	orig.Find("add").Params[0].Required = true
	if ExcludeParams(orig, "home").Find("add").Unrepresentable == nil {
		t.Error("excluding a required parameter left the command offerable")
	}
	if _, err := Project(add); err != nil {
		t.Errorf("the filtered command does not project: %v", err)
	}
}

// TestNamedByHelpWord holds that a positional answers to the word the
// program's --help shows for it, as an operator reads it there.
func TestNamedByHelpWord(t *testing.T) {
	files := &Param{Name: "files", Metavar: "FILE_OR_DIR", Kind: KindString, Arity: ArityZeroOrMore}
	src := &Param{Name: "src", Kind: KindString, Arity: ArityOne}
	opt := &Param{Name: "config_file", Options: []string{"-c", "--config-file"}, Metavar: "FILE", Kind: KindString, Arity: ArityOne}
	for _, c := range []struct {
		p    *Param
		name string
		want bool
	}{
		{files, "files", true},
		{files, "FILE_OR_DIR", true},
		{files, "FILES", true},
		{src, "SRC", true},
		{src, "Src", false},
		{opt, "config-file", true},
		{opt, "--config-file", true},
		{opt, "FILE", false}, // an option's metavar is shared by many options
	} {
		if got := c.p.Named(c.name); got != c.want {
			t.Errorf("%s.Named(%q) = %v, want %v", c.p.Name, c.name, got, c.want)
		}
	}
}
