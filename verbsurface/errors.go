package verbsurface

import (
	"context"
	"errors"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// Error codes: the closed set an op, help or request error carries. The
// package documentation lists what each means and what the caller does next.
const (
	// Envelope and request.
	CodeMalformedEnvelope = "malformed_envelope"
	CodeBatchTooLarge     = "batch_too_large"

	// CodeResponseTooLarge replaces the result of an op that ran but whose
	// result would take the response past Options.MaxResponseBytes (the
	// error's limit). The results already in the response stay; the op's
	// effects, if any, happened. Ask for less, or in a request of its own.
	CodeResponseTooLarge = "response_too_large"
	// CodeRateLimited refuses a spawn op over its client's
	// Options.SpawnsPerMinute (the error's limit); nothing was started.
	// retry_after is the whole seconds until one more spawn is allowed.
	CodeRateLimited = "rate_limited"

	// Naming a verb.
	CodeUnknownVerb     = "unknown_verb"
	CodeNotAllowed      = "not_allowed"
	CodeRetiredSynonym  = "retired_synonym"
	CodeUnavailableVerb = "unavailable_verb"

	// Arguments and fingerprints.
	CodeInvalidArgs        = "invalid_args"
	CodeMissingFingerprint = "missing_fingerprint"
	CodeStaleFingerprint   = "stale_fingerprint"
	CodePolicyRefused      = "policy_refused"

	// Dispatch failures (contract C3), passed through from the executor.
	CodeLaunchFailed             = "launch_failed"
	CodeAbsentResult             = "absent_result"
	CodeInvalidResult            = "invalid_result"
	CodeMultipleResults          = "multiple_results"
	CodeOutputOverflow           = "output_overflow"
	CodeNonzeroExit              = "nonzero_exit"
	CodeTimeout                  = "timeout"
	CodeUnsupportedResultVersion = "unsupported_result_version"
	CodeCancelled                = "cancelled"
	CodeCLIError                 = "cli_error"
	CodeHandlerError             = "handler_error"
	CodeInternalError            = "internal_error"
)

// Codes returns the closed set of error codes, in documentation order.
func Codes() []string { return slices.Clone(allCodes) }

var allCodes = []string{
	CodeMalformedEnvelope, CodeBatchTooLarge, CodeResponseTooLarge, CodeRateLimited,
	CodeUnknownVerb, CodeNotAllowed, CodeRetiredSynonym, CodeUnavailableVerb,
	CodeInvalidArgs, CodeMissingFingerprint, CodeStaleFingerprint, CodePolicyRefused,
	CodeLaunchFailed, CodeAbsentResult, CodeInvalidResult, CodeMultipleResults, CodeOutputOverflow,
	CodeNonzeroExit, CodeTimeout, CodeUnsupportedResultVersion, CodeCancelled, CodeCLIError,
	CodeHandlerError, CodeInternalError,
}

// passThroughCodes are the codes an executor or handler error may carry
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
	// Rule names the policy rule that refused the op or asked about it
	// (policy_refused from an [Options.Decide] policy).
	Rule string `json:"rule,omitempty"`
	// Confirmation says why an op the policy asked about did not run
	// (policy_refused): declined, cancelled, expired, invalid or
	// unavailable (the Answer constants).
	Confirmation string `json:"confirmation,omitempty"`
}

// coded is how consumers match executor errors (contract C3) without
// importing dispatch.
type coded interface{ ErrorCode() string }

type detailed interface{ ErrorDetails() map[string]any }

// worded is an error that has a sentence for the caller apart from its
// Error text: Error keeps the package prefix a Go program's logs want
// ("kill: refused: …"), ErrorMessage drops what only the program knows.
type worded interface{ ErrorMessage() string }

// executionError converts an executor or handler error into an error
// object, by these rules in order: an error without a code that wraps
// context.Canceled or context.DeadlineExceeded is cancelled or timeout;
// the dispatch codes and cli_error pass through (cli_error with the CLI's
// own message); any other handler error is handler_error, its own code
// kept in details; any other executor error is internal_error (an
// Executor that breaks contract C3), its code kept in details. The message
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
