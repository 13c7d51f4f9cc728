//go:build unix

package verbsurface

import (
	"os"
	"syscall"
)

// fileInode is fi's inode number.
func fileInode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
