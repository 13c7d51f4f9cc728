//go:build unix

package verbsurface

import (
	"context"
	"fmt"

	"github.com/verbsurface/verbsurface/kill"
)

// KillHandler is a job.kill [Handler] over kill.CLI: the generic
// delegated kill (a status lookup when k.Status is set, kill.Decide, the
// CLI's own kill with --grace, never a raw signal). Register it on a
// control verb whose Path is the CLI's kill command, so the schema is
// that command's projection: its args are "id" and, optionally, "grace"
// (a positive Go duration; anything else is invalid_args on grace). When
// k.Runner is nil the status command (and the kill, without KillRunner)
// runs through [Call].Runner. A control op runs without the request's
// cancellation, so a client that goes away cannot leave a half-done kill. Unix only, like package kill.
func KillHandler(k kill.CLI) Handler {
	return func(ctx context.Context, call *Call) (any, error) {
		id, _ := call.Args["id"].(string)
		grace, err := kill.ParseGrace(call.Args)
		if err != nil {
			return nil, err
		}
		kk := k
		if kk.Runner == nil {
			if call.Runner == nil {
				return nil, &jobError{code: CodeInternalError, msg: fmt.Sprintf("verbsurface: verb %q: no runner to run the CLI's kill", call.Verb)}
			}
			kk.Runner = call.Runner
		}
		res, err := kk.Run(ctx, id, grace)
		if err != nil {
			return nil, err
		}
		return res, nil
	}
}
