package fromcobra

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/verbsurface/verbsurface/projector"
)

// TestWalkPatterns pins the cobra patterns of issue 17 on the fixture:
// every pflag.Value is a string (an enum where it offers choices), a
// stringToString map is an array of key=value, a flag with a no-value
// default may be given bare, and the Args validator settles the Use line.
func TestWalkPatterns(t *testing.T) {
	tree := fixtureTree(t)
	for _, tt := range []struct{ path, param, typ string }{
		{"ipnet", "net", "ipNet"}, {"bslice", "bits", "boolSlice"}, {"custom", "level", "level"},
	} {
		p := param(t, mustFind(t, tree, tt.path), tt.param)
		if p.Unrepresentable != nil || p.Kind != projector.KindString || p.Arity != projector.ArityOne || p.Type != tt.typ {
			t.Errorf("%s --%s: %+v", tt.path, tt.param, p)
		}
	}
	if p := param(t, mustFind(t, tree, "custom"), "level"); !cmp.Equal(p.Choices, []any{"low", "high"}) {
		t.Errorf("a custom Value's choices (Chooser): %v", p.Choices)
	}
	labels := mustFind(t, tree, "labels")
	if p := param(t, labels, "label"); p.Arity != projector.ArityRepeated || p.Pattern != StringToStringPattern || p.MinItems != 0 {
		t.Errorf("label %+v", p)
	}
	if p := param(t, labels, "env"); p.MinItems != 1 || !cmp.Equal(p.Default, []string{"A=1"}) {
		t.Errorf("env %+v", p)
	}
	if p := param(t, labels, "color"); !p.Bare || p.Const != "auto" {
		t.Errorf("color %+v", p)
	}
	// --tag and --rebased are bound to one variable: never both.
	if !cmp.Equal(labels.Groups, []projector.Group{{Params: []string{"rebased", "tag"}}}) {
		t.Errorf("groups %+v", labels.Groups)
	}
	s, err := projector.Project(labels)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(s.DependentRequired, map[string][]string{"dest": {"src"}}) {
		t.Errorf("dependentRequired %v", s.DependentRequired)
	}
	argv, err := projector.RenderArgv(projector.DialectPflag, labels, map[string]any{"color": true, "label": []any{"a=1", "b=x,y"}, "src": "s"})
	if err != nil || strings.Join(argv, " ") != "--color --label=a=1 --label=b=x,y -- s" {
		t.Errorf("argv %q, %v", argv, err)
	}
	if _, err := projector.RenderArgv(projector.DialectPflag, labels, map[string]any{"label": []any{"a=b=c"}}); err == nil {
		t.Error("a pair with two '=' rendered (pflag would read it as CSV)")
	}
	// The validator settles the Use line; names are sanitized; a
	// positional yields its name to a flag.
	for _, tt := range []struct{ path, want string }{
		{"mismatch", ""},                               // Use NAME, cobra.NoArgs
		{"alternatives", "start_or_stop:true"},         // {start|stop}
		{"twoopt", "a:false b:false"},                  // [A] [B]
		{"fetch", "file_or_url:true name_or_id:false"}, // <file|url> [name | id]
		{"login", "host:true"},                         // [HOST] with ExactArgs(1)
		{"clash", "model_arg:true"},                    // MODEL and --model
	} {
		cmd := mustFind(t, tree, tt.path)
		if _, err := projector.Project(cmd); err != nil {
			t.Errorf("%s: %v", tt.path, err)
			continue
		}
		var got []string
		for _, p := range cmd.Params {
			if p.Positional() {
				got = append(got, p.Name+":"+map[bool]string{true: "true", false: "false"}[p.Required])
			}
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("%s: positionals %q, want %q", tt.path, strings.Join(got, " "), tt.want)
		}
	}
}
