package inherited

import (
	"math"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// CloseOnExec marks every open descriptor above 2 close-on-exec: with one
// close_range(2) where the kernel has it (Linux 5.11), else one fcntl per
// descriptor listed in /proc/self/fd.
func CloseOnExec() error {
	if err := unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return nil
	}
	return markListed()
}

// markListed marks every descriptor above 2 listed in /proc/self/fd.
func markListed() error {
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return err
	}
	for _, n := range names {
		fd, err := strconv.Atoi(n)
		if err != nil || fd <= 2 {
			continue
		}
		markFD(fd) // the listing's own descriptor is closed by now: EBADF, ignored
	}
	return nil
}
