//go:build unix

package verbsurface

import (
	"io/fs"
	"syscall"
)

// linkCount is how many names (hard links) the file fi describes has; 0
// when the platform does not say.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}
