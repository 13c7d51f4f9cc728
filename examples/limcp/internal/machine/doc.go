// Package machine writes limcp's machine results: the one JSON object a
// command prints on stdout in --json mode (contract C7 in CONTRACTS.md).
//
//	{"result_version": 1, "ok": true,  "data": <any>}
//	{"result_version": 1, "ok": false, "error": {"code": "...", "message": "...", "details": <any>}}
//
// # Error codes
//
// Every failure a limcp command reports carries one code from this closed set
// (see the constants of type [Code]). A command never invents a code at the
// call site: it builds an [*Error] with one of the constants, so the set in
// this file is the whole vocabulary a machine caller must understand.
//
// What this package does not do: it never decides whether a command failed
// (that is the command's business) and it never writes human text; the CLI
// writes human text to stderr beside the one object on stdout.
package machine
