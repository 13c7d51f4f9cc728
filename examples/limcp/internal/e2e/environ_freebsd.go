package e2e

import "golang.org/x/sys/unix"

// environ returns pid's environment as NUL-separated NAME=VALUE strings:
// sysctl kern.proc.env.PID.
func environ(pid int) ([]byte, error) {
	return unix.SysctlRaw("kern.proc.env", pid)
}
