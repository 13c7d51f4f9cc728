//go:build unix

package kill_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/verbsurface/verbsurface/kill"
)

// A surface wires the Killer to its runner (package dispatch, running the
// CLI as a subprocess). Here a stand-in runner answers as the reference
// CLI's kill would.
func ExampleKiller_Kill() {
	runner := kill.RunnerFunc(func(ctx context.Context, argv []string) (json.RawMessage, error) {
		fmt.Println("runs: limcp", argv)
		return json.RawMessage(`{"reaped":[{"kind":"play","id":"p-7","reason_code":"run.cancelled.manual_kill"}]}`), nil
	})
	ex := kill.NewKiller(runner, &kill.Options{Grace: 3 * time.Second})

	res, err := ex.Kill(context.Background(), kill.Record{Kind: kill.KindPlay, ID: "p-7"})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	enc := json.NewEncoder(os.Stdout)
	enc.Encode(res.Decision.Action)
	enc.Encode(res.Delegated)

	// A show-level record is refused, and the runner is not called.
	_, err = ex.Kill(context.Background(), kill.Record{Kind: kill.KindShow, ID: "sh-1"})
	var kerr *kill.Error
	if errors.As(err, &kerr) {
		fmt.Println(kerr.ErrorCode())
	}
	// Output:
	// runs: limcp [kill --json --grace=3s -- p-7]
	// "delegate"
	// {"argv":["kill","--json","--grace=3s","--","p-7"],"ok":true,"data":{"reaped":[{"kind":"play","id":"p-7","reason_code":"run.cancelled.manual_kill"}]}}
	// show_kill_unsupported
}

func ExampleReferenceArgv() {
	fmt.Println(kill.ReferenceArgv(kill.Entity{Kind: kill.KindSession, ID: "s-1"}, 0))
	fmt.Println(kill.ReferenceArgv(kill.Entity{Kind: kill.KindPlay, ID: "-p"}, 2*time.Second))
	// Output:
	// [kill --json -- s-1]
	// [kill --json --grace=2s -- -p]
}
