//go:build unix

package procid

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseStatNameWithParens(t *testing.T) {
	line := []byte("4242 (a (weird) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 987654 1000 100 18446744073709551615\n")
	st, err := parseStat(4242, line)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != 'S' || st.PPID != 1 || st.PGID != 4242 || st.SID != 4242 || st.StartTime != 987654 {
		t.Fatalf("parseStat = %+v", st)
	}
}

// A malformed line is an error, never a Stat with zero fields: a zero start
// time would make Check call a live process gone.
func TestParseStatRefusesMalformedLines(t *testing.T) {
	for name, line := range map[string]string{
		"no closing parenthesis":  "4242 (name S 1 4242 4242",
		"too few fields":          "4242 (name) S 1 4242 4242 0",
		"start time not a number": "4242 (name) S 1 4242 4242 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 soon 1000 100 1\n",
		"pgid not a number":       "4242 (name) S 1 grp 4242 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 987654 1000 100 1\n",
	} {
		t.Run(name, func(t *testing.T) {
			if st, err := parseStat(4242, []byte(line)); err == nil {
				t.Fatalf("parseStat = %+v, nil; want an error", st)
			}
		})
	}
}

// freebsdKinfo builds one FreeBSD struct kinfo_proc the way the kernel lays
// it out, with only the fields this package reads filled in.
func freebsdKinfo(size, pid, ppid, pgid, sid int32, stat int8, sec, usec int64) []byte {
	b := make([]byte, freebsdKinfoSize)
	put32 := func(off int, v int32) { binary.NativeEndian.PutUint32(b[off:], uint32(v)) }
	put32(0, size)
	put32(freebsdOffPid, pid)
	put32(freebsdOffPpid, ppid)
	put32(freebsdOffPgid, pgid)
	put32(freebsdOffSid, sid)
	binary.NativeEndian.PutUint64(b[freebsdOffStart:], uint64(sec))
	binary.NativeEndian.PutUint64(b[freebsdOffStart+8:], uint64(usec))
	b[freebsdOffStat] = byte(stat)
	// Neighbouring fields hold values that must not leak into the ones read
	// (ki_tpgid, ki_tsid, ki_childtime, ki_nice).
	put32(84, 7777)
	put32(92, 8888)
	binary.NativeEndian.PutUint64(b[352:], 99)
	b[389] = 0x7f
	return b
}

func TestDecodeFreeBSDKinfo(t *testing.T) {
	two := append(freebsdKinfo(freebsdKinfoSize, 4242, 1, 4240, 4200, 3, 1_700_000_000, 123456),
		freebsdKinfo(freebsdKinfoSize, 4243, 4242, 4240, 4200, 5, 1_700_000_001, 0)...)
	ks, err := decodeFreeBSDKinfo(two)
	if err != nil {
		t.Fatal(err)
	}
	want := []kinfo{
		{pid: 4242, ppid: 1, pgid: 4240, sid: 4200, stat: 3, startSec: 1_700_000_000, startUsec: 123456},
		{pid: 4243, ppid: 4242, pgid: 4240, sid: 4200, stat: 5, startSec: 1_700_000_001},
	}
	if fmt.Sprint(ks) != fmt.Sprint(want) {
		t.Fatalf("decodeFreeBSDKinfo = %+v, want %+v", ks, want)
	}
	st, err := fromKinfo(4243, ks[1])
	if err != nil || st.State != 'Z' || st.PGID != 4240 || st.StartTime != 1_700_000_001_000_000 {
		t.Fatalf("fromKinfo(zombie) = %+v, %v", st, err)
	}
}

// Any other layout is refused, never misread: a 32-bit FreeBSD's smaller
// struct, a truncated answer, trailing bytes.
func TestDecodeFreeBSDKinfoRefusesOtherLayouts(t *testing.T) {
	good := freebsdKinfo(freebsdKinfoSize, 1, 0, 1, 1, 2, 1_700_000_000, 0)
	for name, b := range map[string][]byte{
		"32-bit size":    freebsdKinfo(768, 1, 0, 1, 1, 2, 1_700_000_000, 0),
		"truncated":      good[:freebsdKinfoSize-1],
		"trailing bytes": append(append([]byte{}, good...), 1, 2),
	} {
		t.Run(name, func(t *testing.T) {
			if ks, err := decodeFreeBSDKinfo(b); err == nil {
				t.Fatalf("decodeFreeBSDKinfo = %+v, nil; want an error", ks)
			}
		})
	}
}

// The BSD states map onto /proc's letters, so the identity rule (a zombie
// is gone) is the same everywhere, and the start time is one number.
func TestFromKinfo(t *testing.T) {
	base := kinfo{pid: 501, ppid: 1, pgid: 501, sid: 400, startSec: 1_700_000_000, startUsec: 999_999}
	for stat, want := range map[int8]byte{1: 'I', 2: 'R', 3: 'S', 4: 'T', 5: 'Z', 6: 'W', 7: 'L', 9: '?'} {
		k := base
		k.stat = stat
		st, err := fromKinfo(501, k)
		if err != nil {
			t.Fatal(err)
		}
		if st.State != want || st.PID != 501 || st.PPID != 1 || st.PGID != 501 || st.SID != 400 || st.StartTime != 1_700_000_000_999_999 {
			t.Errorf("fromKinfo(p_stat %d) = %+v, want state %c", stat, st, want)
		}
	}
	// A zombie read through kinfo is gone for Check's rule; a live one with
	// the same start time is alive; a later start time is another process.
	id := Identity{PID: 501, StartTime: 1_700_000_000_999_999}
	live, _ := fromKinfo(501, kinfo{pid: 501, stat: 2, startSec: 1_700_000_000, startUsec: 999_999})
	zombie, _ := fromKinfo(501, kinfo{pid: 501, stat: 5, startSec: 1_700_000_000, startUsec: 999_999})
	reused, _ := fromKinfo(501, kinfo{pid: 501, stat: 2, startSec: 1_700_000_100})
	for _, c := range []struct {
		st   Stat
		want Evidence
	}{{live, Alive}, {zombie, Gone}, {reused, Gone}} {
		if got := judge(id, c.st, nil); got != c.want {
			t.Errorf("judge(%+v) = %s, want %s", c.st, got, c.want)
		}
	}
}

func TestFromKinfoRefusesUnusableAnswers(t *testing.T) {
	for name, k := range map[string]kinfo{
		"another pid":        {pid: 502, stat: 2, startSec: 1_700_000_000},
		"zero start time":    {pid: 501, stat: 2},
		"negative µs":        {pid: 501, stat: 2, startSec: 1_700_000_000, startUsec: -1},
		"µs past one second": {pid: 501, stat: 2, startSec: 1_700_000_000, startUsec: 1_000_000},
	} {
		t.Run(name, func(t *testing.T) {
			if st, err := fromKinfo(501, k); err == nil || !strings.Contains(err.Error(), "pid 501") {
				t.Fatalf("fromKinfo = %+v, %v; want an error naming pid 501", st, err)
			}
		})
	}
}

// The identity rule apart from the table: absence proves gone, any other
// failure proves nothing.
func TestJudge(t *testing.T) {
	id := Identity{PID: 7, StartTime: 100}
	for _, c := range []struct {
		name string
		st   Stat
		err  error
		want Evidence
	}{
		{"same process", Stat{PID: 7, State: 'S', StartTime: 100}, nil, Alive},
		{"zombie", Stat{PID: 7, State: 'Z', StartTime: 100}, nil, Gone},
		{"dead", Stat{PID: 7, State: 'X', StartTime: 100}, nil, Gone},
		{"reused pid", Stat{PID: 7, State: 'S', StartTime: 101}, nil, Gone},
		{"no such pid", Stat{}, fmt.Errorf("procid: pid 7: %w", ErrGone), Gone},
		{"unreadable", Stat{}, errors.New("permission denied"), Unknown},
	} {
		if got := judge(id, c.st, c.err); got != c.want {
			t.Errorf("%s: judge = %s, want %s", c.name, got, c.want)
		}
	}
}
