package procid

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"syscall"
)

// system is Linux's process table: /proc.
var system processTable = procfs{}

// procfs reads /proc/PID/stat, which the kernel keeps for every process,
// zombies included, and lists /proc for every pid.
type procfs struct{}

func (procfs) stat(pid int) (Stat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		// ESRCH: the process exited between open and read.
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
			return Stat{}, fmt.Errorf("procid: pid %d: %w", pid, ErrGone)
		}
		return Stat{}, fmt.Errorf("procid: pid %d: %w", pid, err)
	}
	return parseStat(pid, b)
}

func (p procfs) each(fn func(Stat)) error {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return fmt.Errorf("procid: listing /proc: %w", err)
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue // not a process: /proc/self, /proc/meminfo, ...
		}
		st, err := p.stat(pid)
		if err != nil {
			continue // exited while /proc was being listed
		}
		fn(st)
	}
	return nil
}
