//go:build unix

package dispatch_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/verbsurface/verbsurface/dispatch"
)

// A flow spec named by a caller is read once, checked, and replaced by a
// private snapshot: the CLI parses exactly what was checked.
func ExampleFileSnapshots() {
	dir, _ := os.MkdirTemp("", "filesnap-example-")
	defer os.RemoveAll(dir)
	spec := filepath.Join(dir, "flow.yaml")
	os.WriteFile(spec, []byte("steps: []\n"), 0o644)

	prepared, info, cleanup, err := dispatch.FileSnapshots{Param: "spec", Dir: dir}.Prepare(context.Background(), map[string]any{"spec": spec})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cleanup()
	snap := prepared["spec"].(string)
	// A dispatch.Runner hands the snapshot to the command itself; any
	// other reader finds its open file by the key (or its name, on a
	// platform without /dev/fd).
	var st os.FileInfo
	if f := dispatch.Snapshot(snap); f != nil {
		st, _ = f.Stat()
	} else {
		st, _ = os.Stat(snap)
	}
	fmt.Println(snap != spec, st.Mode().Perm(), info["spec_bytes"])

	_, _, _, err = dispatch.FileSnapshots{Param: "spec"}.Prepare(context.Background(), map[string]any{"spec": "/dev/zero"})
	fmt.Println(err)
	// Output:
	// true -rw------- 10
	// spec file "/dev/zero" is not a regular file (a device); nothing was read
}
