package fromclick

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/verbsurface/verbsurface/projector/internal/pywalk"
)

// candidatePythons are the interpreters the tests try, in order: Debian's
// (where .ci/run installs click, Typer and the corpus programs with apt),
// then python3 from PATH when that is another interpreter.
func candidatePythons() []string {
	out := []string{}
	if p := os.Getenv("VERBSURFACE_CLICK_PYTHON"); p != "" {
		return []string{p}
	}
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		out = append(out, "/usr/bin/python3")
	}
	if p, err := exec.LookPath("python3"); err == nil {
		if r, _ := filepath.EvalSymlinks(p); r != "" && !strings.HasPrefix(r, "/usr/bin/python3") {
			out = append(out, p)
		}
	}
	return out
}

// required reports whether a missing Python module fails the tests instead
// of skipping them: under CI (.ci/run installs everything) it must not be
// missing.
func required() bool {
	return os.Getenv("CI") == "true" || os.Getenv("VERBSURFACE_REQUIRE_CLICK") == "1"
}

var (
	probeMu sync.Mutex
	probes  = map[string]bool{}
)

// canImport reports whether python imports every module.
func canImport(python string, modules ...string) bool {
	key := python + " " + strings.Join(modules, ",")
	probeMu.Lock()
	defer probeMu.Unlock()
	if ok, done := probes[key]; done {
		return ok
	}
	cmd := exec.Command(python, "-c", "import "+strings.Join(modules, ", "))
	cmd.Env = pywalk.Env(nil)
	ok := cmd.Run() == nil
	probes[key] = ok
	return ok
}

// pythonsWith returns every candidate interpreter that imports modules; with
// none, the test skips saying why (or fails under CI).
func pythonsWith(t testing.TB, modules ...string) []string {
	t.Helper()
	var out []string
	for _, p := range candidatePythons() {
		if canImport(p, modules...) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		msg := "no Python interpreter here imports " + strings.Join(modules, ", ") + " (tried " + strings.Join(candidatePythons(), ", ") + "); .ci/run installs them with apt"
		if required() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return out
}

// pythonWith is the first interpreter that imports modules.
func pythonWith(t testing.TB, modules ...string) string {
	t.Helper()
	return pythonsWith(t, modules...)[0]
}

func fixtureOptions(t testing.TB, python string) *Options {
	dir, err := filepath.Abs(filepath.Join("testdata", "pyfixture"))
	if err != nil {
		t.Fatal(err)
	}
	return &Options{Python: python, PythonPath: []string{dir}, Dir: "/"}
}
