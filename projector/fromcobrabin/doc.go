// Package fromcobrabin reads the parser model (dialect pflag) of an
// installed cobra program that nobody modified — helm, restic, skopeo —
// from what the program itself prints: cobra's completion protocol and
// each command's --help. It is for the CLIs whose root command cannot be
// imported and walked in-process (package fromcobra does that, and is
// what this package is measured against).
//
// # Reading
//
// [Walk] takes the program's argv as it is started ({"helm"},
// {"/usr/bin/restic"}) and asks, for each command path:
//
//   - PROG __complete PATH… --help: cobra adds its own help flag, with the
//     usage "help for NAME", to the command it completes only when that
//     command parses its flags. Offered so, the command is the one named
//     last in PATH and its --help prints help instead of running it;
//     otherwise (DisableFlagParsing, or a help flag of the program's own)
//     the command is unavailable and --help is never run on it.
//   - PROG __complete PATH… --verbsurface-no-such-flag -: cobra before
//     v1.7 adds the help flag to every command it completes, one that
//     reads its argv raw too (hugo 0.111's "mod get", whose --help runs
//     `go get`). A command that parses its flags refuses the unknown flag
//     and completes nothing; any other answer makes it unavailable, and
//     its --help is never run.
//   - PROG PATH… --help: the usage block, the aliases, the command
//     listing and pflag's flag blocks, read as cobra's default usage
//     template prints them (help.go has the layout). A page in another
//     layout makes the command unavailable.
//   - PROG __complete PATH… --: the raw first line of every flag's usage,
//     which tells a flag's type word from a back-quoted placeholder.
//   - PROG __complete PATH… and an empty word: the subcommands. A name
//     is a subcommand when the help's listing has it too (completion also
//     offers ValidArgs), and when completing its own --help confirms it.
//
// A command whose help flag is the program's own (gh's "Show help for
// command", podman's hidden "Help for podman") is asked two other things
// instead: PROG __complete PATH… --verbsurface-no-such-flag - must be
// refused (cobra parses its flags) and PROG __complete PATH… --help - not
// (--help is one of them and needs no value), since cobra answers any
// help flag set with the help, before the command's hooks. Both refused,
// and nothing completed after "-", is no command at all: a value
// completion offered (gh's alias "co"), left out. The root's name is then
// the first word of its usage line.
//
// A page in a layout of the program's own (see own.go) is read for what
// cobra and pflag print whatever the template: the usage line under a
// Usage title (or after it on the same line, as the Docker CLI prints
// it), pflag's flag entries. Completion gives the rest: every
// subcommand it offers is walked (one whose --help prints its parent's
// page is a value, left out), so the children are read even when the
// root's page is not, and every flag it names, read from its entry where
// the page prints one and from its parser otherwise (no default). More
// than 64 flags the page does not print make the command unavailable.
//
// [Options].Paths limits the walk to the commands a front's verbs name.
// [List] reads less still: the ancestors of those commands, each of them
// listed as its parent's listing shows it (projector.Command.Unread), and
// [Lister.Read] reads one when it is needed, as Walk would have, so a
// server can answer before it has read every command of a large program.
//
// Nothing else is run, and no command is: __complete only completes
// (cobra runs the program's OnInitialize functions and, for positional
// values, its completion functions, as a shell does on every tab), and
// --help returns before any hook of the command. Every call runs with the
// environment of [Options].Env plus NO_COLOR=1, TERM=dumb, COLUMNS=200,
// LC_ALL=C, COBRA_ACTIVE_HELP=0 and COBRA_COMPLETION_DESCRIPTIONS=true
// (a program-specific NAME_ACTIVE_HELP or NAME_COMPLETION_DESCRIPTIONS is
// dropped), no standard input, a timeout and an output cap, in a process
// group of its own that is killed with it, at most [Options].Parallel at
// once.
//
// Left out of the tree, because the program does not offer them: hidden
// and deprecated commands, help topics, cobra's own help and completion
// commands (known by cobra's texts; a program's own completion command
// stays), the help flag, cobra's own --version, and hidden flags.
//
// # Flags
//
// pflag prints after a flag's name the first back-quoted word of its usage
// if it has one, and otherwise its type ("string", "int", "strings" for
// a stringSlice, none for a bool, and none for a value of the program's
// own whose type is "": such a flag is a bool only when completion shows
// that --flag=true --flag=false parse and the help prints no one-word
// default but "true"; otherwise it is string-in). A word that the usage does not hold, or
// that its raw usage does not back-quote, is the type, and maps exactly
// as fromcobra maps that type (through [fromcobra.FlagParam], the one
// table both share): string, bool (rendered --flag=true or --flag=false,
// which any bool reads, with or without a no-value default), the integer
// types with their ranges, float, float32, count, duration, strings,
// stringArray, ints, stringToString; any other word — another built-in
// (ip, bools) or a program's own pflag.Value (crane's platform, restic's
// mode) — is string-in, the program's own Set its final validator, as
// fromcobra offers it. Defaults are pflag's: " (default X)" ending the
// usage, quoted for a string, and a type's zero value when none is
// printed (pflag prints none for it); a suffix that is not pflag's
// spelling for the type (kind's "(default kind)" on a string) is the
// usage's own prose. A no-value default ("[=x]") makes a value flag
// bare-able, as in fromcobra.
//
// A word that is a placeholder (restic's --cacert file, skopeo's
// --creds USERNAME[:PASSWORD]) names the value, not its type, so the type
// is learnt from the flag's parser, through completion, which parses the
// words before a flag name it completes and completes nothing if they do
// not parse: given bare, a bool or a count parses (--flag=true only a
// bool, --flag=2 only a count); otherwise x parses for a string —
// repeated if cobra completes the flag again once it is given, which it
// does only for a slice, an array or a map, and then each item is held to
// [RepeatedItemPattern] so that it renders the same for either; 1, 1.5,
// -1, 1e39 and the powers of two tell the number and integer types and
// widths apart; 1s a duration; a value that reads none of them is
// string-in. (A placeholder with a no-value default, "PATH[=-]", is a
// bare-able string, unprobed.) A word that cannot be told from a placeholder (the raw usage
// is unknown, or holds the word past its first line, which is all
// completion shows) makes the flag unrepresentable, naming it.
//
// Choices: pflag has none, and help states none reliably (a usage's
// "[auto|yaml|json]" is prose), so no flag is given an enum.
//
// # Positionals
//
// They come from the usage line only, by its own grammar (see
// [fromcobra.ReadUsePositionals]): required words, then optional ones, then
// at most one variadic word ("[command options]" reads as "[flags]",
// "WORD ..." as "WORD...", a word three times or more as that word,
// variadic). An option word that takes a value is followed by its value's
// placeholder, not a positional ("prog -f <file> <selector>"); an option
// the command does not have makes the line unreadable. A usage line in another order makes the
// command unavailable: the Args validator, which the in-process walk calls
// to settle such a line, is code the help does not show.
//
// # What help cannot show
//
// These are the reader's blind spots; a schema read from help is as loose
// as they make it, and the program itself refuses what they would have
// refused (a usage error):
//
//   - required flags: cobra's completion offers the flags it requires,
//     but mixed with the members of one-required groups, so no flag is
//     marked required;
//   - flag groups (mutually exclusive, one required, required together)
//     and flags bound to one variable;
//   - choices (a Chooser's, a positional's ValidArgs);
//   - annotations, such as fromcobra's path marks and constraints;
//   - the Args validator where it departs from the usage line: a command
//     whose Use line names no positionals is read as taking none (crane's
//     "flatten", which takes one).
//
// # Unavailable
//
// A command is unavailable, with a reason naming it (and the flag, where
// one is to blame), when: completion does not offer its --help as
// cobra's; its help is not in cobra's layout; its usage line's words are
// out of order; a flag's word cannot be told from a placeholder, or a
// placeholder flag parses bare but neither as a bool nor as a count; two
// parameters map to one name. A call that exits non-zero is a finding about that command too;
// one that cannot start, passes its timeout or output cap, or a cancelled
// context, fails the whole walk ([*Error]), since it may not recur and a
// tree must not keep a command unavailable for it.
//
// # Rendering
//
// The tree renders like any pflag tree (projector.RenderArgv): values as
// --flag=value, positionals after "--", no caller value in an option
// position. The round trip — every argument object validation accepts,
// rendered from the help-derived model, parses back to the same values
// through the program's own cobra tree — is a property test over this
// package's fixture and over the corpus of real programs in
// projector/corpus/cobra, which also compares each help-derived tree with
// the in-process walk, command by command.
//
// # Calls
//
// Every call starts the program, which builds its whole command tree
// first, so calls are what a walk costs (about 9 ms of CPU each for a
// 13 MB program of 200 commands, most of it the kernel's exec). A
// command in cobra's layout costs three: completing --help, the unknown
// flag, its --help; completing "--" only when a flag's word is also in its
// usage, and completing an empty word only for a group. The probes of its
// flags are asked together where the answers allow (batch.go): one call
// for every flag that may be a bool (--a=true --a=false --b=true …), one
// for every placeholder past its bare probe (--a=x --b=x …, whose answer
// also lists the flags cobra would complete again, the repeated ones);
// pflag stops at the first word it cannot set, so words that parse
// together parse alone. Any other answer settles nothing and each flag is
// asked alone, as before; an inherited flag is learnt once for every
// command. The tree is the one asking flag by flag gives (a test compares
// them). A command whose help flag or layout is the program's own costs
// three more (the bare --help probe, its subcommands, its flag listing).
//
// # Caching
//
// A walk still runs the program about four times a command, so a large
// program is slow to read cold (205 command paths of bench/synthcli, 843
// calls, 1454 before the probes were asked together). [CachedWalk] keeps
// the tree in a private file (package projector/internal/treecache, which
// the clap reader shares) and reads it back while the program, the reader
// and the options are unchanged: the key is the program's device, inode,
// size, modification and change time, the reader's own executable's, and
// the argv, environment, directory and exclusions. A file that does not
// match, cannot be decoded or is not private is absent; a new one is
// written atomically.
package fromcobrabin
