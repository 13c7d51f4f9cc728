//go:build !unix

package verbsurface

import "io/fs"

// linkCount: os.Stat does not report a file's link count here, so hard
// links are not told apart (see "Files and roots" in the package
// documentation).
func linkCount(fs.FileInfo) uint64 { return 0 }
