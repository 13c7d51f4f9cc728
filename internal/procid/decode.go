//go:build unix

package procid

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// The decoders below turn each platform's raw answer into a Stat. They are
// pure, so every one of them is tested on any machine, including the BSD
// ones that only run on a Mac or a FreeBSD host.

// parseStat parses a Linux /proc/PID/stat line. The command name (field 2)
// is in parentheses and may itself contain spaces and parentheses, so fields
// are counted from the last ')'.
func parseStat(pid int, b []byte) (Stat, error) {
	end := bytes.LastIndexByte(b, ')')
	if end < 0 || end+2 > len(b) {
		return Stat{}, fmt.Errorf("procid: pid %d: malformed stat line", pid)
	}
	f := strings.Fields(string(b[end+2:]))
	// f[0] is field 3 (state); field N is f[N-3].
	if len(f) < 20 {
		return Stat{}, fmt.Errorf("procid: pid %d: stat line has %d fields after the name, want at least 20", pid, len(f))
	}
	st := Stat{PID: pid, State: f[0][0]}
	var err error
	num := func(s string) int {
		n, e := strconv.Atoi(s)
		if e != nil && err == nil {
			err = e
		}
		return n
	}
	st.PPID = num(f[1])
	st.PGID = num(f[2])
	st.SID = num(f[3])
	// A start time that does not parse is an error, never zero: Check would
	// read zero as a different process ("gone"), and a caller may reap a
	// run on that.
	start, serr := strconv.ParseUint(f[19], 10, 64)
	if err == nil {
		err = serr
	}
	st.StartTime = start
	if err != nil {
		return Stat{}, fmt.Errorf("procid: pid %d: malformed stat line: %v", pid, err)
	}
	return st, nil
}

// kinfo is the part of a BSD struct kinfo_proc this package reads, in a
// shape shared by macOS (whose struct golang.org/x/sys/unix declares) and
// FreeBSD (whose struct is decoded from bytes by decodeFreeBSDKinfo).
type kinfo struct {
	pid, ppid, pgid, sid int32
	stat                 int8  // p_stat / ki_stat: SIDL 1, SRUN 2, SSLEEP 3, SSTOP 4, SZOMB 5, SWAIT 6, SLOCK 7
	startSec, startUsec  int64 // p_starttime / ki_start
}

// fromKinfo turns a kinfo_proc read for pid into a Stat. The start time is
// the start timeval in microseconds since the epoch; a kernel answer with no
// usable start time, or about another pid, is an error (never a Stat whose
// zero start time Check would read as "a different process").
func fromKinfo(pid int, k kinfo) (Stat, error) {
	if int(k.pid) != pid {
		return Stat{}, fmt.Errorf("procid: pid %d: the kernel answered about pid %d", pid, k.pid)
	}
	if k.startSec <= 0 || k.startUsec < 0 || k.startUsec >= 1e6 {
		return Stat{}, fmt.Errorf("procid: pid %d: no usable start time (%d s %d µs)", pid, k.startSec, k.startUsec)
	}
	st := Stat{PID: pid, PPID: int(k.ppid), PGID: int(k.pgid), SID: int(k.sid),
		StartTime: uint64(k.startSec)*1e6 + uint64(k.startUsec)}
	switch k.stat {
	case 1:
		st.State = 'I' // SIDL: being created
	case 2:
		st.State = 'R'
	case 3:
		st.State = 'S'
	case 4:
		st.State = 'T'
	case 5:
		st.State = 'Z' // SZOMB: exited, awaiting its parent's wait
	case 6:
		st.State = 'W' // FreeBSD SWAIT: waiting for an interrupt
	case 7:
		st.State = 'L' // FreeBSD SLOCK: blocked on a lock
	default:
		st.State = '?'
	}
	return st, nil
}

// FreeBSD's struct kinfo_proc (sys/user.h) on 64-bit platforms: its size
// (KINFO_PROC_SIZE) and the offsets of the fields read here. The layout is
// part of FreeBSD's ABI (ps(1) and libkvm depend on it) and has kept these
// offsets since FreeBSD 7; ki_structsize, the struct's first field, is
// checked so that any other layout (a 32-bit platform, a future change) is
// an error rather than misread.
const (
	freebsdKinfoSize = 1088
	freebsdOffPid    = 72  // ki_pid
	freebsdOffPpid   = 76  // ki_ppid
	freebsdOffPgid   = 80  // ki_pgid
	freebsdOffSid    = 88  // ki_sid
	freebsdOffStart  = 336 // ki_start: struct timeval {tv_sec int64; tv_usec int64}
	freebsdOffStat   = 388 // ki_stat
)

// decodeFreeBSDKinfo splits the answer of sysctl kern.proc.pid.PID or
// kern.proc.proc (an array of struct kinfo_proc in the host's byte order)
// into kinfos.
func decodeFreeBSDKinfo(b []byte) ([]kinfo, error) {
	var out []kinfo
	for len(b) > 0 {
		if len(b) < 4 {
			return nil, fmt.Errorf("procid: kinfo_proc: %d trailing bytes", len(b))
		}
		size := int(int32(binary.NativeEndian.Uint32(b)))
		if size != freebsdKinfoSize || len(b) < size {
			return nil, fmt.Errorf("procid: kinfo_proc: structure size %d with %d bytes left, want %d (unsupported layout)", size, len(b), freebsdKinfoSize)
		}
		i32 := func(off int) int32 { return int32(binary.NativeEndian.Uint32(b[off:])) }
		out = append(out, kinfo{
			pid: i32(freebsdOffPid), ppid: i32(freebsdOffPpid), pgid: i32(freebsdOffPgid), sid: i32(freebsdOffSid),
			stat:      int8(b[freebsdOffStat]),
			startSec:  int64(binary.NativeEndian.Uint64(b[freebsdOffStart:])),
			startUsec: int64(binary.NativeEndian.Uint64(b[freebsdOffStart+8:])),
		})
		b = b[size:]
	}
	return out, nil
}
