package verbsurface_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// A verb whose "spec" parameter names a file is confined to the operator's
// roots: a file inside is handed on by its real path (and readable through
// OpenConfined); anything outside is refused before anything runs.
func ExampleOptions_roots() {
	root, _ := os.MkdirTemp("", "roots-example-")
	defer os.RemoveAll(root)
	root, _ = filepath.EvalSymlinks(root)
	os.WriteFile(filepath.Join(root, "flow.yaml"), []byte("steps: []\n"), 0o644)

	tree := &projector.Tree{Program: "t", Dialect: projector.DialectPflag, Commands: []*projector.Command{
		{Path: []string{}, Params: []*projector.Param{}},
		{Path: []string{"check"}, Runnable: true, Params: []*projector.Param{{Name: "spec", Options: []string{"--spec"},
			Kind: projector.KindString, Arity: projector.ArityOne, Action: "pflag:string", Type: "string"}}},
	}}
	reg, _ := verbsurface.NewRegistry(nil)
	reg.Register(verbsurface.Verb{Name: "spec.check", Class: verbsurface.ClassObserve, Path: []string{"check"},
		Summary:    "check a spec",
		PathParams: map[string]projector.PathUse{"spec": projector.PathUseRead},
		Handler: func(ctx context.Context, call *verbsurface.Call) (any, error) {
			f, err := verbsurface.OpenConfined(ctx, "spec", call.Args["spec"].(string))
			if err != nil {
				return nil, err
			}
			st, _ := f.Stat()
			return map[string]any{"bytes": st.Size()}, nil
		}})
	s, _ := verbsurface.New(reg, &verbsurface.Options{Source: verbsurface.StaticTree(tree), Roots: []string{root}})

	for _, spec := range []string{filepath.Join(root, "flow.yaml"), "/etc/passwd"} {
		req, _ := json.Marshal(map[string]any{"ops": []any{map[string]any{"op": "spec.check", "args": map[string]any{"spec": spec}}}})
		r := s.Handle(context.Background(), req, nil).Results[0]
		if r.OK {
			fmt.Printf("%s: ok %s\n", filepath.Base(spec), r.Result)
		} else {
			fmt.Printf("%s: %s %s\n", filepath.Base(spec), r.Error.Code, r.Error.Problems[0].Rule)
		}
	}
	// Output:
	// flow.yaml: ok {"bytes":10}
	// passwd: invalid_args outside_roots
}
