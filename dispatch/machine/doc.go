// Package machine is the CLI side of the machine-result contract: it writes
// the one machine result a command prints on stdout in machine mode, which
// dispatch.Runner reads, and turns a cobra command line that does not
// parse into a usage_error result instead of help text.
//
// A Go CLI calls [WriteOK] with its data or [WriteError] with its error
// and exits; a cobra CLI that puts its commands under [MarkUsageErrors]
// gets usage_error results naming the command and the refused flag, which
// the surface turns into a teaching invalid_args (verbsurface
// CLIArgumentCodes). The package is pure Go: it builds on every platform,
// so a CLI that also ships for Windows can use it.
package machine
