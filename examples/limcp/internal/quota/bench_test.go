package quota

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkCheckHome: what the home_bytes check adds to every submit, a
// walk of runs/, for a home of 1,000 runs of 4 files each.
func BenchmarkCheckHome(b *testing.B) {
	runs := filepath.Join(b.TempDir(), "runs")
	for i := range 1000 {
		dir := filepath.Join(runs, fmt.Sprintf("%016x", i))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			b.Fatal(err)
		}
		for _, f := range []string{"prompt.txt", "stdout", "stderr", "worker.log"} {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("some bytes"), 0o600); err != nil {
				b.Fatal(err)
			}
		}
	}
	l := Defaults
	b.ResetTimer()
	for range b.N {
		if err := l.CheckHome(runs, 1); err != nil {
			b.Fatal(err)
		}
	}
}
