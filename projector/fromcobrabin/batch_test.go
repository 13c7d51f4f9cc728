package fromcobrabin

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// buildProgram builds the cobra program of the package pkg (a directory
// relative to this one) for the tests of this file, which see the walk's
// internals.
func buildProgram(t testing.TB, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	build := exec.Command("go", "build", "-o", bin, pkg)
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("building %s: %v", pkg, err)
	}
	return bin
}

// walkBoth walks bin asking each flag's probes alone, then together, and
// returns the calls of each after checking that the trees are the same.
func walkBoth(t testing.TB, bin string, opts *Options) (alone, together int64) {
	t.Helper()
	ctx := context.Background()
	a := &walkTrace{oneByOne: true}
	want, err := walk(ctx, []string{bin}, opts, a)
	if err != nil {
		t.Fatal(err)
	}
	b := &walkTrace{}
	got, err := walk(ctx, []string{bin}, opts, b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the tree asked together differs from the tree asked flag by flag (-alone +together):\n%s", diff)
	}
	return a.calls, b.calls
}

// The probes asked together give the tree that asking each flag alone
// gives: on the whole fixture, whose flags are made to be hard to read,
// and command by command; with fewer calls where a command has more than
// one flag of a kind and they all parse, and at most two more where one
// does not.
func TestProbesTogether(t *testing.T) {
	bin := buildProgram(t, "./internal/fixture/cmd/fixture")
	t.Run("fixture", func(t *testing.T) {
		alone, together := walkBoth(t, bin, nil)
		t.Logf("calls: %d flag by flag, %d together", alone, together)
	})
	for _, tc := range []struct {
		path  string
		fewer bool
	}{
		{"types", true},         // two bools (--color, --enabled)
		{"exclusive", true},     // two bools (--json, --yaml)
		{"tristate", false},     // a bool beside a value of its own that refuses true: asked again alone
		{"placeholders", false}, // placeholders of every type: the strings' question refused, asked again alone
	} {
		t.Run(tc.path, func(t *testing.T) {
			alone, together := walkBoth(t, bin, &Options{Paths: [][]string{{tc.path}}})
			if tc.fewer && together >= alone {
				t.Errorf("asked together: %d calls of the program; flag by flag: %d; want fewer", together, alone)
			}
			if together > alone+2 {
				t.Errorf("asked together: %d calls of the program; flag by flag: %d; want at most two more", together, alone)
			}
		})
	}
}

// BenchmarkWalkSynth reads the synthetic cobra CLI of the growth figures
// (bench/synthcli, $SYNTH_COMMANDS leaf commands, 200 unless set: 205
// command paths) cold, its probes asked together and flag by flag, and
// reports the program calls per command path.
func BenchmarkWalkSynth(b *testing.B) {
	n := os.Getenv("SYNTH_COMMANDS")
	if n == "" {
		n = "200"
		b.Setenv("SYNTH_COMMANDS", n)
	}
	bin := buildProgram(b, "../../bench/synthcli")
	for _, mode := range []struct {
		name     string
		oneByOne bool
	}{{"together", false}, {"one-by-one", true}} {
		b.Run(mode.name, func(b *testing.B) {
			var calls int64
			paths := 0
			for b.Loop() {
				tr := &walkTrace{oneByOne: mode.oneByOne}
				t, err := walk(context.Background(), []string{bin}, nil, tr)
				if err != nil {
					b.Fatal(err)
				}
				calls, paths = tr.calls, len(t.Commands)
			}
			b.ReportMetric(float64(calls)/float64(paths), "calls/cmd")
			b.ReportMetric(float64(paths), "cmds")
		})
	}
}
