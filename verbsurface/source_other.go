//go:build !unix

package verbsurface

import "os"

// fileInode is 0 where there are no Unix inodes: size and modification
// time alone key the file.
func fileInode(os.FileInfo) uint64 { return 0 }
