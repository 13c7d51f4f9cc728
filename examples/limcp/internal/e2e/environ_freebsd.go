package e2e

import "golang.org/x/sys/unix"

// environ returns pid's environment as NUL-separated NAME=VALUE strings:
// sysctl kern.proc.env.PID (refused for limcp's processes, which disable
// tracing: package nodump).
func environ(pid int) ([]byte, error) {
	return unix.SysctlRaw("kern.proc.env", pid)
}

// cmdline returns pid's arguments as NUL-separated strings: sysctl
// kern.proc.args.PID, which tracing control does not refuse.
func cmdline(pid int) ([]byte, error) {
	return unix.SysctlRaw("kern.proc.args", pid)
}

// holdsPath is not read on FreeBSD: Tagged finds its processes by their
// arguments and environment alone.
func holdsPath(int, string) bool { return false }
