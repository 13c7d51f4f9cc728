//go:build !linux && !freebsd && !darwin

package nodump

// Protect does nothing on this platform.
func Protect() error { return nil }

// Protected reports false: nothing protects this process here.
func Protected() bool { return false }
