package machine

import (
	"errors"
	"fmt"
)

// Code is one of the closed set of limcp error codes.
type Code string

// The closed set of error codes. Details, when present, are documented per code.
const (
	// UsageError: the command line did not parse (unknown command or flag,
	// wrong number of arguments, a flag value of the wrong type, a missing
	// required flag). Details: {"command": "limcp job status"}, and
	// "argument": the flag's name when one flag's value was refused (its
	// type did not parse it, or it needs a value).
	UsageError Code = "usage_error"
	// InvalidArgument: the command line parsed but a value is not acceptable
	// (a prompt and a prompt file together, a negative count, an unreadable
	// prompt file). Details: {"argument": NAME}.
	InvalidArgument Code = "invalid_argument"
	// UnknownID: no record has this id or id prefix (or the prefix is
	// shorter than 8 characters). Details: {"id": ID}.
	UnknownID Code = "unknown_id"
	// AmbiguousID: the prefix matches more than one record; never resolved
	// to the first match. Details: {"id": PREFIX, "candidates": [ID...]}.
	AmbiguousID Code = "ambiguous_id"
	// PlaybookNotFound: no NAME.playbook.yaml under the home's playbooks/.
	// Details: {"playbook": NAME, "file": PATH}.
	PlaybookNotFound Code = "playbook_not_found"
	// InvalidPlaybook: the playbook file does not parse or breaks a rule.
	// Details: {"file": PATH, "field": "args[1].type"}.
	InvalidPlaybook Code = "invalid_playbook"
	// InvalidFlowSpec: a flow spec file does not parse or breaks a rule.
	// Details: {"file": PATH, "field": "steps[0].depends_on"}.
	InvalidFlowSpec Code = "invalid_flow_spec"
	// InvalidCron: a schedule expression is not a standard 5-field cron
	// expression. Details: {"cron": EXPR}.
	InvalidCron Code = "invalid_cron"
	// ProviderNotFound: a model names no provider, a command provider's
	// executable cannot be found, a preset's program is not on PATH, or
	// providers.yaml disables the preset. Details: {"model": M, "provider":
	// P, "command": C}, with "preset": true for a preset, "disabled": true
	// for a disabled one, "available": [names] when no provider matched.
	ProviderNotFound Code = "provider_not_found"
	// InvalidProviderConfig: providers.yaml does not parse or breaks a rule.
	// Details: {"file": PATH, "field": F}.
	InvalidProviderConfig Code = "invalid_provider_config"
	// InvalidConfig: the state home's config.yaml does not parse or breaks
	// a rule. Details: {"file": PATH, "field": "notify.url"}.
	InvalidConfig Code = "invalid_config"
	// SchemaOutdated: the store was written by an older limcp; run
	// `limcp state migrate`. Details: {"store": PATH, "version": N, "current": M}.
	SchemaOutdated Code = "schema_outdated"
	// SchemaUnsupported: the store was written by a newer limcp.
	// Details: {"store": PATH, "version": N, "current": M}.
	SchemaUnsupported Code = "schema_unsupported"
	// StoreCorrupt: the store file is not a SQLite database or is damaged.
	// Details: {"store": PATH}.
	StoreCorrupt Code = "store_corrupt"
	// StoreBusy: the store stayed locked past the busy timeout.
	// Details: {"store": PATH}.
	StoreBusy Code = "store_busy"
	// StoreError: any other failure reading or writing the store or the
	// state home. Details: {"store": PATH}.
	StoreError Code = "store_error"
	// SpawnFailed: the detached worker could not be started; the record was
	// moved to failed (run.failed.spawn_error). Details: {"id": ID}.
	SpawnFailed Code = "spawn_failed"
	// ShowKillUnsupported: a show groups plays and is never killed as a
	// whole; kill its plays. Details: {"id": ID, "plays": [ID...]}.
	ShowKillUnsupported Code = "show_kill_unsupported"
	// KillPartial: some entity of a kill (possibly every one) could not be
	// stopped; those are left as they were. Details: the kill report
	// ({"target", "grace", "reaped", "not_reaped", "already_ended"}),
	// listing every entity.
	KillPartial Code = "kill_partial"
	// UnknownSchedule: no schedule has this name. Details: {"schedule": NAME}.
	UnknownSchedule Code = "unknown_schedule"
	// UnknownTeam: no team has this name. Details: {"team": NAME}.
	UnknownTeam Code = "unknown_team"
	// AlreadyExists: a schedule or team with this name exists, or (limcp
	// mcp install) the MCP client already has a server of this name.
	// Details: {"name": NAME}; for install also "client", "scope" and
	// "replaceable" (whether --force would replace it).
	AlreadyExists Code = "already_exists"
	// WaitFailed: `job wait` could not observe (the whole observation failed).
	WaitFailed Code = "wait_failed"
	// LimitReached: a bound of the state home is reached (package quota:
	// its schedules, the rendered bytes of one run, the run data of the
	// home); nothing was written. Details: {"limit": "schedules" |
	// "run_bytes" | "home_bytes", "max": N, "used": M}.
	LimitReached Code = "limit_reached"
	// InventoryFailed: `limcp inventory --argparse` could not obtain the
	// parser: Python is missing, the module does not import, the factory
	// fails or returns something that is not a parser.
	// Details: {"target": "MODULE:FUNCTION", "kind": "import"}.
	InventoryFailed Code = "inventory_failed"
	// ClientFailed: (mcp install) the MCP client's own program failed, or
	// answered in a way the installer does not recognise; the message
	// carries its answer and the lines to run by hand.
	// Details: {"client": NAME}.
	ClientFailed Code = "client_failed"
	// Internal: a bug or an unexpected environment failure. The message says what.
	Internal Code = "internal_error"
)

// Codes lists the closed set, in documentation order.
var Codes = []Code{
	UsageError, InvalidArgument, UnknownID, AmbiguousID, PlaybookNotFound,
	InvalidPlaybook, InvalidFlowSpec, InvalidCron, ProviderNotFound,
	InvalidProviderConfig, InvalidConfig, SchemaOutdated, SchemaUnsupported, StoreCorrupt,
	StoreBusy, StoreError, SpawnFailed, ShowKillUnsupported, KillPartial,
	UnknownSchedule, UnknownTeam, AlreadyExists, LimitReached, WaitFailed, InventoryFailed, ClientFailed, Internal,
}

// Error is a limcp failure as a machine caller sees it. It is also a Go
// error, so packages return it up to the CLI unchanged.
type Error struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// ErrorCode returns the code (the interface consumers match on, contract C3).
func (e *Error) ErrorCode() string { return string(e.Code) }

// ErrorDetails returns the details as a map when they are one.
func (e *Error) ErrorDetails() map[string]any {
	if m, ok := e.Details.(map[string]any); ok {
		return m
	}
	if e.Details == nil {
		return nil
	}
	return map[string]any{"details": e.Details}
}

// Errorf builds an *Error with a formatted message.
func Errorf(code Code, details any, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Details: details}
}

// As returns err as an *Error when it is (or wraps) one.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}
