//go:build unix

package verbsurface_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// lintTree is a linter's one command: it reads the files and directories
// it is given.
func lintTree() *projector.Tree {
	return &projector.Tree{Program: "lint", Dialect: projector.DialectPflag, Commands: []*projector.Command{
		{Path: []string{}, Runnable: true, Params: []*projector.Param{{Name: "files", Kind: projector.KindString,
			Arity: projector.ArityZeroOrMore, Action: "positional", Type: "string", Path: projector.PathUseReadOrDir}}},
	}}
}

// A verb that takes a directory hands the program everything under it,
// links included, wherever they lead. RootLinks finds the symbolic links
// under the roots that leave them, so a front can warn its operator.
func ExampleSurface_RootLinks() {
	base, _ := os.MkdirTemp("", "rootlinks-example-")
	defer os.RemoveAll(base)
	base, _ = filepath.EvalSymlinks(base)
	root := filepath.Join(base, "root")
	os.MkdirAll(filepath.Join(root, "proj"), 0o755)
	os.MkdirAll(filepath.Join(base, "outside"), 0o755)
	os.Symlink("../../outside/secret.txt", filepath.Join(root, "proj", "notes.txt"))
	os.Symlink("notes.txt", filepath.Join(root, "proj", "inside"))

	reg, _ := verbsurface.NewRegistry(nil)
	reg.Register(verbsurface.Verb{Name: "lint", Class: verbsurface.ClassObserve, Path: []string{}, Summary: "lint files",
		Handler: func(context.Context, *verbsurface.Call) (any, error) { return nil, nil }})
	s, _ := verbsurface.New(reg, &verbsurface.Options{Source: verbsurface.StaticTree(lintTree()), Roots: []string{root}})

	scan := s.RootLinks(context.Background())
	fmt.Println("verbs taking a directory:", scan.Verbs)
	for _, l := range scan.Links {
		fmt.Printf("%s -> %s\n", strings.TrimPrefix(l.Path, base), strings.TrimPrefix(l.Target, base))
	}
	// Output:
	// verbs taking a directory: [lint]
	// /root/proj/notes.txt -> /outside/secret.txt
}

// A root may not reach what the server keeps private, such as its state
// home: New names both.
func ExampleOptions_private() {
	base, _ := os.MkdirTemp("", "private-example-")
	defer os.RemoveAll(base)
	base, _ = filepath.EvalSymlinks(base)

	reg, _ := verbsurface.NewRegistry(nil)
	_, err := verbsurface.New(reg, &verbsurface.Options{Source: verbsurface.StaticTree(lintTree()),
		Roots: []string{base}, Private: []string{filepath.Join(base, "state")}})
	var in *verbsurface.PrivateInRootError
	if errors.As(err, &in) {
		fmt.Printf("the root BASE holds BASE%s\n", strings.TrimPrefix(in.Private, in.Root))
	}
	// Output:
	// the root BASE holds BASE/state
}
