//go:build unix && !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package cli

import "os"

// isTerminal reports whether f is a character device: without a termios
// query here, /dev/null also counts, which only costs a notice on stderr.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
