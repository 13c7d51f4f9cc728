//go:build !linux

package verbsurface

import "os"

// openedPath has no kernel source here: confinePath falls back on the path
// os.Root resolved inside the root.
func openedPath(*os.File) (string, bool) { return "", false }

// onPseudoFS: /proc and /sys are refused by path on these platforms.
func onPseudoFS(*os.File) bool { return false }
