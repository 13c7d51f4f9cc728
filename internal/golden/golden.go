// Package golden is the module's one golden-file helper for tests: a value
// is rendered as indented JSON and compared with testdata/NAME.golden.json
// in the test's package directory; `go test -update` rewrites the files
// instead of comparing them.
//
// Every package of the module pins its goldens through it, so there is one
// naming scheme (NAME.golden.json beside the test, under testdata/) and one
// flag, -update, whose meaning does not depend on the package. A golden
// file changes only through that flag.
package golden

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ instead of comparing with them")

// Updating reports whether the test binary runs with -update: the goldens
// are being rewritten. A test that writes a golden another way (a report
// it assembles itself) asks it before writing.
func Updating() bool { return *update }

// Path is the file a golden named name lives in: testdata/NAME.golden.json.
func Path(name string) string {
	return filepath.Join("testdata", name+".golden.json")
}

// JSON compares v, rendered as two-space indented JSON with a final
// newline, with the golden file of name, or rewrites that file under
// -update. A missing file fails the test, saying how to create it.
func JSON(t testing.TB, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatalf("golden %s: rendering the value as JSON: %v", name, err)
	}
	Bytes(t, name, append(got, '\n'))
}

// Bytes compares got byte for byte with the golden file of name, or
// rewrites that file under -update.
func Bytes(t testing.TB, name string, got []byte) {
	t.Helper()
	path := Path(name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("golden %s: %v", name, err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run the test with -update to create it)", name, err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got); if the change is intended, rerun with -update:\n%s", path, diff)
	}
}
