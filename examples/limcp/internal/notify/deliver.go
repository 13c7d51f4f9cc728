//go:build unix

package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/runenv"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
	"github.com/verbsurface/verbsurface/internal/procid"
)

// LeaseSlack is how long past an attempt's timeout its claim is held: a
// claimant alive enough to finish its attempt records the outcome well
// within it, so a lapsed lease means the claimant is gone.
const LeaseSlack = 10 * time.Second

// Backoff is the default wait after failed attempt n (1-based) before the
// next: 500ms, 1s, 2s, ... capped at 30s.
func Backoff(n int) time.Duration {
	d := 500 * time.Millisecond
	for i := 1; i < n && d < 30*time.Second; i++ {
		d *= 2
	}
	if d > 30*time.Second {
		d = 30 * time.Second
	}
	return d
}

// Deliverer delivers the pending notifications of ended records. Store is
// required; the CLI also sets Home; the zero value of every other field is
// right.
type Deliverer struct {
	Store *store.Store
	// Home is the state home: the notify command's working directory and
	// $LIMCP_HOME ("" → the current directory, no $LIMCP_HOME).
	Home string
	// Claimant names this deliverer in the store (""→ "PID:START_TIME" of
	// this process).
	Claimant string
	// Backoff replaces the default Backoff.
	Backoff func(attempt int) time.Duration
	// Client replaces LoopbackClient() (tests).
	Client *http.Client
}

// Deliver delivers every channel of record id whose delivery is open,
// concurrently, and returns the deliveries as they stand after. For each
// channel it loops: claim the next attempt ([store.Store.ClaimDelivery]);
// if nothing is claimable (finished, held by another claimant, or a retry
// not yet due that this deliverer did not schedule) stop; else build the
// body, attempt once under the setting's timeout, record the outcome
// ([store.Store.RecordAttempt]); if it is to be retried, sleep until the
// retry is due and loop. A claim lost to a takeover stops the channel and
// its outcome is discarded.
//
// Deliver never touches the record: a notification that fails, hangs or is
// never delivered leaves the run's end exactly as it was recorded.
func (d *Deliverer) Deliver(ctx context.Context, id string) ([]store.Delivery, error) {
	rec, err := d.Store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	ds, err := d.Store.Deliveries(ctx, id)
	if err != nil {
		return nil, err
	}
	claimant := d.Claimant
	if claimant == "" {
		claimant = selfClaimant()
	}
	out := make([]store.Delivery, len(ds))
	errs := make([]error, len(ds))
	var wg sync.WaitGroup
	for i, dl := range ds {
		wg.Add(1)
		go func(i int, ch string) {
			defer wg.Done()
			out[i], errs[i] = d.channel(ctx, rec, ch, claimant)
		}(i, dl.Channel)
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

func (d *Deliverer) channel(ctx context.Context, rec store.Record, ch, claimant string) (store.Delivery, error) {
	lease := rec.Notify.Timeout + LeaseSlack
	scheduled := false // this deliverer recorded the retry now waited for
	for {
		c, ok, err := d.Store.ClaimDelivery(ctx, rec.ID, ch, claimant, lease)
		if err != nil {
			return c, err
		}
		if !ok {
			if scheduled && c.State == store.DeliveryRetrying {
				if err := sleepUntil(ctx, c.NextAt); err != nil {
					return c, err
				}
				continue
			}
			return c, nil
		}
		attemptErr := d.attempt(ctx, rec, c)
		a := store.Attempt{Delivered: attemptErr == nil}
		if attemptErr != nil {
			a.Error = attemptErr.Error()
			backoff := d.Backoff
			if backoff == nil {
				backoff = Backoff
			}
			a.RetryAfter = backoff(c.Attempts)
		}
		after, err := d.Store.RecordAttempt(context.WithoutCancel(ctx), c, a)
		if errors.Is(err, store.ErrClaimLost) {
			return after, nil
		}
		if err != nil || after.State != store.DeliveryRetrying {
			return after, err
		}
		scheduled = true
		if err := sleepUntil(ctx, after.NextAt); err != nil {
			return after, err
		}
	}
}

// attempt makes one attempt of claimed delivery c.
func (d *Deliverer) attempt(ctx context.Context, rec store.Record, c store.Delivery) error {
	body, err := Body(ctx, d.Store, rec.ID)
	if err != nil {
		return fmt.Errorf("building the body: %v", err)
	}
	switch c.Channel {
	case store.ChannelURL:
		client := d.Client
		if client == nil {
			client = LoopbackClient()
		}
		return post(ctx, client, rec.Notify.URL, body, rec.Notify.Timeout)
	case store.ChannelCommand:
		// A notify command is the operator's, but it runs on a run's end
		// and sees the environment rule (package runenv) like the run.
		env := append(runenv.Build(os.Environ()),
			"LIMCP_NOTIFY_ID="+rec.ID,
			"LIMCP_NOTIFY_STATUS="+string(rec.Status),
			"LIMCP_NOTIFY_ATTEMPT="+strconv.Itoa(c.Attempts))
		if d.Home != "" {
			env = append(env, "LIMCP_HOME="+d.Home)
		}
		return runCommand(rec.Notify.Command, env, d.Home, body, rec.Notify.Timeout)
	}
	return fmt.Errorf("unknown channel %q", c.Channel)
}

// Body is what a notification carries: the record as `job status --json`
// prints it (a [store.StatusRecord], its deliveries as they stand when the
// attempt begins, this one attempting), as one JSON object.
func Body(ctx context.Context, st *store.Store, id string) ([]byte, error) {
	rec, err := st.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	sr, err := st.Status(ctx, rec)
	if err != nil {
		return nil, err
	}
	return json.Marshal(sr)
}

func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// selfClaimant names this process as a claimant: pid and start time, so a
// reused pid is a different claimant.
func selfClaimant() string {
	id, err := procid.Of(os.Getpid())
	if err != nil {
		return strconv.Itoa(os.Getpid())
	}
	return fmt.Sprintf("%d:%d", id.PID, id.StartTime)
}
