package verbsurface

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/projector"
)

// Issue 36, LOW #8: a changed CLI was read again by every request that
// found it changed while the first read ran (eight requests, up to eight
// walks of a cobra binary). Requests for the same key now wait for the
// one load and share its tree; a failure is shared too, and not cached.
func TestCacheByFileLoadsOncePerChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cli")
	if err := os.WriteFile(path, []byte("v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	var loads atomic.Int32
	started := make(chan struct{}, 16)
	var gate chan struct{} // closed to let the loads of one burst return
	fail := false
	src := CacheByFile(path, func(context.Context) (*projector.Tree, error) {
		loads.Add(1)
		started <- struct{}{}
		<-gate
		if fail {
			return nil, errors.New("the walk failed")
		}
		return &projector.Tree{Program: "cli", Dialect: projector.DialectPflag}, nil
	})
	burst := func() ([]*projector.Tree, []error) {
		gate = make(chan struct{})
		trees, errs := make([]*projector.Tree, 8), make([]error, 8)
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() { trees[i], errs[i] = src(context.Background()) })
		}
		<-started
		// The others reach the flight meanwhile; without the single flight
		// each would start a load of its own. (With it, one arriving after
		// the release finds the cache, or the failure is shared: one load
		// either way, so the pause only makes the test fail surely without
		// the fix.)
		time.Sleep(50 * time.Millisecond)
		close(gate)
		wg.Wait()
		for len(started) > 0 {
			<-started
		}
		return trees, errs
	}
	trees, errs := burst()
	for i := range trees {
		if errs[i] != nil || trees[i] != trees[0] {
			t.Fatalf("request %d: %p, %v; want the one tree", i, trees[i], errs[i])
		}
	}
	if n := loads.Load(); n != 1 {
		t.Errorf("%d loads for 8 concurrent requests of one change; want 1", n)
	}

	fail = true
	if err := os.WriteFile(path, []byte("v2 longer"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, errs = burst()
	for i, err := range errs {
		if err == nil {
			t.Errorf("request %d: no error from the failed load", i)
		}
	}
	if n := loads.Load(); n != 2 {
		t.Errorf("%d loads after a change that failed for 8 requests; want 2", n)
	}
	fail = false
	if _, err := src(context.Background()); err != nil || loads.Load() != 3 {
		t.Errorf("after a failed load: %v, %d loads; want a new load", err, loads.Load())
	}
}

// A waiter whose leader's caller went away loads in its place; a waiter
// whose own context ends stops waiting.
func TestCacheByFileLeaderCancelled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cli")
	if err := os.WriteFile(path, []byte("v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	var loads atomic.Int32
	started := make(chan struct{}, 4)
	src := CacheByFile(path, func(ctx context.Context) (*projector.Tree, error) {
		if loads.Add(1) == 1 {
			started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return &projector.Tree{Program: "cli"}, nil
	})
	leaderCtx, cancelLeader := context.WithCancel(context.Background())
	leader := make(chan error, 1)
	go func() { _, err := src(leaderCtx); leader <- err }()
	<-started
	waiterCtx, cancelWaiter := context.WithCancel(context.Background())
	cancelWaiter()
	if _, err := src(waiterCtx); !errors.Is(err, context.Canceled) {
		t.Errorf("a waiter whose context ended: %v; want context.Canceled", err)
	}
	waiter := make(chan error, 1)
	go func() { _, err := src(context.Background()); waiter <- err }()
	cancelLeader()
	if err := <-leader; !errors.Is(err, context.Canceled) {
		t.Errorf("leader: %v", err)
	}
	if err := <-waiter; err != nil {
		t.Errorf("the waiter got its cancelled leader's failure: %v", err)
	}
}
