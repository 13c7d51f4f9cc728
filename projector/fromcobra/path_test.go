package fromcobra

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/verbsurface/verbsurface/projector"
)

// TestAnnotationPathMarksPathParams: the "verbsurface:path" annotation is
// the one way a cobra flag becomes a path parameter, and a value the
// walker does not know still marks it (as read), never unmarks it.
func TestAnnotationPathMarksPathParams(t *testing.T) {
	root := &cobra.Command{Use: "t"}
	sub := &cobra.Command{Use: "run", Run: func(*cobra.Command, []string) {}}
	for _, name := range []string{"spec", "cwd", "out", "odd", "plain"} {
		sub.Flags().String(name, "", name)
	}
	for name, use := range map[string]string{"spec": "read", "cwd": "dir", "out": "write", "odd": "directory"} {
		if err := sub.Flags().SetAnnotation(name, AnnotationPath, []string{use}); err != nil {
			t.Fatal(err)
		}
	}
	root.AddCommand(sub)
	tree, err := Walk(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]projector.PathUse{"spec": projector.PathUseRead, "cwd": projector.PathUseDir, "out": projector.PathUseWrite,
		"odd": projector.PathUseRead, "plain": projector.PathUseNone}
	for _, p := range mustFind(t, tree, "run").Params {
		if w, ok := want[p.Name]; ok && p.Path != w {
			t.Errorf("%s: Path %q, want %q", p.Name, p.Path, w)
		}
	}
}

// TestMetavarFromBackquotes: a value the author named in backquotes (as
// pflag's help shows it) is the parameter's metavar, and read_or_dir is a
// use an annotation may state; a usage without backquotes names nothing.
func TestMetavarFromBackquotes(t *testing.T) {
	root := &cobra.Command{Use: "t"}
	sub := &cobra.Command{Use: "run", Run: func(*cobra.Command, []string) {}}
	sub.Flags().StringP("output", "o", "table", "prints the output in the given `format`")
	sub.Flags().String("src", "", "lint this file or directory")
	if err := sub.Flags().SetAnnotation("src", AnnotationPath, []string{"read_or_dir"}); err != nil {
		t.Fatal(err)
	}
	root.AddCommand(sub)
	tree, err := Walk(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*projector.Param{}
	for _, p := range mustFind(t, tree, "run").Params {
		got[p.Name] = p
	}
	if got["output"].Metavar != "format" || got["src"].Metavar != "" || got["src"].Path != projector.PathUseReadOrDir {
		t.Errorf("output metavar %q; src metavar %q, path %q", got["output"].Metavar, got["src"].Metavar, got["src"].Path)
	}
	if projector.LooksLikePath(got["output"]) {
		t.Error("helm's --output `format` looks like a path")
	}
}
