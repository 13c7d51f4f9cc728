package cobracorpus

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// binDir is where the corpus programs are built once and kept between
// runs: $VERBSURFACE_CORPUS_BIN, else the user's cache directory. A
// program's file name carries its module version, so a version bump in
// go.mod builds it again and nothing else does.
func binDir(t *testing.T) string {
	if d := os.Getenv("VERBSURFACE_CORPUS_BIN"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "verbsurface", "cobra-corpus")
}

var (
	buildMu sync.Mutex
	built   = map[string]string{}
)

// binary returns the path of c's program, built from the very module
// version its in-process root comes from (this module's go.mod): `go
// build -o FILE MAIN` in this directory, once.
func binary(t *testing.T, c cli) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := built[c.name]; ok {
		return p
	}
	version := moduleVersion(t, c.main)
	dir := binDir(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%s@%s", c.name, version))
	if _, err := os.Stat(path); err != nil {
		tmp := fmt.Sprintf("%s.tmp%d", path, os.Getpid())
		cmd := exec.Command("go", "build", "-o", tmp, c.main)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building %s (%s): %v\n%s", c.name, c.main, err, out)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	built[c.name] = path
	return path
}

// moduleVersion is the version of the module providing pkg in this
// module's build list (go list; a test binary carries no build
// information of its dependencies).
func moduleVersion(t *testing.T, pkg string) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.Module.Version}}", pkg).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pkg, err)
	}
	v := strings.TrimSpace(string(out))
	if v == "" {
		t.Fatalf("go list %s: no module version", pkg)
	}
	return v
}
