//go:build unix && !linux && !darwin && !freebsd

package procid

import (
	"fmt"
	"runtime"
)

// system, on a Unix this package has no process table for (OpenBSD,
// NetBSD, illumos, AIX), answers every question with an error: Check then
// says Unknown, which no caller treats as Gone, so nothing is ever reaped or
// signalled on a guess.
var system processTable = noTable{}

type noTable struct{}

func (noTable) stat(pid int) (Stat, error) {
	return Stat{}, fmt.Errorf("procid: pid %d: reading processes is not implemented on %s", pid, runtime.GOOS)
}

func (noTable) each(func(Stat)) error {
	return fmt.Errorf("procid: listing processes is not implemented on %s", runtime.GOOS)
}
