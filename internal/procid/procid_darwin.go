package procid

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// system is macOS's process table: sysctl kern.proc.
var system processTable = sysctlTable{}

// sysctlTable reads struct kinfo_proc through sysctl: kern.proc.pid.PID
// for one process (zombies included), kern.proc.all for every process.
// golang.org/x/sys/unix declares the struct, so nothing here is laid out by
// hand.
type sysctlTable struct{}

func (sysctlTable) stat(pid int) (Stat, error) {
	// The slice form: a pid with no process gives an empty answer, which
	// SysctlKinfoProc would report as EIO.
	ks, err := unix.SysctlKinfoProcSlice("kern.proc.pid", pid)
	switch {
	case errors.Is(err, unix.ESRCH) || err == nil && len(ks) == 0:
		return Stat{}, fmt.Errorf("procid: pid %d: %w", pid, ErrGone)
	case err != nil:
		return Stat{}, fmt.Errorf("procid: pid %d: sysctl kern.proc.pid: %w", pid, err)
	}
	k := darwinKinfo(&ks[0])
	// macOS's kinfo_proc has no session id; getsid(2) answers it (only
	// here: listing every process does not need it, and one system call
	// per process would make each listing hundreds of them). A process that
	// has just exited keeps sid 0: nothing here decides on a session.
	if sid, err := unix.Getsid(pid); err == nil {
		k.sid = int32(sid)
	}
	return fromKinfo(pid, k)
}

func (sysctlTable) each(fn func(Stat)) error {
	ks, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return fmt.Errorf("procid: sysctl kern.proc.all: %w", err)
	}
	for i := range ks {
		k := darwinKinfo(&ks[i])
		if st, err := fromKinfo(int(k.pid), k); err == nil {
			fn(st)
		}
	}
	return nil
}

// darwinKinfo picks the fields this package reads (all but the session id,
// which kinfo_proc lacks).
func darwinKinfo(k *unix.KinfoProc) kinfo {
	return kinfo{
		pid: k.Proc.P_pid, ppid: k.Eproc.Ppid, pgid: k.Eproc.Pgid,
		stat:     k.Proc.P_stat,
		startSec: k.Proc.P_starttime.Sec, startUsec: int64(k.Proc.P_starttime.Usec),
	}
}
