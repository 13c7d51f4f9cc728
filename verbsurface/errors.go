package verbsurface

import (
	"context"
	"errors"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// Error codes: the closed set an op, help or request error carries, each
// documented here with what it means and what the caller does next. Every
// error object has a code, a one-sentence message and the members its code
// names; errors about an op's arguments or fingerprint also carry the
// verb's schema, its current schema_fingerprint and help_call, the exact
// request that fetches them.
const (
	// Envelope and request.

	// CodeMalformedEnvelope (malformed_envelope): the request is not a valid
	// envelope (not an object, unknown key, neither ops nor help, a wrongly
	// typed member); problems lists every defect, schema is the envelope's;
	// nothing ran.
	CodeMalformedEnvelope = "malformed_envelope"

	// CodeBatchTooLarge (batch_too_large): more ops than the cap; limit names
	// it; nothing ran. Split the batch.
	CodeBatchTooLarge = "batch_too_large"

	// CodeResponseTooLarge (response_too_large): the op ran, but its result
	// (or its error, even cut to excerpts: details.code is its code) would
	// take the response past Options.MaxResponseBytes (limit, in bytes). Ask
	// for less, or in a request of its own.
	CodeResponseTooLarge = "response_too_large"

	// CodeRateLimited (rate_limited): a spawn op, or an op of a verb marked
	// Verb.Spawns, over its client's Options.SpawnsPerMinute (limit);
	// nothing started; retry_after says in how many seconds one more is
	// allowed.
	CodeRateLimited = "rate_limited"

	// Naming a verb.

	// CodeUnknownVerb (unknown_verb): no verb of that exact name; matches lists
	// close registered names.
	CodeUnknownVerb = "unknown_verb"

	// CodeNotAllowed (not_allowed): the name denotes a fenced command, a human-
	// at-a-terminal operation never reachable here.
	CodeNotAllowed = "not_allowed"

	// CodeRetiredSynonym (retired_synonym): a v1 name after its sunset; use
	// names the verb.
	CodeRetiredSynonym = "retired_synonym"

	// CodeUnavailableVerb (unavailable_verb): the verb exists but cannot be
	// offered (an unrepresentable parameter, named in param; a group; an
	// unreadable CLI).
	CodeUnavailableVerb = "unavailable_verb"

	// An op's arguments, fingerprint and policy.

	// CodeInvalidArgs (invalid_args): problems lists every problem with the args
	// (including a path outside the roots, rule outside_roots, or unusable, rule
	// unusable_path; a preparer's, a dynamic value's, or a handler's refusal of
	// one argument, and the CLI's own refusal of one it names: rule cli_refused,
	// see CLIArgumentCodes); with schema, schema_fingerprint, help_call.
	CodeInvalidArgs = "invalid_args"

	// CodeMissingFingerprint (missing_fingerprint): a spawn op without
	// fingerprint; with schema, schema_fingerprint, help_call.
	CodeMissingFingerprint = "missing_fingerprint"

	// CodeStaleFingerprint (stale_fingerprint): a spawn op whose fingerprint is
	// not the current schema's; with schema, schema_fingerprint, help_call.
	CodeStaleFingerprint = "stale_fingerprint"

	// CodePolicyRefused (policy_refused): the surface's policy refused the op;
	// the message gives its reason; rule names the Decider's rule that refused
	// or asked, and confirmation, for an op it asked about, why it did not run
	// (declined, cancelled, expired, invalid, unavailable; see "Confirmation").
	CodePolicyRefused = "policy_refused"

	// CodeInsufficientScope (insufficient_scope): the caller's access token
	// does not grant a scope the op's class needs (Options.ClassScopes);
	// scopes names the missing ones. Nothing ran: a token with those scopes,
	// from the authorization server, runs it.
	CodeInsufficientScope = "insufficient_scope"

	// Dispatch failures, passed through from the runner (package dispatch names them the same).

	// CodeLaunchFailed (launch_failed): the CLI could not be started (dispatch).
	CodeLaunchFailed = "launch_failed"

	// CodeAbsentResult (absent_result): the command printed no machine result
	// (dispatch).
	CodeAbsentResult = "absent_result"

	// CodeInvalidResult (invalid_result): the command's output was not a valid
	// machine result (dispatch).
	CodeInvalidResult = "invalid_result"

	// CodeMultipleResults (multiple_results): the command printed more than one
	// JSON value (dispatch).
	CodeMultipleResults = "multiple_results"

	// CodeOutputOverflow (output_overflow): stdout or stderr passed its cap; the
	// process group was killed (dispatch).
	CodeOutputOverflow = "output_overflow"

	// CodeNonzeroExit (nonzero_exit): non-zero exit without a valid error
	// object; details carry the exit code and stderr tail (dispatch).
	CodeNonzeroExit = "nonzero_exit"

	// CodeTimeout (timeout): the command (or a handler) ran out of time; the
	// process group was terminated (dispatch).
	CodeTimeout = "timeout"

	// CodeUnsupportedResultVersion (unsupported_result_version): the machine
	// result's version is not one dispatch reads.
	CodeUnsupportedResultVersion = "unsupported_result_version"

	// Running an op.

	// CodeCancelled (cancelled): the caller cancelled an observe op in flight,
	// or the request before the op started.
	CodeCancelled = "cancelled"

	// CodeCLIError (cli_error): the CLI's own error object, passed through;
	// details hold its code, message and details.
	CodeCLIError = "cli_error"

	// CodeHandlerError (handler_error): a verb's Go handler failed, not about
	// one argument, with its own code kept in details.code.
	CodeHandlerError = "handler_error"

	// CodeInternalError (internal_error): a bug in the embedding program or a
	// projector (a schema outside the projected subset, args that validated but
	// did not render); not the caller's to fix.
	CodeInternalError = "internal_error"
)

// Codes returns the closed set of error codes, in documentation order.
func Codes() []string { return slices.Clone(allCodes) }

var allCodes = []string{
	CodeMalformedEnvelope, CodeBatchTooLarge, CodeResponseTooLarge, CodeRateLimited,
	CodeUnknownVerb, CodeNotAllowed, CodeRetiredSynonym, CodeUnavailableVerb,
	CodeInvalidArgs, CodeMissingFingerprint, CodeStaleFingerprint, CodePolicyRefused, CodeInsufficientScope,
	CodeLaunchFailed, CodeAbsentResult, CodeInvalidResult, CodeMultipleResults, CodeOutputOverflow,
	CodeNonzeroExit, CodeTimeout, CodeUnsupportedResultVersion, CodeCancelled, CodeCLIError,
	CodeHandlerError, CodeInternalError,
}

// passThroughCodes are the codes a runner or handler error may carry
// into an op result unchanged.
var passThroughCodes = map[string]bool{
	CodeLaunchFailed: true, CodeAbsentResult: true, CodeInvalidResult: true, CodeMultipleResults: true,
	CodeOutputOverflow: true, CodeNonzeroExit: true, CodeTimeout: true, CodeUnsupportedResultVersion: true,
	CodeCancelled: true, CodeCLIError: true,
}

// ErrorObject is the "error" member of a failed op, help or request.
type ErrorObject struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Problems lists every argument problem (invalid_args) or envelope
	// problem (malformed_envelope).
	Problems []Problem `json:"problems,omitempty"`
	// Matches are close registered verb names (unknown_verb).
	Matches []string `json:"matches,omitempty"`
	// Use names the verb that replaces a retired synonym (retired_synonym).
	Use string `json:"use,omitempty"`
	// Param names the parameter that makes a verb unavailable
	// (unavailable_verb), when one is to blame.
	Param string `json:"param,omitempty"`
	// Limit is the cap that was reached: the batch cap (batch_too_large),
	// the response cap in bytes (response_too_large), the spawns a
	// client may start per minute (rate_limited).
	Limit int `json:"limit,omitempty"`
	// RetryAfter is how many seconds to wait before the op can succeed
	// (rate_limited).
	RetryAfter int `json:"retry_after,omitempty"`
	// Details carries a dispatch failure's or the CLI's own details.
	Details map[string]any `json:"details,omitempty"`
	// Schema, SchemaFingerprint and HelpCall accompany every error about
	// an op's arguments or fingerprint, so recovery is one step. For a
	// malformed envelope, Schema is the envelope's.
	Schema            *jsonschema.Schema `json:"schema,omitempty"`
	SchemaFingerprint string             `json:"schema_fingerprint,omitempty"`
	HelpCall          any                `json:"help_call,omitempty"`
	// Scopes names the scopes the caller's token lacks
	// (insufficient_scope).
	Scopes []string `json:"scopes,omitempty"`
	// Rule names the policy rule that refused the op or asked about it
	// (policy_refused from an [Options.Decide] policy).
	Rule string `json:"rule,omitempty"`
	// Confirmation says why an op the policy asked about did not run
	// (policy_refused): declined, cancelled, expired, invalid or
	// unavailable (the Answer constants).
	Confirmation string `json:"confirmation,omitempty"`
	// Cut names each member shortened to keep the response within its cap
	// ("message", "schema", "problems", "details.output", …), with its
	// size in bytes before (for problems, how many there were). A member
	// named here is an excerpt or, for schema, absent: help_call fetches
	// the schema; the op, resent alone, shows the rest.
	Cut map[string]int `json:"cut,omitempty"`
}

// coded is how consumers match runner errors (contract C3) without
// importing dispatch.
type coded interface{ ErrorCode() string }

type detailed interface{ ErrorDetails() map[string]any }

// worded is an error that has a sentence for the caller apart from its
// Error text: Error keeps the package prefix a Go program's logs want
// ("kill: refused: …"), ErrorMessage drops what only the program knows.
type worded interface{ ErrorMessage() string }

// executionError converts a runner or handler error into an error
// object, by these rules in order: an error without a code that wraps
// context.Canceled or context.DeadlineExceeded is cancelled or timeout;
// the dispatch codes and cli_error pass through (cli_error with the CLI's
// own message); any other handler error is handler_error, its own code
// kept in details; any other runner error is internal_error (a
// Runner that breaks contract C3), its code kept in details. The message
// is the error's ErrorMessage() when it has one, else its Error().
func executionError(err error, fromHandler bool) *ErrorObject {
	eo := &ErrorObject{Message: err.Error()}
	var w worded
	if errors.As(err, &w) && w.ErrorMessage() != "" {
		eo.Message = w.ErrorMessage()
	}
	var c coded
	var code string
	if errors.As(err, &c) {
		code = c.ErrorCode()
	}
	var d detailed
	if errors.As(err, &d) {
		eo.Details = d.ErrorDetails()
	}
	if code == "" {
		// A handler that gave up because its context ended reports what
		// happened in the caller's words, not as an internal failure.
		switch {
		case errors.Is(err, context.Canceled):
			code = CodeCancelled
		case errors.Is(err, context.DeadlineExceeded):
			code = CodeTimeout
		}
	}
	switch {
	case passThroughCodes[code]:
		eo.Code = code
		if code == CodeCLIError {
			if m, ok := eo.Details["message"].(string); ok && m != "" {
				eo.Message = m
			}
		}
	case fromHandler:
		eo.Code = CodeHandlerError
		details := map[string]any{}
		if code != "" {
			details["code"] = code
		}
		if eo.Details != nil {
			details["details"] = eo.Details
		}
		if len(details) > 0 {
			eo.Details = details
		} else {
			eo.Details = nil
		}
	default:
		eo.Code = CodeInternalError
		if code != "" {
			eo.Details = map[string]any{"code": code, "details": eo.Details}
			if eo.Details["details"] == nil {
				delete(eo.Details, "details")
			}
		}
	}
	return eo
}
