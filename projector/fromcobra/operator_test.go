package fromcobra

import (
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/spf13/cobra"

	"github.com/verbsurface/verbsurface/projector"
)

// TestStatedPositionalsAndFixedValuesRoundTrip: a cobra command whose Args
// validator reads the values (a method word first) has positionals no
// reader can determine, so it is unavailable; the operator states them and
// fixes the method, and what a run renders is parsed back by cobra itself
// into exactly the fixed method, the caller's URL and items, and flags.
func TestStatedPositionalsAndFixedValuesRoundTrip(t *testing.T) {
	var got []string
	var verbose bool
	var header []string
	build := func() *cobra.Command {
		root := &cobra.Command{Use: "http", SilenceErrors: true, SilenceUsage: true}
		req := &cobra.Command{Use: "req METHOD URL [ITEM...]",
			Args: func(_ *cobra.Command, args []string) error {
				if len(args) < 2 || !slices.Contains([]string{"GET", "POST"}, args[0]) {
					return errors.New("want METHOD URL [ITEM...]")
				}
				return nil
			},
			Run: func(_ *cobra.Command, args []string) { got = args }}
		req.Flags().BoolVarP(&verbose, "verbose", "v", false, "")
		req.Flags().StringArrayVar(&header, "header", nil, "")
		root.AddCommand(req)
		root.SetOut(io.Discard)
		root.SetErr(io.Discard)
		return root
	}
	tree, err := Walk(build(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cmd := tree.Find("req")
	if u := cmd.Unrepresentable; u == nil || !u.ByPositionals {
		t.Fatalf("an Args validator that reads the method word: %+v, want unavailable by its positionals", u)
	}
	stated, err := projector.StatePositionals(cmd, []*projector.Param{
		{Name: "method", Arity: projector.ArityOne, Choices: []any{"GET", "POST"}},
		{Name: "url", Arity: projector.ArityOne},
		{Name: "items", Arity: projector.ArityZeroOrMore},
	})
	if err != nil {
		t.Fatal(err)
	}
	fixed, err := projector.FixParams(stated, map[string]any{"method": "POST", "-v": true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := projector.Project(fixed.Offered)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"url", "items", "header"}; !sameSet(s.PropertyOrder, want) {
		t.Errorf("schema properties %v, want %v", s.PropertyOrder, want)
	}
	for _, args := range []map[string]any{
		{"url": "https://example.org"},
		{"url": "-x", "items": []any{"a=b", "--verbose", "GET"}, "header": []any{"A: b", "--c"}},
	} {
		argv, err := fixed.RenderArgv(tree.Dialect, args)
		if err != nil {
			t.Fatal(err)
		}
		got, verbose, header = nil, false, nil
		root := build()
		root.SetArgs(append([]string{"req"}, argv...))
		if err := root.Execute(); err != nil {
			t.Fatalf("cobra rejected %q: %v", argv, err)
		}
		want := []string{"POST", args["url"].(string)}
		for _, it := range asStrings(args["items"]) {
			want = append(want, it)
		}
		if !slices.Equal(got, want) || !verbose || !slices.Equal(header, asStrings(args["header"])) {
			t.Errorf("%q: cobra parsed args %q verbose %v header %q; want %q true %q", argv, got, verbose, header, want, asStrings(args["header"]))
		}
	}
}

func asStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		out = append(out, x.(string))
	}
	return out
}

func sameSet(a, b []string) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(x string) bool { return !slices.Contains(b, x) })
}
