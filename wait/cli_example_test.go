package wait_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/verbsurface/verbsurface/wait"
)

// runner stands in for dispatch.Runner (the CLI as a subprocess): it
// answers `jobs observe --json -- IDS...` with one finished run.
type runner func(ctx context.Context, argv []string) (json.RawMessage, error)

func (r runner) Run(ctx context.Context, argv []string) (json.RawMessage, error) { return r(ctx, argv) }

// A CLI whose observe command prints {"observations": [...]} is waited on
// with no code of its own: CLIObserver runs the command for every id of a
// poll, and Wait partitions the answer.
func ExampleCLIObserver() {
	cli := runner(func(_ context.Context, argv []string) (json.RawMessage, error) {
		fmt.Println("runs: mycli", argv)
		return json.RawMessage(`{"observations":[{"id":"r1","status":"done","terminal":true}]}`), nil
	})
	req, _ := wait.ParseArgs(map[string]any{"ids": []any{"r1"}, "max_wait_seconds": 10.0})
	req.Opts.Outcomes = wait.OutcomeTable{"done": wait.OutcomeSucceeded, "crashed": wait.OutcomeFailed}
	obs := wait.CLIObserver{Runner: cli, Command: []string{"jobs", "observe", "--json"}}
	res, err := wait.Wait(context.Background(), obs, req.IDs, &req.Opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.AllTerminal, res.Entries[0].Outcome)
	// Output:
	// runs: mycli [jobs observe --json -- r1]
	// true succeeded
}
