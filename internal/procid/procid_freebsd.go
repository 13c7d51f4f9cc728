package procid

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// system is FreeBSD's process table: sysctl kern.proc.
var system processTable = sysctlTable{}

// sysctlTable reads struct kinfo_proc through sysctl: kern.proc.pid.PID
// for one process (zombies included), kern.proc.proc for every process
// (one entry per process, not per thread). golang.org/x/sys/unix does not
// declare FreeBSD's struct, so decodeFreeBSDKinfo reads it from the bytes,
// checking its size first.
type sysctlTable struct{}

func (sysctlTable) stat(pid int) (Stat, error) {
	b, err := unix.SysctlRaw("kern.proc.pid", pid)
	switch {
	case errors.Is(err, unix.ESRCH) || err == nil && len(b) == 0:
		return Stat{}, fmt.Errorf("procid: pid %d: %w", pid, ErrGone)
	case err != nil:
		return Stat{}, fmt.Errorf("procid: pid %d: sysctl kern.proc.pid: %w", pid, err)
	}
	ks, err := decodeFreeBSDKinfo(b)
	if err != nil {
		return Stat{}, fmt.Errorf("procid: pid %d: %w", pid, err)
	}
	return fromKinfo(pid, ks[0])
}

func (sysctlTable) each(fn func(Stat)) error {
	b, err := unix.SysctlRaw("kern.proc.proc")
	if err != nil {
		return fmt.Errorf("procid: sysctl kern.proc.proc: %w", err)
	}
	ks, err := decodeFreeBSDKinfo(b)
	if err != nil {
		return err
	}
	for _, k := range ks {
		if st, err := fromKinfo(int(k.pid), k); err == nil {
			fn(st)
		}
	}
	return nil
}
