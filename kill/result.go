//go:build unix

package kill

import (
	"encoding/json"
	"fmt"
)

// Result is the result of a job.kill op: the decision taken and its outcome.
// Exactly one outcome is present, according to Decision.Action:
//
//   - delegate: Delegated, the CLI's own kill outcome, unchanged;
//   - signal_group: Signalled, what [SignalGroup] did;
//   - refuse: neither; Decision.Refusal carries the code and message.
//
// Its JSON form, for a delegated kill that succeeded (Data is whatever the
// CLI's kill printed as its machine result's data):
//
//	{"decision": {"action": "delegate", "rule": "entity", "reason": "...",
//	              "entity": {"kind": "play", "id": "p-1"}},
//	 "delegated": {"argv": ["kill", "--json", "--", "p-1"], "ok": true,
//	               "data": {...}}}
//
// job.kill is a control verb and is exempt from the fingerprint that spawn
// ops must carry: gating an emergency stop behind a discovery
// round-trip costs something real. Enforcing that exemption is the
// surface's business; nothing here reads or checks a fingerprint.
type Result struct {
	Decision  Decision      `json:"decision"`
	Delegated *Delegated    `json:"delegated,omitempty"`
	Signalled *GroupOutcome `json:"signalled,omitempty"`
}

// Delegated is the outcome of the CLI's kill, as the runner returned it.
type Delegated struct {
	Argv []string `json:"argv"` // what was run, without the program
	OK   bool     `json:"ok"`
	// Data is the data of the CLI's ok machine result, byte for byte.
	Data json.RawMessage `json:"data,omitempty"`
	// Error is the runner's failure: its code and details unchanged. A
	// failure the CLI itself reported (a refused or partial reap) has code
	// "cli_error" and details {"code", "message", "details"} as the CLI
	// printed them; a timeout has code "timeout"; and so on.
	Error *Failure `json:"error,omitempty"`
}

// Failure is a coded failure, the shape of a runner error.
type Failure struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

// Error codes of [Error] beyond the refusal codes and the runner's own codes
// (which a failed delegation passes through unchanged).
const (
	// CodeDelegationFailed: the delegation could not be attempted or its
	// failure was not coded: no runner, an empty kill argv, or a runner
	// error without an ErrorCode method (a breach of the runner contract).
	CodeDelegationFailed = "delegation_failed"
	// CodeLeaderMismatch: the group's leader pid was reused; nothing was
	// signalled (status identity_mismatch).
	CodeLeaderMismatch = "leader_identity_mismatch"
	// CodeLeaderGone: the leader has exited and the group still has
	// members that cannot be proven to be the recorded group's; nothing was
	// signalled (status leader_gone).
	CodeLeaderGone = "group_leader_gone"
	// CodeGroupSurvivors: members of the group survived the signals
	// (status survivors).
	CodeGroupSurvivors = "group_survivors"
	// CodeSignalFailed: SignalGroup failed (status error).
	CodeSignalFailed = "signal_failed"
)

// Error is returned by [Killer.Kill] when the kill did not stop its
// target: a refusal, a failed delegation, or a group that was not (fully)
// signalled. Like a runner error it has ErrorCode and
// ErrorDetails, so a surface can put it in an envelope without knowing this
// package, and ErrorMessage: the sentence without this package's prefix,
// for a caller who asked for a kill and never saw this package.
type Error struct {
	Code    string
	Message string         // a sentence naming the record and what happened
	Details map[string]any // for a delegation, the runner's details unchanged
	Err     error          // the underlying error, if any
}

func (e *Error) Error() string                { return "kill: " + e.Message }
func (e *Error) ErrorMessage() string         { return e.Message }
func (e *Error) ErrorCode() string            { return e.Code }
func (e *Error) ErrorDetails() map[string]any { return e.Details }
func (e *Error) Unwrap() error                { return e.Err }

// groupError maps a group outcome that did not stop the group to an *Error;
// nil for reaped and already_gone.
func groupError(o GroupOutcome, err error) error {
	code := ""
	switch o.Status {
	case GroupStatusReaped, GroupStatusAlreadyGone:
		return nil
	case GroupStatusIdentityMismatch:
		code = CodeLeaderMismatch
	case GroupStatusLeaderGone:
		code = CodeLeaderGone
	case GroupStatusSurvivors:
		code = CodeGroupSurvivors
	default:
		code = CodeSignalFailed
	}
	return &Error{
		Code:    code,
		Message: fmt.Sprintf("process group %d: %s", o.PGID, o.Reason),
		Details: map[string]any{"pgid": o.PGID, "status": string(o.Status), "survivors": o.Survivors},
		Err:     err,
	}
}
