// Package fromclick walks a Python click command tree — and so a Typer app,
// which builds one — into the projector's parser model (dialect click),
// with a small Python walker embedded in this package (walker.py, run as
// `python3 -c`), the way fromargparse walks argparse. It is tested against
// click 8.1 (Debian 12's, with Typer 0.7) and click 8.4.
//
// # Targets
//
// [Walk] and [WalkAll] take targets "package.module:object", where object
// (a dotted attribute path) is a click.Command or click.Group, or a Typer
// app (converted with typer.main.get_command, as Typer itself does), or a
// factory called without arguments that returns one of those. Importing the
// module and calling a factory runs the program's code: walk only code you
// would run. Whatever it prints goes to the walker's stderr. A target that
// cannot be walked gives an [*Error] with the kinds of fromargparse's:
// Python missing, click or the module not importing, no such attribute,
// the factory raising or exiting, or something that is not a command
// ("not_parser"). WalkAll walks many targets in one Python process; the
// [Options] set the interpreter, PYTHONPATH, working directory and a time
// limit. The walker runs in its own process group, killed whole on timeout
// or cancellation, so a factory that hangs leaves no process behind.
//
// The operator, the only trusted party, adjusts a walk with three more
// options: Exclude leaves parameters out (recorded in Command.Excluded, like
// fromcobra's ExcludeFlags), Callbacks vouches for parameter callbacks that
// only validate, StringTypes for custom ParamTypes that read a plain string.
// Nothing a caller sends can change them.
//
// # The tree
//
// A group's commands are what its own list_commands and get_command return
// (so lazily loaded groups such as Flask's, and custom groups, walk as the
// program resolves them); one command object listed under several names is
// one command with aliases, the first name its path (the way a program
// declares aliases in click, which has no alias keyword). The same object
// at two paths that are not aliases of each other is ambiguous at both, and
// a group that contains itself is a cycle: unavailable. A group is not
// runnable unless invoke_without_command is set. Hidden commands are
// marked Hidden; deprecated ones carry "(DEPRECATED)" (or click's own label)
// in their summary. A subcommand's parameters are its own; its ancestor
// groups' options are left at their defaults, and an ancestor that takes
// something before the subcommand name (an argument, a required option, an
// option that would prompt) makes the subcommand unavailable.
//
// # Parameters
//
// Schema names are click's parameter names. Translated:
//
//	STRING, UNPROCESSED            string
//	INT, FLOAT, BOOL (a value)     integer, number, boolean (--opt=true)
//	UUID                           string, the hyphenated form (pattern)
//	is_flag (a boolean flag)       boolean: the bare flag stores its flag_value; the
//	                               other value only as the default
//	--x/--no-x (secondary opts)    boolean (--x / --no-x)
//	flag_value=X (not boolean)     boolean: true gives the flag, storing X; several
//	                               such flags sharing one name are one boolean each,
//	                               named after the option, mutually exclusive
//	is_flag=False + flag_value     true (the bare option, storing flag_value) or a
//	                               value that does not look like an option
//	count=True                     integer 0..projector.MaxCount (or the IntRange's
//	                               max), the flag repeated n times
//	multiple=True                  array, --opt=value once per value (at least one
//	                               item when required or when the default is not
//	                               empty)
//	nargs=N, Tuple of one type     array of exactly N, --opt v1 … vN
//	Tuple of mixed or constrained  the same with prefixItems: each position its own
//	types                          type and constraints (Param.Elements)
//	multiple=True with nargs=N or  array of N-item arrays, --opt v1 … vN once per
//	a Tuple                        tuple (at least one tuple when required or when
//	                               the default is not empty)
//	Choice                         enum of the choices (Enum members by name, click
//	                               ≥ 8.2); case_sensitive=False accepts them as listed
//	IntRange, FloatRange           minimum/maximum; an open bound is the next value
//	                               inside (for floats the next float64, exact);
//	                               clamp=True: the schema still states the range,
//	                               so no value is silently changed
//	Path, File                     string naming a file, Param.Path read, write (a
//	                               File mode that writes, writable=True, or an
//	                               output name), dir (dir_okay without
//	                               file_okay), read_or_dir (a Path that allows
//	                               both, click's default) or read (file_okay
//	                               only, and File); "-" (a standard stream) and
//	                               "" refused
//	DateTime (default formats)     string, a pattern of valid dates (leap years
//	                               included) and times in those formats
//	required=True                  required
//	default (not callable)         default, after click's conversion; no default for
//	                               a callable one or an envvar-backed option
//	help (and Typer's help)        description
//	argument nargs=1 / -1          a value / an array after "--", minItems 1 if
//	                               required
//
// Arguments follow click's reading (click.parser._unpack_args): those
// before the nargs=-1 argument are filled from the left, those after it
// from the right. An optional argument followed by a required one, or one
// after the nargs=-1 argument, cannot be left out in argv and is offered as
// required; a run of optional arguments at the end (or just before the
// nargs=-1 one) is chained by the projector's dependentRequired, each only
// with every earlier one.
//
// An option backed by an environment variable (envvar=, or the context's
// auto_envvar_prefix) is offered like any other; the variable is the
// server's environment, never the caller's, so the schema states no default
// for it (the server's variable may replace it). An option with
// prompt=True is required: given, click never asks; the confirmation
// option (click.confirmation_option) is a required true. help, version and
// Typer's completion options are not parameters (as argparse's help is not);
// an eager flag named --version is a version option too.
//
// Unavailable, with the reason named:
//
//   - a custom ParamType, or a subclass of a click type that overrides
//     convert: the schema cannot state what it accepts or does with the
//     string (it may open a file, split a path list, or read "adhoc" as a
//     keyword) — unless Options.StringTypes names it;
//   - a callback: it may change what the value means, and it is named, not
//     guessed — unless Options.Callbacks names it;
//   - an eager option with a callback other than help/version/completion
//     (it typically prints and exits, or rewrites other defaults, as
//     black's --config does);
//   - prompt=True with hide_input=True: a secret given as an argument is
//     visible to every local user in the process list;
//   - a Tuple with a path item, and a list of tuples of paths (the surface
//     confines a path or a list of paths, not a position of a tuple), a
//     flag with multiple=True, a count whose default is not 0;
//   - DateTime with a format other than click's defaults;
//   - Choice of values that are not plain strings or numbers (or of Enum
//     members before click 8.2, which cannot match them);
//   - a parameter class other than click's Option and Argument (and
//     Typer's subclasses of them); a hidden or excluded required option; an
//     excluded argument before one that is offered; two nargs=-1 arguments.
//
// # Rendering (dialect click)
//
// [github.com/verbsurface/verbsurface/projector.RenderArgv] with
// projector.DialectClick renders a long option as --opt=value, and a short
// one (one prefix character and one letter) as two words, "-x" "value":
// click reads "-x=value" as the value "=value", and always takes the next
// word as the value of an option that needs one, whatever it looks like. An
// option of N values renders as --opt v1 … vN (click takes the next N words
// verbatim), positionals follow "--". The one exception is an option whose
// value may be omitted (is_flag=False with a flag_value): click reads a
// next word that looks like an option as "no value", even glued by "=", so
// its schema admits no string starting with one of the command's option
// prefix characters (longer than that character alone) and no negative
// number.
//
// # The round trip
//
// The round-trip property test (every object validation accepts renders to
// an argv that click, through the command's own make_context and
// resolve_command in one batched Python process, parses back to exactly its
// values) runs over every available command of the fixtures and of the
// corpus, against every click on the machine; it found the two rules above
// (short options, optional values), the minimum of one item for a repeated
// option with a non-empty default, and that a flag whose default an
// environment variable may replace can only be given.
//
// # Corpus
//
// The test suite walks seven real programs from Debian's packages (flask,
// black, mkdocs, sqlite-utils, cookiecutter, uvicorn and the Typer app
// rstcheck), pins each one's clean share in testdata/corpus_report.golden.json
// — as walked raw, and as a team fronting it would walk it, with the
// Exclude and Callbacks options its inventory calls for — and round-trips
// every command that projects.
package fromclick
