package e2e

import (
	"os"
	"strconv"
)

// environ returns pid's environment as NUL-separated NAME=VALUE strings.
func environ(pid int) ([]byte, error) {
	return os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
}
