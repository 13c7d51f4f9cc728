package verbsurface

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// openedPath is the kernel's name for what f really is: the target of
// /proc/self/fd/N, which follows no name the caller gave.
func openedPath(f *os.File) (string, bool) {
	var p string
	var err error
	if cerr := withFd(f, func(fd int) { p, err = os.Readlink("/proc/self/fd/" + strconv.Itoa(fd)) }); cerr != nil {
		return "", false
	}
	if err != nil || len(p) == 0 || p[0] != '/' {
		return "", false
	}
	return p, true
}

// withFd runs do with f's descriptor without f.Fd(), which would switch a
// non-blocking descriptor (a FIFO opened O_NONBLOCK) to blocking mode.
func withFd(f *os.File, do func(fd int)) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	return rc.Control(func(fd uintptr) { do(int(fd)) })
}

// onPseudoFS reports whether f lives on procfs or sysfs, wherever they are
// mounted (a bind mount of /proc inside a root is still /proc).
func onPseudoFS(f *os.File) bool {
	var st unix.Statfs_t
	var err error
	if cerr := withFd(f, func(fd int) { err = unix.Fstatfs(fd, &st) }); cerr != nil || err != nil {
		return true // unknown: refuse rather than guess
	}
	return st.Type == unix.PROC_SUPER_MAGIC || st.Type == unix.SYSFS_MAGIC
}
