//go:build unix

package notify

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
	"github.com/verbsurface/verbsurface/internal/procid"
)

func filepathLook(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", err
	}
	return filepath.Abs(p)
}

func shell(t *testing.T) string {
	t.Helper()
	sh, err := filepathLook("sh")
	if err != nil {
		t.Skip("no sh")
	}
	return sh
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// ended creates a record with setting n and ends it (completed).
func ended(t *testing.T, st *store.Store, n store.Notify) store.Record {
	t.Helper()
	ctx := context.Background()
	recs, err := st.Create(ctx, store.CreateOptions{}, store.NewRecord{Kind: store.KindInvocation, Label: "t", Notify: n})
	if err != nil {
		t.Fatal(err)
	}
	r, err := st.Transition(ctx, store.Change{ID: recs[0].ID, Version: recs[0].Version, To: store.StatusCompleted, Reason: "run.completed.exit_0"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func fastBackoff(int) time.Duration { return 20 * time.Millisecond }

// alive reports whether pid is alive (and not a zombie).
func alive(pid int) bool {
	st, err := procid.ReadStat(pid)
	return err == nil && st.State != 'Z' && st.State != 'X'
}

func TestRunCommand(t *testing.T) {
	sh := shell(t)
	dir := t.TempDir()
	t.Run("exit 0 is a delivery and the body is on stdin", func(t *testing.T) {
		out := filepath.Join(dir, "stdin")
		if err := runCommand([]string{sh, "-c", "cat > " + out}, os.Environ(), dir, []byte(`{"id":"x"}`), 5*time.Second); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(out); string(b) != `{"id":"x"}` {
			t.Fatalf("stdin = %q", b)
		}
	})
	t.Run("a non-zero exit fails with the status and the last stderr line", func(t *testing.T) {
		err := runCommand([]string{sh, "-c", "echo first >&2; echo 'receiver down' >&2; exit 3"}, os.Environ(), dir, nil, 5*time.Second)
		if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "receiver down") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a long stderr line is clipped at a character boundary", func(t *testing.T) {
		err := runCommand([]string{sh, "-c", "{ printf x; printf 'é%.0s' $(seq 400); } >&2; exit 1"}, os.Environ(), dir, nil, 5*time.Second)
		checkClipped(t, err)
	})
	t.Run("a command that cannot start fails saying so", func(t *testing.T) {
		err := runCommand([]string{filepath.Join(dir, "absent")}, os.Environ(), dir, nil, time.Second)
		if err == nil || !strings.Contains(err.Error(), "cannot start") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a hanging command is stopped at the timeout with everything it started", func(t *testing.T) {
		pidFile := filepath.Join(dir, "grandchild")
		start := time.Now()
		err := runCommand([]string{sh, "-c", "sleep 60 & echo $! > " + pidFile + "; wait"}, os.Environ(), dir, nil, 300*time.Millisecond)
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("the attempt took %s; the timeout is 300ms", took)
		}
		if err == nil || !strings.Contains(err.Error(), "timed out after 300ms") || !strings.Contains(err.Error(), "process group was killed") {
			t.Fatalf("err = %v", err)
		}
		assertGone(t, pidFile)
	})
	t.Run("what a command leaves running behind it is stopped", func(t *testing.T) {
		pidFile := filepath.Join(dir, "background")
		// The background sleep holds no stdio of ours, so the command exits at once.
		err := runCommand([]string{sh, "-c", "sleep 60 >/dev/null 2>&1 </dev/null & echo $! > " + pidFile}, os.Environ(), dir, nil, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		assertGone(t, pidFile)
	})
}

// checkClipped: a failure quoting a long non-ASCII text keeps the reason
// valid UTF-8 and bounded, marked as cut.
func checkClipped(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	quoted := msg[strings.LastIndex(msg, ": ")+2:]
	if !utf8.ValidString(msg) || !strings.HasSuffix(msg, "…") || len(quoted) > maxReason+len("…") || !strings.HasPrefix(quoted, "xé") {
		t.Fatalf("reason %q (%d bytes quoted): want valid UTF-8, at most %d bytes, ending in …", msg, len(quoted), maxReason)
	}
}

func assertGone(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d survived its notify command", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestPost(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.Store(r.Method + " " + r.Header.Get("Content-Type") + " " + string(b))
		switch r.URL.Path {
		case "/ok":
			w.WriteHeader(http.StatusNoContent)
		case "/moved":
			http.Redirect(w, r, "/ok", http.StatusFound)
		case "/slow":
			time.Sleep(2 * time.Second)
		case "/verbose":
			http.Error(w, "x"+strings.Repeat("é", 400), http.StatusServiceUnavailable)
		default:
			http.Error(w, "no such hook", http.StatusNotFound)
		}
	}))
	defer srv.Close()
	c := LoopbackClient()
	ctx := context.Background()
	if err := post(ctx, c, srv.URL+"/ok", []byte(`{"a":1}`), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if got.Load() != `POST application/json {"a":1}` {
		t.Fatalf("server saw %q", got.Load())
	}
	tests := []struct {
		name, url, want string
	}{
		{"a non-2xx response fails with its status and text", srv.URL + "/nope", "HTTP 404: no such hook"},
		{"a redirect is not followed", srv.URL + "/moved", "HTTP 302 (redirects are not followed)"},
		{"a slow receiver times out", srv.URL + "/slow", "timed out after 200ms"},
		{"the dialer refuses a non-loopback address whatever the URL said", "http://192.0.2.1:9/", "loopback only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := post(ctx, c, tt.url, nil, 200*time.Millisecond)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("post(%s) = %v; want %q", tt.url, err, tt.want)
			}
		})
	}
	t.Run("a long response text is clipped at a character boundary", func(t *testing.T) {
		checkClipped(t, post(ctx, c, srv.URL+"/verbose", nil, 5*time.Second))
	})
	t.Setenv("HTTP_PROXY", "http://192.0.2.1:3128")
	if err := post(ctx, LoopbackClient(), srv.URL+"/ok", nil, 5*time.Second); err != nil {
		t.Fatalf("an environment proxy was used: %v", err)
	}
}

// TestDeliverRetriesThenDelivers: a receiver failing its first request is
// retried after the backoff; the delivery ends delivered with 2 attempts,
// the first failure kept as the last error, and the body is the record as
// job status prints it.
func TestDeliverRetriesThenDelivers(t *testing.T) {
	var calls atomic.Int64
	var body atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if calls.Add(1) == 1 {
			http.Error(w, "warming up", http.StatusServiceUnavailable)
			return
		}
		body.Store(b)
	}))
	defer srv.Close()
	st := openStore(t)
	rec := ended(t, st, store.Notify{URL: srv.URL + "/hook", Timeout: 2 * time.Second, MaxAttempts: 3})
	ds, err := (&Deliverer{Store: st, Backoff: fastBackoff}).Deliver(context.Background(), rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || ds[0].State != store.DeliveryDelivered || ds[0].Attempts != 2 || !strings.Contains(ds[0].LastError, "HTTP 503: warming up") {
		t.Fatalf("deliveries = %+v", ds)
	}
	var sr store.StatusRecord
	if err := json.Unmarshal(body.Load().([]byte), &sr); err != nil {
		t.Fatal(err)
	}
	if sr.ID != rec.ID || sr.Status != store.StatusCompleted || !sr.Terminal || sr.Version != rec.Version || sr.Notify == nil ||
		sr.Notify.Deliveries[0].State != store.DeliveryAttempting || sr.Notify.Deliveries[0].Attempts != 2 {
		t.Fatalf("body = %+v", sr)
	}
	if calls.Load() != 2 {
		t.Fatalf("the receiver was called %d times; want 2", calls.Load())
	}
}

func TestDeliverGivesUpAfterMaxAttempts(t *testing.T) {
	sh := shell(t)
	st := openStore(t)
	counter := filepath.Join(t.TempDir(), "count")
	rec := ended(t, st, store.Notify{Command: []string{sh, "-c", "echo x >> " + counter + "; echo 'no route' >&2; exit 7"}, Timeout: 2 * time.Second, MaxAttempts: 3})
	ds, err := (&Deliverer{Store: st, Backoff: fastBackoff}).Deliver(context.Background(), rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ds[0].State != store.DeliveryFailed || ds[0].Attempts != 3 || !strings.Contains(ds[0].LastError, "exit status 7: no route") {
		t.Fatalf("delivery = %+v", ds[0])
	}
	if b, _ := os.ReadFile(counter); strings.Count(string(b), "x") != 3 {
		t.Fatalf("the command ran %d times; want 3", strings.Count(string(b), "x"))
	}
	// A later deliverer finds nothing to do.
	again, _ := (&Deliverer{Store: st, Backoff: fastBackoff}).Deliver(context.Background(), rec.ID)
	if b, _ := os.ReadFile(counter); strings.Count(string(b), "x") != 3 || again[0].State != store.DeliveryFailed {
		t.Fatal("a failed delivery was attempted again")
	}
}

// TestConcurrentDeliverersDeliverOnce: many deliverers (as if several
// processes were launched for one end) deliver each channel exactly once.
func TestConcurrentDeliverersDeliverOnce(t *testing.T) {
	sh := shell(t)
	var posts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { posts.Add(1) }))
	defer srv.Close()
	st := openStore(t)
	st.DB().SetMaxOpenConns(16)
	counter := filepath.Join(t.TempDir(), "count")
	rec := ended(t, st, store.Notify{URL: srv.URL, Command: []string{sh, "-c", "echo x >> " + counter}, Timeout: 5 * time.Second, MaxAttempts: 2})
	var wg sync.WaitGroup
	for i := 0; i < 12; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			d := &Deliverer{Store: st, Claimant: "deliverer-" + strconv.Itoa(i)}
			if _, err := d.Deliver(context.Background(), rec.ID); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	// Losers return at once; the winner may still be recording: wait for it.
	deadline := time.Now().Add(10 * time.Second)
	for {
		ds, _ := st.Deliveries(context.Background(), rec.ID)
		if ds[0].State.Final() && ds[1].State.Final() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries never finished: %+v", ds)
		}
		time.Sleep(20 * time.Millisecond)
	}
	b, _ := os.ReadFile(counter)
	if posts.Load() != 1 || strings.Count(string(b), "x") != 1 {
		t.Fatalf("%d POSTs and %d command runs; want exactly one each", posts.Load(), strings.Count(string(b), "x"))
	}
}

func TestSweepLaunchesOnlyForStaleDeliveries(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	past := func() time.Time { return time.Now().Add(-time.Minute) }
	old, err := store.Open(ctx, path, store.Options{Now: past})
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	stale := ended(t, old, store.Notify{URL: "http://127.0.0.1:9/", Timeout: time.Second, MaxAttempts: 1})
	st, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ended(t, st, store.Notify{URL: "http://127.0.0.1:9/", Timeout: time.Second, MaxAttempts: 1}) // fresh: its own launch is under way
	var launched []string
	ids, err := Sweep(ctx, st, func(ids ...string) error { launched = append(launched, ids...); return nil })
	if err != nil || len(ids) != 1 || ids[0] != stale.ID || len(launched) != 1 || launched[0] != stale.ID {
		t.Fatalf("Sweep = %v, %v; launched %v; want only %s", ids, err, launched, stale.ID)
	}
}

func TestBackoffDoublesAndIsCapped(t *testing.T) {
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}
	for i, w := range want {
		if got := Backoff(i + 1); got != w {
			t.Errorf("Backoff(%d) = %s; want %s", i+1, got, w)
		}
	}
	if got := Backoff(40); got != 30*time.Second {
		t.Errorf("Backoff(40) = %s; want the 30s cap", got)
	}
}
