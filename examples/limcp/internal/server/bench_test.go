//go:build unix

package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/wait"
)

// BenchmarkDecodeObservations: reading one poll's `job observe` data for
// 16 ids, the server's only per-poll work besides the subprocess.
func BenchmarkDecodeObservations(b *testing.B) {
	var obs []string
	for i := range 16 {
		obs = append(obs, fmt.Sprintf(`{"id":"%016x","kind":"invocation","label":"echo","status":"running","terminal":false,"reason_code":"run.running.started","phase":"started","phase_entered_at":"2026-11-30T04:28:30.352579885Z","process":"alive","end_recorded":false,"publish_failed":false,"possibly_orphaned":false}`, i))
	}
	data := json.RawMessage(`{"observations":[` + strings.Join(obs, ",") + `]}`)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if o, err := wait.DecodeObservations(data); err != nil || len(o) != 16 {
			b.Fatal(o, err)
		}
	}
}

// BenchmarkWakeHubSignal: one change signal fanned out to 100 waits.
func BenchmarkWakeHubSignal(b *testing.B) {
	h := newWakeHub()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for range 100 {
		ch := h.subscribe(ctx, time.Nanosecond)
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-ch:
				}
			}
		}()
	}
	for h.subscribers() < 100 {
		time.Sleep(time.Millisecond)
	}
	for b.Loop() {
		h.signal()
	}
}
