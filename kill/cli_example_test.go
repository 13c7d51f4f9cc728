//go:build unix

package kill_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/verbsurface/verbsurface/kill"
)

// A CLI with a status command and a kill command of its own is killed with
// no code of its own: CLI looks the record up, lets Decide choose, and
// delegates to the CLI's kill. Nothing is ever signalled by the caller.
func ExampleCLI() {
	cli := kill.RunnerFunc(func(_ context.Context, argv []string) (json.RawMessage, error) {
		fmt.Println("runs: mycli", argv)
		if slices.Contains(argv, "status") {
			return json.RawMessage(`{"records":[{"id":"inv-0123456789","kind":"invocation"}]}`), nil
		}
		return json.RawMessage(`{"reaped":[{"kind":"invocation","id":"inv-0123456789"}]}`), nil
	})
	k := kill.CLI{Runner: cli, Status: []string{"status", "--json"}, Kill: []string{"kill", "--json"}}
	res, err := k.Run(context.Background(), "inv-0123", 2*time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Decision.Action, res.Decision.Rule, res.Delegated.OK)
	// Output:
	// runs: mycli [status --json -- inv-0123]
	// runs: mycli [kill --json --grace=2s -- inv-0123456789]
	// delegate entity true
}
