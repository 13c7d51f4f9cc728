// Package fromargparse walks a Python argparse parser into the projector's
// parser model (dialect argparse), with a small Python walker embedded in
// this package (walker.py, run as `python3 -c`). It is tested against
// Python 3.11.
//
// # Targets
//
// [Walk] and [WalkAll] take targets:
//
//   - "package.module:function" — function is called without arguments. If
//     it returns an argparse.ArgumentParser, that is the parser. If it builds
//     one and calls parse_args (the usual main() shape: json.tool, zipfile,
//     tarfile, py_compile, ast), the call is intercepted — parse_args,
//     parse_known_args and their intermixed forms are patched to raise a
//     capture exception — and the parser is taken before anything runs.
//   - "package.module:__main__" — the module is run as __main__ (runpy),
//     under the same interception, for programs that build their parser
//     under `if __name__ == "__main__":` (http.server, calendar, unittest).
//
// The first parser whose parse method is called is the one captured (a
// program that pre-parses with a small parser before its real one needs a
// factory target instead). Import-time and main() code up to the parse does
// run: walk only code you would run. Whatever it prints goes to the walker's stderr. A target that
// cannot be walked gives an [*Error] with a Kind: Python missing, the module
// not importing, no such function, the function raising or exiting, or
// returning something that is not a parser. WalkAll walks many targets in one
// Python process; Options sets the interpreter, PYTHONPATH, working directory
// (defaults may depend on it) and a time limit. The walker runs in its own
// process group, killed whole on timeout or cancellation, so a factory that
// hangs leaves no process behind.
//
// # The tree
//
// The root parser is walked through its registered subparsers action (not
// through whatever per-command factories return): each entry of its choices
// map is a command, several names mapping to one parser object fold into one
// command with aliases, and nested subparsers nest. A parser with a
// subparsers action is a group (not runnable), even when argparse lets the
// subcommand be omitted. A subcommand's parameters are its own parser's
// actions in parser order; an ancestor's options are left at their defaults,
// and an ancestor that requires something before the subcommand name makes
// the subcommand unavailable (a required option, a positional, or a required
// mutually exclusive group). The same parser object reachable at two paths
// (not as aliases) is an ambiguous nested subparser: both paths are
// unavailable. A subcommand whose parser is one of its own ancestors is a
// cycle and unavailable.
//
// # Actions
//
// Schema names are dests. Translated:
//
//	store (type None/str, int, float)  string, integer, number
//	  nargs None / '?'                 a value, --opt=value
//	  nargs '?' on an option           true (the bare --opt, storing const) or a value
//	  nargs '*' / '+' / N≥2            an array, --opt v1 v2 …
//	  nargs 1                          an array of one, --opt=value
//	type=argparse.FileType(mode)       a string naming a file; Path "read" or "write" by mode
//	type=pathlib.Path (PurePath)       a string naming a file; Path "write" when the dest or
//	                                   an option names an output (out, output, outfile, outdir,
//	                                   outpath), else "read"; "-" and "" refused for both
//	type=any other callable but bool   a string: the callable is the CLI's final validator
//	store_true / store_false           boolean (the bare flag; the other value only as the default)
//	store_const / append_const         boolean: true gives the flag (storing const / [const])
//	several const flags on one dest    one boolean per flag, named after its long option, and
//	                                   mutually exclusive with each other and the dest's value option
//	count                              integer 0..projector.MaxCount, the flag repeated n times
//	BooleanOptionalAction              boolean (--flag / --no-flag)
//	append (nargs None)                array, --opt=value once per value
//	append with nargs=N                array of N-item arrays, --opt v1 … vN once per tuple
//	extend (nargs '+' or '*')          array, --opt=value once per value
//	choices                            enum (a long range: minimum/maximum)
//
// Consecutive nargs='?' positionals (optionally closed by one nargs='*')
// are read left to right: the projector chains them with dependentRequired
// (each later one only with every earlier one).
//
// help and version actions are not parameters; help=SUPPRESS hides one.
// Unrepresentable, naming the action class or type callable:
// any Action class argparse does not define (including subclasses of its
// own); type=bool (every non-empty word is True); choices of a type callable
// that is not int, float or str (they are converted values); a count with a
// non-zero default; nargs=REMAINDER or PARSER; append/extend whose default
// list is not empty (the parsed list would not be just the given values);
// choices that are not JSON values of the parameter's type; two value
// options (or two append_const flags) with one dest; two positionals of
// variable count other than a run of '?' ones closed by at most one '*'
// (argv cannot say where one ends); a hidden positional before others;
// prefix_chars other than "-"; an option string that is an ambiguous
// abbreviation in an ancestor parser.
//
// # Constraints found by the round trip
//
// The round-trip property test (every object validation accepts parses back
// through Python's argparse, in one batched process, to exactly its values)
// pins these schema constraints, each explained in the code that sets it:
// no string value may be "--" (argparse 3.11 removes it from an argument's
// values); items of a multi-value option may not start with "-"; positional
// and multi-value items may not start with a fromfile_prefix_chars
// character; numeric multi-value items are ≥ 0 when the parser has an option
// that looks like a negative number; an append/extend list without default is
// at least one item long (an omitted one is None, not []); a '*' positional
// with choices is required (3.11 checks [] against the choices); members of a
// required exclusive group exclude values argparse would not count as given
// (it compares with the default by identity).
package fromargparse
