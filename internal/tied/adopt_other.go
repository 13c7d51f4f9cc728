//go:build unix && !linux

package tied

import (
	"errors"
	"runtime"
	"time"
)

// AdoptOrphans fails: only Linux lets a process adopt its orphaned
// descendants (PR_SET_CHILD_SUBREAPER); FreeBSD's procctl(PROC_REAP_ACQUIRE)
// is not used yet.
func AdoptOrphans() error {
	return errors.New("adopting orphaned descendants is not supported on " + runtime.GOOS)
}

// Adopting reports false: nothing is adopted here.
func Adopting() bool { return false }

// KillAdopted finds nothing where nothing is adopted.
func KillAdopted(string, time.Duration) (bool, []int) { return false, nil }
