//go:build unix

package background

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/dispatch"
	"github.com/verbsurface/verbsurface/internal/runs"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// superviseArg is the hidden subcommand of this test binary: run with it
// and a run's directory and id, the binary is that run's supervisor, as
// an embedder's binary is.
const superviseArg = "__supervise-test"

func TestMain(m *testing.M) {
	if len(os.Args) == 4 && strings.HasPrefix(os.Args[1], stalledSupervisorArg) {
		stalledSupervisor(os.Args[1])
	}
	if len(os.Args) == 4 && os.Args[1] == superviseArg {
		if err := Supervise(context.Background(), os.Args[2], os.Args[3]); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// openTest opens runs in a directory of the test's own, supervised by
// this test binary.
func openTest(t testing.TB) *Runs { return openSupervised(t, superviseArg) }

// openSupervised opens runs in a directory of the test's own, whose
// supervisor is this test binary run with the hidden subcommand arg.
func openSupervised(t testing.TB, arg string) *Runs {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(&Options{Dir: filepath.Join(t.TempDir(), "state", "runs"), Supervisor: []string{exe, arg}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// shVerb is a background verb of b that runs its argument as a script of
// /bin/sh.
func shVerb(t testing.TB, b *Runs, name string) verbsurface.Runner {
	t.Helper()
	r, err := dispatch.NewRunner("/bin/sh", &dispatch.Options{LeadingArgs: []string{"-c"}, Output: dispatch.OutputText})
	if err != nil {
		t.Fatal(err)
	}
	return b.Verb(name, r, []string{"/bin/sh", "-c"}, nil)
}

func TestOpenRefusesIncompleteOptions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	for _, tc := range []struct {
		name string
		opts *Options
		want string
	}{
		{"nil", nil, "Options.Dir is empty"},
		{"no_dir", &Options{Supervisor: []string{"/bin/true"}}, "Options.Dir is empty"},
		{"no_supervisor", &Options{Dir: dir}, "Options.Supervisor names no program"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if b, err := Open(tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
				if b != nil {
					b.Close()
				}
				t.Fatalf("Open: %v; want %q", err, tc.want)
			}
		})
	}
}

// A background verb's Runner records the run and starts the supervisor
// the Options name (here this test binary), which runs the program to
// its end and records it; the run's output is kept in the store's
// directory.
func TestVerbStartsSupervisedRun(t *testing.T) {
	b := openTest(t)
	v := shVerb(t, b, "sh.run")
	out, err := v.Run(context.Background(), []string{"echo hello from the background"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"background":true`) {
		t.Fatalf("start result %s; want it marked background", out)
	}
	recs, err := b.store.List(context.Background(), runs.ListOptions{})
	if err != nil || len(recs) != 1 {
		t.Fatalf("runs after one start: %v, %v", recs, err)
	}
	id := recs[0].ID
	rec := waitEnded(t, b, id)
	if rec.Status != runs.StatusCompleted {
		t.Fatalf("run ended %s (%s); want completed", rec.Status, rec.ReasonCode)
	}
	got, err := os.ReadFile(outputPath(b.Dir(), id, "stdout"))
	if err != nil || string(got) != "hello from the background\n" {
		t.Fatalf("stdout %q, %v", got, err)
	}
	if n, err := b.CountLive(context.Background()); err != nil || n != 0 {
		t.Fatalf("CountLive after the end: %d, %v; want 0", n, err)
	}
}

// testSubject is the context key of the subject a test gives a start.
type testSubject struct{}

// Concurrent starts of one subject that all passed the policy gate still
// pass its free slot once: the start counts the subject's live runs and
// records the new one in one step. The losers start nothing and name the
// limit.
func TestStartCountsSubjectWithRecord(t *testing.T) {
	prev := callerSubject
	callerSubject = func(ctx context.Context) string { s, _ := ctx.Value(testSubject{}).(string); return s }
	t.Cleanup(func() { callerSubject = prev })
	b := openTest(t)
	v := shVerb(t, b, "sh.run")
	b.LimitLive(0, 1, &verbsurface.Options{})
	ctx := context.WithValue(context.Background(), testSubject{}, "alice")
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = v.Run(ctx, []string{"sleep 300"})
		}()
	}
	wg.Wait()
	// Bob has a slot of his own; a caller with none is not held by it.
	_, bobErr := v.Run(context.WithValue(context.Background(), testSubject{}, "bob"), []string{"sleep 300"})
	_, anonErr := v.Run(context.Background(), []string{"sleep 300"})
	live, _ := b.store.List(context.Background(), runs.ListOptions{Live: true})
	for _, r := range live {
		if _, err := b.kill(context.Background(), &verbsurface.Call{Args: map[string]any{"id": r.ID, "grace": "1s"}}); err != nil {
			t.Error(err)
		}
		waitEnded(t, b, r.ID)
	}
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else if !strings.Contains(err.Error(), "each caller 1 live runs at once and 1 of alice's are live") {
			t.Errorf("a refused start: %v; want it to name alice's limit", err)
		}
	}
	if ok != 1 || bobErr != nil || anonErr != nil || len(live) != 3 {
		t.Fatalf("%d of %d concurrent starts of alice ran, bob's: %v, one without a subject: %v, %d live; want 1, nil, nil, 3", ok, n, bobErr, anonErr, len(live))
	}
}

// waitEnded waits until run id's end is recorded and returns its record.
func waitEnded(t testing.TB, b *Runs, id string) runs.Record {
	t.Helper()
	for range 3000 {
		rec, err := b.store.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Terminal() {
			return rec
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("run %s never ended", id)
	return runs.Record{}
}
