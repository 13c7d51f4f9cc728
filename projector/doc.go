// Package projector turns a CLI's own parser into closed JSON Schemas, and
// typed arguments back into argv that the parser reads exactly.
//
// An adapter walks a parser into the neutral model of model.go — a [Tree] of
// [Command]s, each with its [Param]s in parser order and its exclusive
// [Group]s: [github.com/verbsurface/verbsurface/projector/fromcobra] walks an
// in-process cobra tree, [github.com/verbsurface/verbsurface/projector/fromargparse]
// a Python argparse parser, [github.com/verbsurface/verbsurface/projector/fromclick]
// a Python click command tree (and so a Typer app). A program no adapter
// can read (a hand-written parser) is declared instead: [Declare] checks
// commands written by hand and returns their tree, of [DialectDeclared],
// whose [Rendering] says how its argv is spelled. Everything else in this
// package is a pure function of that model:
//
//   - [Project] gives one command's argument schema, and [Representable]
//     whether it would, without building it,
//   - [Fingerprint] gives a verb's schema fingerprint,
//   - [RenderArgv] renders validated arguments as argv,
//   - [Tree.Find] resolves a command path (aliases included),
//   - [Inventory] reports how much of a tree can be offered, and why not the rest.
//
// Nothing here knows of MCP, of verbs beyond their names, or of running
// anything.
//
// # Schemas
//
// [Project] emits only this subset of JSON Schema draft 2020-12, which the
// surface's own validator interprets exactly (the cross-package contracts
// are in CONTRACTS.md at the repository root):
//
//   - root: "type": "object", "description", "properties", "required" (in
//     parser order), "additionalProperties": false, and "allOf" whose members
//     are only {"not": {"required": [A, B]}} (A and B mutually exclusive; one
//     member per pair) or {"anyOf": [{"required": [A]}, {"required": [B]}, …]}
//     (at least one of a required exclusive group, or of a cobra
//     one-required set), and "dependentRequired" ([DependentRequired]: a
//     later one of consecutive optional positionals requires every earlier
//     one, since argv fills them left to right);
//   - a property, and the "items" of an array property: "type" (string,
//     integer, number, boolean, array), "description", "default", "enum",
//     "pattern" (RE2), "minimum", "maximum", "not" (only {"enum": […]}:
//     forbidden literal values), "items", "minItems", "maxItems",
//     "uniqueItems";
//   - an array property's "items" may itself be an array only as a tuple of
//     exactly N scalars ("items", "minItems" = "maxItems" = N): one value of
//     a repeated fixed-arity option ([ArityRepeatedTuple]); nothing nests
//     deeper;
//   - a tuple whose positions differ ([Param.Elements]) has "prefixItems"
//     (one scalar schema per position) instead of "items", with "minItems"
//     = "maxItems" = its length, on the property or on its "items";
//   - on a property only, one type list: "type": ["boolean", T] (T string,
//     integer or number) with "not": {"enum": [false, …]} — an option that
//     may be given bare (true, rendered as the bare option: [Param.Bare]) or
//     with a value; an "enum" then lists true first.
//
// A count ([ArityCount]) is an integer from 0 to its stated maximum,
// rendered as the option repeated that many times.
//
// The translation is bounded: scalar string, integer and number
// values; flags as booleans; choices as "enum"; arities and repeated options
// as arrays with "minItems"/"maxItems" where known; required parameters;
// defaults; positionals as properties like any other; exclusive groups.
// Every string property carries a "pattern" — at least "^[^\x00]*$", since
// argv cannot carry a NUL byte — and every integer a "minimum" and "maximum"
// no wider than ±(2^53-1) ([MaxSafeInteger]), the range a JSON number
// carries exactly. Whatever a dialect cannot render is excluded by these same
// keywords (see Rendering), so that a value validation accepts is a value
// that renders and parses back exactly.
//
// # Unavailable commands
//
// Unrepresentable means unavailable: a parser feature outside the subset
// makes that command unavailable — [Project] and [RenderArgv] return an
// [*UnavailableError] naming the command path, the parameter and the
// offending action class or type — and is never given a schema that says
// more than the parser reads. (A value the parser reads as one word, such as
// a pflag.Value's Set(string) or an argparse type= callable, is honestly a
// string: the CLI is its final validator.) A schema that lies is worse than
// an absent verb. The adapters' documentation
// lists what each source cannot express; a command that only dispatches to
// subcommands is unavailable too (it runs nothing).
//
// # What the operator says
//
// What no parser states, the operator of a front can, each as a pure
// function of a command, like [ExcludeParams]: [Constrain] narrows the
// values a caller may give (a pattern, an enum, no leading dash: a value
// the program hands on to another program), projected as "enum" and as
// "allOf" of patterns beside the parser's own ([Param.Patterns]);
// [FixParams] gives parameters values no caller sees, positionals
// included, rendered with the caller's by the same rules ([Fixed]); and
// [StatePositionals] states a command's positionals where the adapter
// could not determine them (Unrepresentable.ByPositionals).
//
// # Fingerprints
//
// [Fingerprint] is "sf1-" plus the first 16 hex digits of SHA-256 over the
// canonical JSON (keys sorted, no insignificant whitespace) of
// {"schema": schema, "verb": verb}. Equal schemas give equal
// fingerprints in any process; a change to any parameter's name, type,
// default, choices, arity or requiredness changes it. It proves the schema a
// caller validated against is the schema that runs; it does not prove the
// caller read it — it is a transferable string. [ContentFingerprint] ("pf1-")
// fingerprints dynamic-parameter content such as a playbook (see [Injector]).
//
// # Rendering
//
// [RenderArgv] returns the argv tail that follows the command path: options
// first, in parser order, then "--" and the positionals, in order. No caller
// value ever occupies an option position: a value is either glued to its
// option by "=" or follows the "--" separator, with one exception per
// dialect stated below, guarded by the schema. Rules common to both dialects:
//
//   - an option with one value renders as --flag=value (the first long option
//     string; a short-only option as -f=value), whatever the value looks like;
//   - a boolean flag renders as the bare flag when the value is the one the
//     flag stores, as its negation (argparse BooleanOptionalAction's
//     --no-flag) otherwise;
//   - a repeated option (argparse append, pflag slices and arrays) renders
//     once per value;
//   - an omitted parameter renders nothing (the parser's default applies);
//   - integers render in decimal, numbers in the shortest text that parses
//     back to the same float64 (negative zero as 0).
//
// Dialect pflag (cobra):
//
//   - a bool renders as the bare --flag for the value its bare form stores
//     (true, unless the CLI set another NoOptDefVal) and as --flag=value for
//     the other; a bool without a no-value default always as --flag=value;
//   - a stringSlice occurrence is read by pflag as one CSV record, so each
//     value is CSV-quoted ("a,b" stays one value; a quote is doubled), and
//     the empty list renders as --flag= (an empty record);
//   - a float32 renders the shortest text of float32(value), so pflag parses
//     exactly the float32 nearest the value (the parameter's own precision);
//   - multi-value options (nargs) do not exist in pflag and are refused.
//
// Dialect argparse (Python 3.11):
//
//   - "--opt=value" works only for a single-value option (nargs None, '?',
//     1). An append option with nargs=N (any N) renders as --opt v1 … vN once
//     per tuple, under the same rules as below. An option taking several values (nargs '*', '+', N≥2) renders as
//     --opt v1 v2 …, each value its own word; the schema therefore forbids a
//     string item that starts with "-" (pattern), and a number item renders as
//     a plain decimal that argparse recognises as a negative number (when the
//     parser has an option that itself looks like a negative number, the
//     schema bounds such items to ≥ 0 instead). A '*' option given the empty
//     list renders as the bare option;
//   - argparse 3.11 removes a literal "--" from an argument's values, so the
//     schema forbids the value "--" everywhere ("not": {"enum": ["--"]});
//   - a store_true (store_false) flag has no spelling for false (true): that
//     value renders as nothing when it is the parser's default, and
//     otherwise the schema excludes it by "enum";
//   - values starting with one of the parser's fromfile_prefix_chars would
//     be read as file names and are excluded by pattern where they are words
//     of their own (positionals, multi-value option items).
//
// Dialect click (Python click and Typer):
//
//   - a short option (one prefix character, one letter) renders as two
//     words, -x value: click reads "-x=value" as "=value", and takes the
//     next word as an option's value whatever it looks like;
//   - an option of N values (nargs=N, a Tuple) renders as --opt v1 … vN,
//     verbatim, and a repeated one (multiple=True) so once per tuple;
//     options with a variable number of values do not exist;
//   - an option whose value may be omitted (click's is_flag=False with a
//     flag_value, [Param.Bare]) reads a next word that looks like an option
//     as no value, even glued by "=": the adapter's schema excludes such
//     values (see fromclick).
//
// Dialect optparse (Python optparse, whose parser click's derives from)
// renders as dialect click does: a short option and its value as two
// words, N values as N words after the option.
//
// Dialect clap (Rust clap, read from its help by fromclap) renders as
// dialect argparse does for what a help reader offers (flags, counts,
// options of one value, positionals): --flag=value for a long option,
// -f=value for a short-only one (clap drops the "="), a flag's false as
// nothing.
//
// Dialect declared (a program's commands declared by hand, [Declare]):
//
//   - an option with one value renders as --opt=value, or, when the
//     command's [Rendering] says values separate, as two words --opt
//     value; a repeated option once per value; a count flag as the flag
//     repeated;
//   - the positionals follow "--", or, when the rendering says
//     no_separator, follow the options directly;
//   - wherever a value is a word of its own without a "--" before it,
//     Declare has made its schema refuse a leading "-" (a pattern, choices
//     checked, a minimum of 0) or refused the declaration.
//
// RenderArgv re-checks every value against the very constraints [Project]
// emitted, and refuses with an [*ArgError] rather than render anything
// doubtful, so a bug in a validator upstream cannot put a caller value where
// the parser would misread it. The round trip — for every argument object
// validation accepts, the real parser (cobra in-process, argparse in Python)
// yields exactly those values — is a property test and a fuzz target in the
// adapters.
//
// # Dynamic parameters
//
// Some parameters add parameters (a playbook name injects the playbook's
// declared args). An [Injector] performs the CLI's own injection on a fresh
// parser and returns the resulting command plus a content fingerprint of what
// it injected; the schema of that command is projected like any other.
package projector
