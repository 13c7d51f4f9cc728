//go:build unix

package dispatch

import "github.com/verbsurface/verbsurface/internal/tied"

// tiedAttr and startTied start every command in a process group of its
// own, killed with this process where the platform allows (package
// internal/tied).
var (
	tiedAttr  = tied.Attr
	startTied = tied.Start
)
