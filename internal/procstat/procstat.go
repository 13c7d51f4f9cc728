package procstat

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// FDs is how many descriptors process pid holds.
func FDs(pid int) (int, error) {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return 0, err
	}
	return len(ents), nil
}

// Conns is how many TCP connections process pid holds that it accepted on
// port: its socket descriptors whose inodes /proc/PID/net/tcp and tcp6 list
// with that local port in a state other than LISTEN. A count of all its
// descriptors would also count whatever else the process opens meanwhile
// (a command's pipes, a file watcher), and a cap on connections is about
// connections.
func Conns(pid, port int) (int, error) {
	inodes := map[string]bool{}
	for _, table := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] == "0A" { // 0A: LISTEN
				continue
			}
			_, hexPort, _ := strings.Cut(f[1], ":")
			if p, err := strconv.ParseInt(hexPort, 16, 32); err == nil && int(p) == port {
				inodes[f[9]] = true
			}
		}
	}
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range ents {
		link, err := os.Readlink(filepath.Join(dir, e.Name()))
		if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok && inodes[strings.TrimSuffix(inode, "]")] {
			n++
		}
	}
	return n, nil
}

// StatusMB is a size field of /proc/PID/status ("VmRSS", "VmHWM"), in MB.
func StatusMB(pid int, field string) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				return 0, fmt.Errorf("procstat: %s of %d: %v", field, pid, err)
			}
			return kb / 1024, nil
		}
	}
	return 0, fmt.Errorf("procstat: no %s in /proc/%d/status", field, pid)
}

// CPUTime is process pid's CPU time so far, every thread's: the sum of the
// first field of /proc/PID/task/*/schedstat (nanoseconds on the CPU, the
// scheduler's own exact accounting, not the 10 ms ticks of /proc/PID/stat).
func CPUTime(pid int) (time.Duration, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("procstat: no schedstat for pid %d", pid)
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // a thread that just exited
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			continue
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("procstat: schedstat of %d: %v", pid, err)
		}
		sum += time.Duration(ns)
	}
	return sum, nil
}
