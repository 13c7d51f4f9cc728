package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of stopping the
// test, so the helper's own failures can be asserted.
type recorder struct {
	testing.TB
	failed bool
	msg    string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.msg = format
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = true
	r.msg = format
	panic(r)
}

func run(tb testing.TB, f func(tb testing.TB)) (r *recorder) {
	r = &recorder{TB: tb}
	defer func() {
		if p := recover(); p != nil && p != any(r) {
			panic(p)
		}
	}()
	f(r)
	return r
}

func TestJSONComparesWithTheGoldenFile(t *testing.T) {
	if Updating() {
		t.Skip("comparison behaviour is not checked while rewriting")
	}
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "v.golden.json"), []byte("{\n  \"a\": 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, func(tb testing.TB) { JSON(tb, "v", map[string]int{"a": 1}) }); r.failed {
		t.Errorf("an equal value failed: %s", r.msg)
	}
	if r := run(t, func(tb testing.TB) { JSON(tb, "v", map[string]int{"a": 2}) }); !r.failed {
		t.Error("a different value passed")
	}
	if r := run(t, func(tb testing.TB) { JSON(tb, "missing", 1) }); !r.failed {
		t.Error("a missing golden file passed")
	}
}

func TestUpdateRewrites(t *testing.T) {
	t.Chdir(t.TempDir())
	old := *update
	*update = true
	defer func() { *update = old }()
	JSON(t, "new", []string{"x"})
	got, err := os.ReadFile(Path("new"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "[\n  \"x\"\n]\n"; string(got) != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}
