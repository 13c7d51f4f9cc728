package e2e

import "golang.org/x/sys/unix"

// environ returns pid's arguments and environment as NUL-separated strings:
// sysctl kern.procargs2 (argc, the executable path, argv, then the
// environment), which macOS answers for the caller's own processes. Tagged
// matches a whole NAME=VALUE string, so the arguments in front do no harm.
func environ(pid int) ([]byte, error) {
	return unix.SysctlRaw("kern.procargs2", pid)
}

// cmdline is environ: kern.procargs2 holds the arguments too.
func cmdline(pid int) ([]byte, error) { return environ(pid) }

// holdsPath is not read on macOS: Tagged finds its processes by their
// arguments and environment alone.
func holdsPath(int, string) bool { return false }
