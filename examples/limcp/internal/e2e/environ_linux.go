package e2e

import (
	"os"
	"strconv"
	"strings"
)

// environ returns pid's environment as NUL-separated NAME=VALUE strings.
// limcp's processes are undumpable (package nodump), so only root reads
// theirs.
func environ(pid int) ([]byte, error) {
	return os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
}

// cmdline returns pid's arguments as NUL-separated strings: readable for
// every process, undumpable ones included.
func cmdline(pid int) ([]byte, error) {
	return os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
}

// holdsPath reports whether pid works in dir or under it, or holds a file
// there open: a process of the test that neither its environment nor its
// arguments name (one caught between fork and exec, whose environment
// reads empty for that instant) still shows where it works.
func holdsPath(pid int, dir string) bool {
	proc := "/proc/" + strconv.Itoa(pid)
	under := func(p string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }
	if cwd, err := os.Readlink(proc + "/cwd"); err == nil && under(cwd) {
		return true
	}
	fds, err := os.ReadDir(proc + "/fd")
	if err != nil {
		return false
	}
	for _, fd := range fds {
		if target, err := os.Readlink(proc + "/fd/" + fd.Name()); err == nil && under(target) {
			return true
		}
	}
	return false
}
