package e2e

import (
	"os"
	"strconv"
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
