// Package fromoptparse walks a Python optparse parser into the projector's
// parser model (dialect optparse), with a small Python walker embedded in
// this package (walker.py, run as `python3 -c`), as fromargparse and
// fromclick walk theirs (projector/internal/pywalk runs all three). It is
// tested against Python 3.11 and Debian's pip 23.0.1.
//
// # Targets
//
// [Walk] and [WalkAll] take "MODULE:OBJECT" targets. The object is, after
// calling it without arguments when it is callable and nothing below:
//
//   - an optparse.OptionParser, or an object whose .parser is one: the
//     program's one command (the tree's root, runnable). A callable that
//     builds a parser and calls its parse_args (the usual main() shape) is
//     intercepted there, and the parser taken before anything runs;
//   - a command table, a mapping from command name to a parser, to an
//     object whose .parser is one, or to a factory without arguments that
//     returns either; or, when [Options.Command] names a factory
//     ("MODULE:FUNCTION"), to anything at all: the factory is called with
//     each name and returns the parser (or its holder). The root is then a
//     group, and each name a runnable command of its own.
//
// Programs built on per-command parsers name their table that way. pip
// keeps one in pip._internal.commands: commands_dict maps each name to a
// CommandInfo (module, class, summary) and create_command(name) builds the
// command object, whose .parser holds pip's general options and the
// command's own:
//
//	target:  pip._internal.commands:commands_dict
//	command: pip._internal.commands:create_command
//
// A command's summary is the first of: the table entry's .summary, the
// made object's .summary, the parser's .summary, the first line of its
// description. Importing the module and calling a factory runs the
// program's code: walk only code you would run. A target that gives no
// parser is an [*Error] with a Kind.
//
// # Options
//
// Schema names are dests. Translated, in parser order:
//
//	store (type string, int/long, float)   string, integer, number; --opt=value
//	type choice                            enum of the choices
//	store with nargs N ≥ 2                 an array of exactly N, --opt v1 … vN
//	append                                 array, the option once per value
//	append with nargs N ≥ 2                array of N-item arrays, once per tuple
//	store_true / store_false               boolean (the bare flag; the other value
//	                                       only as the default)
//	store_const / append_const             boolean: true gives the flag (storing const / [const])
//	count                                  integer 0..projector.MaxCount, the flag n times
//	help, version, help=SUPPRESS_HELP      not parameters
//
// Several options storing into one dest (pip's --user/--no-user) become one
// parameter each: the one that takes a value keeps the dest's name, each
// flag or callback is named after its first long option and, given true,
// stores its value; giving two of them is refused (a mutually exclusive
// group), since the last would silently win. Two options that both take a
// value into one dest make the command unavailable.
//
// optparse does not declare positional arguments: it hands every word
// after the options to the program as one list. Each command therefore has
// one more parameter, [ArgsParam] ("args"), an array of strings rendered
// after "--"; what the program accepts there is its own business, as it is
// for optparse.
//
// Unrepresentable, naming the action, type or callback: a callback (what
// it does is the program's code: pip's --no-cache-dir and --no-binary); an
// action optparse does not define; a type it does not define (an Option
// subclass's TYPES, pip's "path" and "package_name"), unless
// [Options.StringTypes] vouches that it reads a plain string; an Option
// subclass that overrides take_action, process, convert_value or
// check_value; type complex; append or append_const onto a default list
// that is not empty (optparse appends to the default itself); a count
// from a default other than 0. A command whose options include one is
// unavailable until the option is excluded ([Options.ExcludeFlags], or a
// front's exclude:).
//
// Defaults are the parser's defaults as the walker sees them: pip merges
// its configuration files and PIP_* variables into them, so they are the
// walking machine's. An append option without a default cannot be given
// the empty list (optparse would store None, not []): its schema asks for
// at least one item.
//
// # Rendering
//
// Dialect optparse renders as dialect click does (click's parser derives
// from optparse): a long option with one value as --opt=value, a short one
// as two words (optparse reads "-x=v" as "=v" and takes the next word as
// the value whatever it looks like), N values as N words after the option,
// and the positional arguments after "--". The round-trip property test
// renders random, often hostile, argument objects for every available
// command of the fixtures and of pip and parses each argv back with the
// very parser, in one Python process, to exactly the given values.
package fromoptparse
