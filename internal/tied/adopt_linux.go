package tied

import (
	"bytes"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/verbsurface/verbsurface/internal/procid"
	"golang.org/x/sys/unix"
)

// A process a command detaches into a session of its own (a double fork
// and setsid, as a daemon starts) leaves the command's process group, so
// stopping the group does not reach it, and its parent's exit hands it to
// init: it outlives the command and the server. With [AdoptOrphans] this
// process becomes a child subreaper (PR_SET_CHILD_SUBREAPER): every
// orphaned descendant is handed to it instead, so the server can find what
// a command left behind among its own children, and [KillAdopted] ends
// what carries the command's tag in its environment.
//
// Adopted processes are this process's children: they are reaped here
// when they exit (on SIGCHLD), never by wait(-1), which would take the
// exit status os/exec waits for. A child that Start started is never
// reaped or killed here: Start records each one (pid and start time)
// under the same lock the scans hold. Nor is any child not seen alive
// carrying a command's tag: a zombie's environment cannot be read, and a
// child another part of the process started with os/exec (a test, an
// embedder) is that code's to wait for. An adopted process that cleared
// its environment is left a zombie until this process exits.

var adopt struct {
	once    sync.Once
	err     error
	mu      sync.Mutex     // held by Start around fork and record, and by every scan
	started map[int]uint64 // pid -> start time, for every process Start started
	tagged  map[int]uint64 // pid -> start time, adopted and seen alive with a command's tag
	self    int
}

// adopting is set once AdoptOrphans succeeded.
var adopting atomic.Bool

// Adopting reports whether this process adopts its orphaned descendants
// ([AdoptOrphans] succeeded): then every command should carry a tag, so
// that what it leaves behind is known as a command's and reaped.
func Adopting() bool { return adopting.Load() }

// tagPrefix starts the environment entry dispatch tags a command with
// (VERBSURFACE_RUN=…): an adopted process that carries one is a command's.
var tagPrefix = []byte("VERBSURFACE_RUN=")

// AdoptOrphans makes this process the reaper of its orphaned descendants,
// once, and starts reaping the ones that exit. It fails where the kernel
// refuses (before Linux 3.4). The children this process has when it is
// called are its own, not adopted; every process it starts afterwards
// must be started by [Start], or a scan could take it for an adopted one
// and reap it under os/exec's feet.
func AdoptOrphans() error {
	adopt.once.Do(func() {
		adopt.mu.Lock()
		defer adopt.mu.Unlock()
		adopt.self = os.Getpid()
		adopt.started = map[int]uint64{}
		adopt.tagged = map[int]uint64{}
		for _, pid := range children() {
			record(pid)
		}
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			adopt.err = err
			return
		}
		adopting.Store(true)
		go reapAdopted()
	})
	return adopt.err
}

// record notes that Start started pid; called with adopt.mu held. Before
// AdoptOrphans nothing is adopted, and nothing is kept.
func record(pid int) {
	if adopt.started == nil {
		return
	}
	if st, err := procid.ReadStat(pid); err == nil {
		adopt.started[pid] = st.StartTime
	} else {
		adopt.started[pid] = 0 // gone already: not adopted, whatever it was
	}
}

// adopted lists this process's children that Start did not start, with
// their state; called with adopt.mu held. Entries of Start's record whose
// process is gone or is another by now are dropped.
func adopted() []procid.Stat {
	var out []procid.Stat
	for _, pid := range children() {
		st, err := procid.ReadStat(pid)
		if err != nil {
			continue
		}
		if t, ok := adopt.started[pid]; ok && (t == 0 || t == st.StartTime) {
			continue
		}
		out = append(out, st)
	}
	for pid, t := range adopt.started {
		if st, err := procid.ReadStat(pid); err != nil || (t != 0 && st.StartTime != t) {
			delete(adopt.started, pid)
		}
	}
	for pid, t := range adopt.tagged {
		if st, err := procid.ReadStat(pid); err != nil || st.StartTime != t {
			delete(adopt.tagged, pid)
		}
	}
	return out
}

// reapTagged reaps st when it is a zombie this process saw alive carrying
// a command's tag, and otherwise notes it when it carries one now; called
// with adopt.mu held.
func reapTagged(st procid.Stat) {
	if st.State == 'Z' {
		if t, ok := adopt.tagged[st.PID]; ok && t == st.StartTime {
			reap(st.PID)
			delete(adopt.tagged, st.PID)
		}
		return
	}
	if _, ok := adopt.tagged[st.PID]; !ok && carriesPrefix(st.PID, tagPrefix) {
		adopt.tagged[st.PID] = st.StartTime
	}
}

// children are the pids whose parent is this process: from each thread's
// children list (CONFIG_PROC_CHILDREN), else from the whole table.
func children() []int {
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	var pids []int
	ok := len(tasks) > 0
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			ok = false
			break
		}
		for _, w := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(w); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	if ok {
		return pids
	}
	pids = pids[:0]
	live, _ := procid.Live()
	for _, st := range live {
		if st.PPID == adopt.self {
			pids = append(pids, st.PID)
		}
	}
	return pids
}

// reapAdopted reaps adopted children as they exit: on SIGCHLD, and every
// few seconds in case a signal was merged with one os/exec consumed.
func reapAdopted() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGCHLD)
	tick := time.NewTicker(5 * time.Second)
	for {
		select {
		case <-sig:
		case <-tick.C:
		}
		adopt.mu.Lock()
		for _, st := range adopted() {
			reapTagged(st)
		}
		adopt.mu.Unlock()
	}
}

// reap collects pid's exit status if it has one, without waiting.
func reap(pid int) bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG, nil)
	return err == nil && info.Signo != 0 || err == unix.ECHILD
}

// KillAdopted ends every adopted process whose environment carries tag
// (NAME=VALUE, as the command was started with it) and the descendants
// they leave, adopted in turn as each dies: SIGKILL to the process and to
// the group it leads, until none is left alive (their exits are reaped).
// It reports whether it found any, and the pids still alive at wait (a
// process stuck in the kernel). A process that cleared its environment, or
// whose environment cannot be read (it made itself undumpable, or runs
// set-id), is not found and is left alone. Without [AdoptOrphans] nothing
// is adopted, and it finds nothing.
func KillAdopted(tag string, wait time.Duration) (found bool, survivors []int) {
	if adopt.err != nil || adopt.self == 0 {
		return false, nil
	}
	want := []byte(tag)
	deadline := time.Now().Add(wait)
	signalled := map[int]uint64{} // pid -> start time
	for {
		alive := []int{}
		adopt.mu.Lock()
		for _, st := range adopted() {
			t, sent := signalled[st.PID]
			sent = sent && t == st.StartTime
			if st.State == 'Z' {
				reapTagged(st)
				continue
			}
			if !sent && !carries(st.PID, want) {
				reapTagged(st) // another command's, perhaps: noted for its reaping
				continue
			}
			adopt.tagged[st.PID] = st.StartTime
			alive = append(alive, st.PID)
			if !sent {
				signalled[st.PID] = st.StartTime
				if st.PGID == st.PID {
					_ = unix.Kill(-st.PID, unix.SIGKILL)
				}
				_ = unix.Kill(st.PID, unix.SIGKILL)
			}
		}
		adopt.mu.Unlock()
		if len(alive) == 0 {
			return len(signalled) > 0, nil
		}
		if time.Now().After(deadline) {
			return true, alive
		}
		time.Sleep(time.Millisecond)
	}
}

// carriesPrefix reports whether pid's environment holds an entry that
// starts with prefix.
func carriesPrefix(pid int, prefix []byte) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if bytes.HasPrefix(kv, prefix) {
			return true
		}
	}
	return false
}

// carries reports whether pid's environment holds the entry tag.
func carries(pid int, tag []byte) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if bytes.Equal(kv, tag) {
			return true
		}
	}
	return false
}
