package fromoptparse

import (
	"os"
	"os/exec"
	"testing"

	"github.com/verbsurface/verbsurface/projector/internal/pywalk"
)

// python is the interpreter the tests use: Debian's (where .ci/run
// installs python3-pip) when present, else python3 from PATH (optparse is
// in every Python's standard library).
func python(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("VERBSURFACE_OPTPARSE_PYTHON"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		return "/usr/bin/python3"
	}
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	return p
}

// pythonWithPip is python when it imports Debian's pip; without it the
// test skips with a reason, and fails under CI (.ci/run installs
// python3-pip).
func pythonWithPip(t testing.TB) string {
	t.Helper()
	py := python(t)
	cmd := exec.Command(py, "-c", "import pip._internal.commands")
	cmd.Env = pywalk.Env(nil)
	if cmd.Run() != nil {
		if os.Getenv("CI") == "true" || os.Getenv("VERBSURFACE_REQUIRE_PROGRAMS") == "1" {
			t.Fatalf("%s does not import pip: .ci/run installs python3-pip", py)
		}
		t.Skipf("%s does not import pip (apt-get install python3-pip)", py)
	}
	return py
}

// fixtureOptions walks the fixtures of testdata/py.
func fixtureOptions(t testing.TB) *Options {
	return &Options{Python: python(t), PythonPath: []string{"testdata/py"}}
}

// pipOptions walks Debian's pip as examples/fronts/pip.yaml does.
func pipOptions(t testing.TB) *Options {
	return &Options{Python: pythonWithPip(t), Command: "pip._internal.commands:create_command", StringTypes: []string{"path"}}
}

const pipTarget = "pip._internal.commands:commands_dict"
