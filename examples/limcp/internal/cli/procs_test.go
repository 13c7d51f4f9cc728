//go:build unix

package cli

import (
	"runtime"
	"testing"
)

// A stdio server runs on one processor, unless $GOMAXPROCS chose.
func TestStdioServerRunsOnOneProcessor(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(before) })
	for _, tc := range []struct {
		rule string
		env  string
		set  int // GOMAXPROCS before the call
		want int
	}{
		{"no $GOMAXPROCS: one processor", "", 4, 1},
		{"$GOMAXPROCS given: the runtime's choice stands", "3", 3, 3},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			runtime.GOMAXPROCS(tc.set)
			stdioProcs(func(k string) string {
				if k == "GOMAXPROCS" {
					return tc.env
				}
				return ""
			})
			if got := runtime.GOMAXPROCS(0); got != tc.want {
				t.Fatalf("GOMAXPROCS %d, want %d", got, tc.want)
			}
		})
	}
}
