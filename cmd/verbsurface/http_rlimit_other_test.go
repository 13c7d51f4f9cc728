//go:build unix && !linux

package main

import "testing"

// lowerDescriptorLimit: prlimit(2) is Linux's; elsewhere the test that
// needs it does not run.
func lowerDescriptorLimit(t *testing.T, pid, n int) {
	t.Skip("lowering another process's descriptor limit needs prlimit(2) (Linux)")
}
