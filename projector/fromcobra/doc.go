// Package fromcobra walks an in-process cobra command tree into the
// projector's parser model (dialect pflag): the same tree the binary's own
// invocation parses, so the schemas cannot drift from the CLI.
//
// # Walking
//
// [Walk], with optional [Options], visits the root and every
// subcommand, parents before children. Each command's parameters are its
// visible flags — local ones, then the persistent flags it inherits (cobra
// parses those on the child, so they are the child's parameters) — then the
// positionals of its Use line. Left out: hidden flags, deprecated flags, the
// help flag, and any flag named in Options.ExcludeFlags (a root machine-mode
// flag such as "json" that the embedder always renders itself and a caller
// must never turn off). Schema names are the snake_case of flag long names
// ("dry-run" → "dry_run") and the lowercased Use-line words ("MODEL" →
// "model"). Hidden and deprecated commands are walked and marked Hidden.
//
// # Flags
//
// A flag maps by its pflag Value.Type():
//
//	string                 string
//	bool                   boolean (bare --flag for its NoOptDefVal, --flag=value otherwise)
//	int, int64             integer, bounded to ±(2^53-1)
//	int8, int16, int32     integer with the type's range
//	uint, uint64           integer ≥ 0 (≤ 2^53-1)
//	uint8, uint16, uint32  integer with the type's range
//	float64                number
//	float32                number within ±MaxFloat32 (parsed at float32 precision)
//	count                  integer ≥ 0, rendered --v=N
//	duration               string matching [DurationPattern] (never negative)
//	stringSlice            array of strings matching [StringListItemPattern], CSV-quoted per item
//	stringArray            array of strings matching [StringListItemPattern]
//	intSlice               array of integers
//	stringToString         array of "key=value" strings matching [StringToStringPattern],
//	                       --flag=key=value once per pair (a later key replaces an earlier one)
//	any other Value        string (ipNet, boolSlice, a custom pflag.Value, ...)
//
// A pflag.Value is string-in by construction (Set(string) reads one word),
// so any type without a mapping of its own is offered as a string and the
// CLI's Set is its final validator: a value it refuses comes back as the
// CLI's usage error (see verbsurface's invalid_argument convention). A Value
// that also implements [Chooser] (a fixed set of values it enforces in Set,
// such as a playbook arg's declared choices) has those choices offered as
// the parameter's enum, typed by its kind; a choice that does not parse as
// that kind makes the command unavailable. A custom Value whose Type()
// claims a supported name is taken at its word. A non-boolean flag with a
// NoOptDefVal may also be given bare: its schema is "true or a value"
// (type ["boolean", T]), true rendering the bare --flag. Defaults come from
// the flag's DefValue. A stringArray, intSlice or stringToString whose
// default is not empty cannot be emptied from argv, so its minItems is 1.
//
// Required flags come from MarkFlagRequired; groups from cobra's
// annotations, read as cobra's ValidateFlagGroups reads them (a group counts
// only if all its flags exist on the command): MarkFlagsMutuallyExclusive is
// an exclusive group; MarkFlagsOneRequired on the same set makes it required,
// on another set it is an at-least-one set (Command.AnyRequired). Hidden,
// deprecated and excluded flags drop out of groups.
//
// A flag annotated with [AnnotationPath] ("verbsurface:path": "read",
// "write", "dir" or "read_or_dir") is a path parameter: Param.Path records the use, and a
// surface confines its values to the operator's roots. Nothing else marks
// a cobra flag as a path; an unannotated string is just a string.
//
// # Positionals
//
// The Args validator is the parser: it is called with placeholder lists
// of 0, 1, 2, … values (up to 16, and 4096 to tell "no upper end") to find
// the range of counts it accepts. The Use line is documentation: its words
// after the command's name name the positionals — NAME or <NAME> (required),
// [NAME] (optional), NAME... (one or more), [NAME...] (zero or more);
// "[flags]" and flag-like words are ignored; prose is sanitized (<file|url>
// is file_or_url, [ITEM1 [ITEM2 ...]] is item1) and a word without a name
// gives a generic one (arg1, args). When the Use line's own order (required
// words, optional ones, one variadic last) states a count range inside the
// validator's, that range is offered; otherwise the validator's, under the
// Use line's names by position (generic ones if its order names nothing
// reliably). Optional positionals are read left to right: each later one is
// given only with every earlier one (the projector's dependentRequired); a
// bounded range wider than four optional ones offers the first four. A
// positional whose name a flag has already takes the suffix "_arg". When the
// validator also rejects placeholders outside ValidArgs, the positionals
// take ValidArgs as their choices.
//
// # Constraints the parser does not enforce
//
// A CLI may take any string as a model name, or any number of ids, where a
// surface fronting untrusted callers must not. [Constrain] records such a
// limit on the command, as annotations the walk reads (keys
// [AnnotationPattern], [AnnotationMaxItems], [AnnotationUniqueItems]
// followed by the parameter's schema name), and the walk sets the
// parameter's Pattern, MaxItems or UniqueItems, so the schema states it and
// validation refuses what breaks it. The binary's own parsing is
// unchanged. A constraint the walk cannot apply — no such parameter, a
// pattern on a non-string or over a type's own pattern, an array limit on
// a scalar, an unknown "verbsurface." annotation — makes the command
// unavailable, naming the annotation:
//
//	fromcobra.Constrain(agentCmd, "model", fromcobra.Constraint{Pattern: `^[a-z][a-z0-9_-]*(:[A-Za-z0-9._@=,+/][A-Za-z0-9._:@=,+/-]*)?$`})
//	fromcobra.Constrain(waitCmd, "ids", fromcobra.Constraint{MaxItems: 256, UniqueItems: true})
//
// # Descriptions
//
// A parameter's description in the schema is its flag's usage line, and a
// positional's is, by default, where it stands in the usage ("the optional
// positional argument PROMPT of `li agent MODEL [PROMPT] [flags]`"): cobra
// has no help text for the words of a Use line. A CLI whose schemas an
// agent reads says what each parameter is for with a description
// annotation ([AnnotationDescription], through [Constraint].Description),
// written for a model: what it is, its format and range, an example where
// the format is not obvious. It changes the schema (and so the
// fingerprint), never the CLI's --help:
//
//	fromcobra.Constrain(agentCmd, "prompt", fromcobra.Constraint{Description: "the prompt text the agent runs on (at most 1 MiB)"})
//
// # Unavailable
//
// A command is unavailable, with a reason naming it, when: a constraint
// annotation cannot be applied (above); its Args validator accepts counts
// that are not a range, or no count of placeholder values (it judges
// content beyond ValidArgs); flag parsing is disabled (it reads argv raw); flags are marked
// required together (MarkFlagsRequiredTogether, which the schema subset
// cannot express); a required flag is hidden or deprecated; two parameters
// map to one schema name; or it only dispatches to subcommands.
//
// # Rendering and round trip
//
// projector.RenderArgv with projector.DialectPflag renders the tail after the
// command path; the reference CLI's dispatcher prepends the path and its
// machine-mode flag. The round trip (every object validation accepts parses
// back through cobra to exactly its values) is a property test and the fuzz
// target FuzzRoundTripCobra in this package; the patterns above are what it
// found pflag cannot carry: a carriage return (CSV drops it), an empty string
// as a list item (a list of one empty string reads back empty through
// pflag's getters), durations that overflow.
//
// # Dynamic parameters
//
// [NewInjector] builds a projector.Injector from a fresh-tree factory and an
// [InjectFunc] that performs the CLI's own injection (adding a playbook's
// flags to its command) and returns the content fingerprint.
package fromcobra
