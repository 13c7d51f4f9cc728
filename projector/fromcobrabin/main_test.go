package fromcobrabin_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// fixtureBin is the fixture CLI (internal/fixture) built as a program,
// once per test binary: the installed cobra binary the tests read.
var fixtureBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fromcobrabin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fixtureBin = filepath.Join(dir, "fixture")
	build := exec.Command("go", "build", "-o", fixtureBin, "./internal/fixture/cmd/fixture")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the fixture:", err)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
