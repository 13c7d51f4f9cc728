package verbsurface

import (
	"context"
	"fmt"
)

// Policy sees every op after its args validated and its path arguments
// were confined to the roots, and before anything runs,
// and may refuse it: a non-nil error refuses the op with code
// policy_refused, the error's text being the reason. Because every call
// reaches the same tool, tool-name-keyed permission layers see no signal;
// a Policy keys on the verb, its class and the args themselves.
//
// A Policy must not modify op.Args; what runs is a copy taken before the
// policy is called, so a change would have no effect anyway.
type Policy func(ctx context.Context, op PolicyOp) error

// PolicyOp is what a [Policy] judges.
type PolicyOp struct {
	Verb  string
	Class Class
	// Args are validated, numbers as decoded (json.Number), and each path
	// argument ([Verb.PathParams], projector.Param.Path) is the real path
	// of what was opened inside a root, never the caller's spelling of it.
	Args map[string]any
}

// ReadOnly admits only observe verbs: nothing is started, changed or
// killed through a surface that uses it.
//
// It judges verbs by class; it does not make an observe verb's command
// free of writes. An observe command may still record what it observes as
// part of the CLI's own lifecycle: the observe command behind job.wait
// (limcp's job observe, for instance) may record the end of a run whose
// process is gone, the fenced reap. That is
// the lifecycle's own bookkeeping, the same record any reader would make,
// not a change a caller chose; and a CLI that must not write at all (no
// store on an empty home) has to arrange that in the commands themselves.
func ReadOnly(_ context.Context, op PolicyOp) error {
	if op.Class != ClassObserve {
		return fmt.Errorf("this surface is read-only: %s is a %s verb and only observe verbs may run", op.Verb, op.Class)
	}
	return nil
}
