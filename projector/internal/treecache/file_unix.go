//go:build unix

package treecache

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// fileIdentity is what changes when the file at path does: its device,
// inode, size, modification and change time.
func fileIdentity(path string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return "", err
	}
	return fmt.Sprintf("dev=%d ino=%d size=%d mtime=%d.%09d ctime=%d.%09d", uint64(st.Dev), uint64(st.Ino), st.Size,
		st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec), nil
}

// privateDir reports whether dir is a directory (not a link to one) owned
// by this user with no group or other bits.
func privateDir(dir string) bool {
	fi, err := os.Lstat(dir)
	return err == nil && fi.IsDir() && private(fi)
}

func private(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid() && fi.Mode().Perm()&0o077 == 0
}

// openPrivate opens path for reading if it is a regular file (not a link)
// owned by this user with no group or other bits.
func openPrivate(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || !private(fi) {
		f.Close()
		return nil, fmt.Errorf("%s is not a private regular file", path)
	}
	return f, nil
}
