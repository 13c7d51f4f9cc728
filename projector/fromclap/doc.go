// Package fromclap reads an installed Rust clap program's parser model
// (dialect clap) from its own --help, one call per command path, without
// running any of its commands, by the same conservative rule as
// fromcobrabin: what the help does not settle is unavailable, with its
// reason, never guessed. It reads the layouts of clap 2, 3 and 4 (USAGE: /
// Usage:, ARGS: / Arguments:, FLAGS: and OPTIONS: / Options:, SUBCOMMANDS: /
// Commands:, and an options section under a heading of the program's own).
// It is tested on Debian bookworm's fd-find 8.6.0 (clap 4), bat 0.22.1,
// tealdeer 1.5.0 and hyperfine 1.15.0 (clap 3), ripgrep 13.0.0 and zoxide
// 0.4.3 (clap 2), and measured against the clap definitions of fd,
// tealdeer and zoxide (docs/figures.md).
//
// # What is read
//
// Each command path's --help (the long help: an option hidden from the
// short one is still there). Subcommands are the entries of its commands
// section, but clap's own help subcommand; aliases are those the entry
// lists. The walk runs a few calls at once, each bounded in time and
// output, in a process group killed whole when stopped; the program's
// environment gets NO_COLOR, TERM=dumb, COLUMNS and the C locale over it
// (projector/internal/helprun).
//
// # Translated
//
//	-x, --long                 boolean: true gives the flag, false says nothing
//	-x, --long...              integer 0..projector.MaxCount: the flag given n times
//	-x, --long <VALUE>         string, --long=VALUE (a short-only one -x=VALUE,
//	                           which clap reads as VALUE)
//	[possible values: a, b]    enum (also clap 4's "Possible values:" list)
//	[default: v]               the default
//	usage --name <NAME>        a required option
//	usage <--a|--b>            a required group of exclusive options
//	usage <A> [B] [C]...       positionals, in order: required, optional, lists;
//	                           rendered after "--"
//	usage prog <COMMAND> only  a group (not runnable); with another usage line
//	                           that runs the command itself, runnable
//
// Every value is a string: clap's help does not show value types, so the
// program's own value parser judges the word, as on a command line.
//
// # Unavailable
//
// Each with its reason: a command with several usage lines of its own
// (which arguments go together is not settled: ripgrep 13's eight); a
// usage line in the program's own words ("rg [OPTIONS] PATTERN"); an
// argument missing from the usage line or the usage naming one the
// arguments section lacks; positionals argv cannot tell apart (a list
// before another, a required one after an optional one); an option taking
// several values (<V>... — per occurrence or by repeating it, and where
// they end, help does not say: fd's --exec), two value names, or a value
// that may be left out ([=<V>]); a command whose help fails. What clap's
// help never shows is not in the model: conflicts_with and requires
// between options (the program refuses such a combination itself, after
// the argv was rendered faithfully), hidden options (never offered), and
// whether a repeatable option repeats (it is offered once).
//
// # Caching
//
// A walk runs the program once a command. [CachedWalk] keeps the tree in
// a private file and reads it back while the program, the reader and the
// options are unchanged, by the code and the rules of
// fromcobrabin.CachedWalk (package projector/internal/treecache): the key
// is the program's device, inode, size, modification and change time, the
// reader's own executable's, and the argv, environment, directory,
// exclusions and command bound; a file that does not match, cannot be
// decoded or is not private is absent; a new one is written atomically.
package fromclap
