//go:build unix

package notify_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/notify"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
)

// Notify URLs are loopback only, checked when a run is submitted.
func ExampleCheckURL() {
	for _, u := range []string{"http://127.0.0.1:8080/limcp", "http://example.com/limcp"} {
		fmt.Println(u, notify.CheckURL(u))
	}
	// Output:
	// http://127.0.0.1:8080/limcp <nil>
	// http://example.com/limcp host "example.com" is not loopback: a notify URL must be on this machine (localhost, 127.0.0.0/8 or [::1])
}

// A run's setting: the flag, else $LIMCP_NOTIFY_URL, else config.yaml;
// the policy from config.yaml.
func ExampleResolve() {
	home, _ := os.MkdirTemp("", "limcp-example-")
	defer os.RemoveAll(home)
	os.WriteFile(filepath.Join(home, notify.ConfigFile), []byte("notify:\n  url: http://127.0.0.1:7000/default\n  timeout: 3s\n"), 0o600)
	env := func(k string) string {
		if k == notify.EnvURL {
			return "http://127.0.0.1:7001/from-env"
		}
		return ""
	}
	n, _ := notify.Resolve(home, notify.PerRun{}, env)
	fmt.Println(n.URL, n.Timeout, n.MaxAttempts)
	n, _ = notify.Resolve(home, notify.PerRun{URL: "http://localhost:7002/flag"}, env)
	fmt.Println(n.URL)
	n, _ = notify.Resolve(home, notify.PerRun{}, func(string) string { return "" })
	fmt.Println(n.URL)
	_, err := notify.Resolve(home, notify.PerRun{URL: "http://10.1.2.3/"}, env)
	fmt.Println(err)
	// Output:
	// http://127.0.0.1:7001/from-env 3s 3
	// http://localhost:7002/flag
	// http://127.0.0.1:7000/default
	// --notify-url "http://10.1.2.3/": host "10.1.2.3" is not loopback: a notify URL must be on this machine (localhost, 127.0.0.0/8 or [::1])
}

// Deliver announces a record's end on each channel of its setting and
// records the outcome; the body is the record as `job status` prints it.
func ExampleDeliverer_Deliver() {
	ctx := context.Background()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rec store.StatusRecord
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &rec)
		fmt.Println("received:", rec.Status, rec.ReasonCode, rec.Terminal)
	}))
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "limcp-example-")
	defer os.RemoveAll(dir)
	st, _ := store.Open(ctx, filepath.Join(dir, "state.db"), store.Options{})
	defer st.Close()

	recs, _ := st.Create(ctx, store.CreateOptions{}, store.NewRecord{Kind: store.KindInvocation,
		Notify: store.Notify{URL: srv.URL + "/limcp", Timeout: 5 * time.Second, MaxAttempts: 3}})
	r, _ := st.Transition(ctx, store.Change{ID: recs[0].ID, Version: recs[0].Version, To: store.StatusCancelled, Reason: "run.cancelled.manual_kill"})
	ds, _ := st.Deliveries(ctx, r.ID)
	fmt.Println("after the end:", ds[0].Channel, ds[0].State)

	ds, err := (&notify.Deliverer{Store: st}).Deliver(ctx, r.ID)
	fmt.Println("after delivery:", ds[0].State, ds[0].Attempts, err)
	// Output:
	// after the end: url pending
	// received: cancelled run.cancelled.manual_kill true
	// after delivery: delivered 1 <nil>
}

func ExampleBackoff() {
	for n := 1; n <= 4; n++ {
		fmt.Print(notify.Backoff(n), " ")
	}
	fmt.Println()
	// Output: 500ms 1s 2s 4s
}
