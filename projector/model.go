package projector

// The parser model: a neutral description of a CLI's parser, filled by an
// adapter (fromcobra, fromargparse) and read by projection, fingerprinting,
// rendering and the inventory. It is plain data and round-trips through JSON,
// so the argparse walker (Python) can emit it and tests can pin it.

// Dialect names the parser family a tree came from. Rendering typed args back
// to argv follows the dialect's syntax rules (for example pflag reads slice
// values as CSV; argparse cannot take a dash-leading value for an nargs option
// after a space).
type Dialect string

const (
	DialectPflag    Dialect = "pflag"    // spf13/cobra + spf13/pflag
	DialectArgparse Dialect = "argparse" // Python argparse
	// DialectClick is Python click (and Typer, which builds click
	// commands). Added after the first two; see the package documentation
	// (Rendering) for how it differs.
	DialectClick Dialect = "click"
	// DialectOptparse is Python optparse, whose parser click's own was
	// derived from: it renders as click does (Rendering).
	DialectOptparse Dialect = "optparse"
	// DialectClap is Rust clap, read from its help: it renders as
	// argparse does for the arities a help reader offers (Rendering).
	DialectClap Dialect = "clap"
)

// Tree is a CLI's whole parser.
type Tree struct {
	Program  string     `json:"program"`  // display name: "limcp", "python3 -m json.tool"
	Dialect  Dialect    `json:"dialect"`  // parser family; governs rendering
	Commands []*Command `json:"commands"` // every command path, parents before children, siblings in parser order
}

// Command is one command path of the CLI.
type Command struct {
	Path     []string `json:"path"`              // ["schedule","list"]; empty for the root
	Aliases  []string `json:"aliases,omitempty"` // other spellings of the last path element
	Summary  string   `json:"summary,omitempty"` // one line
	Hidden   bool     `json:"hidden,omitempty"`
	Runnable bool     `json:"runnable"` // false for a pure group (a cobra parent without Run, an argparse parser that only dispatches)
	Params   []*Param `json:"params"`   // in parser order
	Groups   []Group  `json:"groups,omitempty"`

	// Excluded lists the option strings the command accepts that the
	// adapter left out of Params on request (fromcobra's ExcludeFlags): a
	// machine-mode flag the embedder always renders itself, or a flag no
	// caller may set. They are never parameters; they are recorded so a
	// consumer can tell a flag it excluded from one the command lacks.
	Excluded []string `json:"excluded,omitempty"`

	// Unrepresentable, when set, makes the whole command unavailable for a
	// reason that is not one parameter's (undeterminable positionals, an
	// ambiguous nested subparser).
	Unrepresentable *Unrepresentable `json:"unrepresentable,omitempty"`

	// AnyRequired lists sets of parameters (by Param.Name) of which at least
	// one must be given, without being mutually exclusive (cobra
	// MarkFlagsOneRequired on flags not also marked mutually exclusive).
	// Projected as "anyOf" of single "required" members. (Added after the
	// pinned fields; absent in older model JSON.)
	AnyRequired [][]string `json:"any_required,omitempty"`

	// ArgFilePrefixes are the characters that make an argv word name a
	// file of more arguments, anywhere on the command line (argparse's
	// fromfile_prefix_chars of the command's parser and its ancestors).
	// Rendering keeps caller values from starting with them (the
	// parameters' patterns say so); a reader of a whole stored command
	// line ([ParseArgv]) refuses any word that does. (Added after the
	// pinned fields.)
	ArgFilePrefixes string `json:"argfile_prefixes,omitempty"`

	// Rendering is how a declared command spells its argv (read under
	// [DialectDeclared] only; see [Declare]). (Added after the pinned
	// fields.)
	Rendering *Rendering `json:"rendering,omitempty"`

	// Unread marks a command a reader listed (its Path and Summary, from
	// its parent's listing) without reading its parameters yet: a reader
	// that reads on demand (fromcobrabin's Lister) hands out such a tree
	// so that a server can answer before every command of a large
	// program is read. An Unread command has no Params and must not be
	// projected, rendered or fingerprinted: a consumer asks its source to
	// read it first (verbsurface.Options.Read). (Added after the pinned
	// fields.)
	Unread bool `json:"unread,omitempty"`
}

// Group is a set of mutually exclusive parameters (by Param.Name).
// Required means exactly one must be given (argparse required groups; cobra
// MarkFlagsOneRequired combined with MarkFlagsMutuallyExclusive).
type Group struct {
	Params   []string `json:"params"`
	Required bool     `json:"required,omitempty"`
}

// Kind is a parameter's scalar value kind (for arrays: the item kind).
type Kind string

const (
	KindString  Kind = "string"
	KindInteger Kind = "integer"
	KindNumber  Kind = "number"
	KindBoolean Kind = "boolean"
)

// Arity says how many values a parameter takes and how they are spelled.
type Arity string

const (
	ArityNone       Arity = "none"         // a flag with no value (store_true, store_false, pflag bool): Kind is boolean
	ArityOne        Arity = "one"          // exactly one value: a scalar in the schema
	ArityOptional   Arity = "optional"     // nargs='?': zero or one value, a scalar
	ArityZeroOrMore Arity = "zero_or_more" // nargs='*': an array
	ArityOneOrMore  Arity = "one_or_more"  // nargs='+' (and cobra ARGS... variadics): an array, minItems 1
	ArityExactly    Arity = "exactly"      // nargs=N: an array of exactly N
	ArityRepeated   Arity = "repeated"     // an option given once per value (append, pflag slices/arrays): an array
	// ArityCount is a flag whose value is how many times it is given
	// (argparse count, -vvv): Kind integer, from 0 to Maximum, which the
	// adapter must set (argv spells n as the flag repeated n times).
	ArityCount Arity = "count"
	// ArityRepeatedTuple is an option given once per value where each
	// value is N words (click multiple=True with nargs=N or a Tuple type;
	// argparse action="append" with nargs=N): an array of arrays of exactly
	// N items each, every item of the parameter's Kind and constraints.
	// Options only. (Added after the pinned kinds.)
	ArityRepeatedTuple Arity = "repeated_tuple"
)

// MaxCount is the Maximum adapters give an ArityCount parameter when the
// parser states none: a count is rendered as that many words, so it is
// bounded, and no CLI distinguishes verbosity levels beyond a handful.
const MaxCount = 9

// MaxChoices is the most choices a parameter may have and still be
// offered: past it the verb is unavailable, naming the parameter. A
// schema listing them all would be a megabyte for one option, and no
// caller reads it.
const MaxChoices = 10000

// Param is one parameter of a command.
type Param struct {
	Name     string   `json:"name"`              // schema property name, unique within the command
	Options  []string `json:"options,omitempty"` // option strings ("-n", "--count"); empty for a positional
	Kind     Kind     `json:"kind"`
	Arity    Arity    `json:"arity"`
	N        int      `json:"n,omitempty"`        // the count for ArityExactly; the words per value for ArityRepeatedTuple
	Choices  []any    `json:"choices,omitempty"`  // allowed values (JSON scalars)
	Default  any      `json:"default,omitempty"`  // the parser's default, if any (JSON value)
	Required bool     `json:"required,omitempty"` // the parser rejects the command without it
	Help     string   `json:"help,omitempty"`
	Action   string   `json:"action"`            // source action name, for messages: "store_true", "_AppendAction", "pflag:stringSlice"
	Type     string   `json:"type,omitempty"`    // source type name, for messages: "int", "parse_budget", "duration"
	Pattern  string   `json:"pattern,omitempty"` // RE2 pattern the value (or each item) must match; also emitted in the schema

	// NegOptions are the option strings that set a boolean parameter to
	// false when its Options set it to true (argparse BooleanOptionalAction's
	// --no-x). For store_false the Options themselves set false; see FlagValue.
	NegOptions []string `json:"neg_options,omitempty"`
	// FlagValue is the value a bare ArityNone flag stores: true for
	// store_true and pflag bool, false for store_false.
	FlagValue bool `json:"flag_value,omitempty"`

	// Unrepresentable, when set, makes the command unavailable: the model
	// cannot express this parameter and will not pretend to.
	Unrepresentable *Unrepresentable `json:"unrepresentable,omitempty"`

	// The fields below were added after the pinned ones. They carry the
	// constraints a dialect needs so that every value validation accepts
	// renders to an argv the parser reads back exactly; the
	// adapters fill them, Project emits them, RenderArgv enforces them again.

	// Forbidden lists literal values (for arrays: item values) the parser
	// would misread, e.g. "--", which Python 3.11's argparse removes from an
	// argument's values. Projected as "not": {"enum": [...]}.
	Forbidden []any `json:"forbidden,omitempty"`
	// Minimum and Maximum bound an integer or number value (or each item):
	// the range of a sized integer type, or 0 for an unsigned one.
	Minimum *float64 `json:"minimum,omitempty"`
	Maximum *float64 `json:"maximum,omitempty"`
	// MinItems raises an array parameter's lower bound above what its arity
	// implies, when the parser cannot be given an empty list (a pflag
	// stringArray with a non-empty default cannot be emptied from argv).
	MinItems int `json:"min_items,omitempty"`
	// MaxItems and UniqueItems bound an array parameter for a consumer that
	// must not be handed unbounded work (a wait over 10,000 ids, or one id
	// 300,000 times): at most MaxItems values (0: no bound beyond the
	// arity's), and no value twice. The parser itself would accept more;
	// these are the embedder's limits, stated in the schema so a refusal
	// teaches. Projected as "maxItems" and "uniqueItems".
	MaxItems    int  `json:"max_items,omitempty"`
	UniqueItems bool `json:"unique_items,omitempty"`

	// Path, when set, says the value names a file or directory the CLI
	// will open (argparse FileType or pathlib.Path, click Path or File, a
	// cobra flag annotated as a path). The model only records it; a
	// surface that fronts untrusted callers confines such values to the
	// roots its operator allows before anything runs.
	Path PathUse `json:"path,omitempty"`

	// Bare says an option with a value (ArityOne or ArityOptional) may also
	// be given without one (argparse nargs='?' on an option, a pflag flag
	// with a NoOptDefVal): the schema then admits true for that spelling,
	// besides a value. Never set on a positional or an array.
	Bare bool `json:"bare,omitempty"`
	// Const is what the parser stores for the bare spelling of a Bare
	// option, or for an ArityNone flag that stores a constant rather than
	// true (argparse store_const, append_const: [Const]). It is recorded for
	// messages and round-trip checks; the schema says true for it.
	Const any `json:"const,omitempty"`
	// Metavar is the word the parser's own help shows for the value, when
	// the CLI's author chose one ("FILE", "CONFIG_PATH"): a hint, read by
	// [LooksLikePath], never projected. Empty when the parser derives it.
	Metavar string `json:"metavar,omitempty"`
	// Dest is where the parser stores the value when that is not Name:
	// a flag split from a destination several options share (argparse
	// -v/-q both storing a constant into "verbosity"). Empty otherwise.
	Dest string `json:"dest,omitempty"`

	// Elements, when set, states each of the N values of an ArityExactly
	// or ArityRepeatedTuple parameter on its own (a click Tuple whose
	// types differ or carry constraints): value i is checked by
	// Elements[i], and the parameter's own Choices, Pattern, Forbidden,
	// Minimum and Maximum must be unset (its Kind is Elements[0]'s).
	// Projected as "prefixItems" with minItems = maxItems = N. Never on a
	// path parameter: the surface confines whole values, not positions.
	Elements []Element `json:"elements,omitempty"`

	// Patterns are more RE2 patterns the value (or each item) must match
	// besides Pattern: an operator's constraints ([Constrain]), which
	// cannot be merged into the parser's own pattern (RE2 has no
	// intersection). Projected as "allOf": [{"pattern": ...}, ...] on the
	// value's schema. Strings only; never with Elements.
	Patterns []string `json:"patterns,omitempty"`
}

// Element is the constraints of one position of a tuple value (see
// Param.Elements); the fields mean what the Param fields of the same
// names mean.
type Element struct {
	Kind      Kind     `json:"kind"`
	Type      string   `json:"type,omitempty"`
	Choices   []any    `json:"choices,omitempty"`
	Pattern   string   `json:"pattern,omitempty"`
	Forbidden []any    `json:"forbidden,omitempty"`
	Minimum   *float64 `json:"minimum,omitempty"`
	Maximum   *float64 `json:"maximum,omitempty"`
}

// Element returns a parameter that describes position i of p's tuple
// values: p itself when it has no Elements, else a copy of p carrying
// Elements[i]'s kind and constraints (for generators and checks that work
// on one value at a time).
func (p *Param) Element(i int) *Param {
	if len(p.Elements) == 0 {
		return p
	}
	e := p.Elements[i]
	q := *p
	q.Elements = nil
	q.Kind, q.Choices, q.Pattern, q.Forbidden, q.Minimum, q.Maximum = e.Kind, e.Choices, e.Pattern, e.Forbidden, e.Minimum, e.Maximum
	if e.Type != "" {
		q.Type = e.Type
	}
	return &q
}

// PathUse says how a CLI uses a parameter's value as a filesystem path.
type PathUse string

const (
	PathUseNone  PathUse = ""      // not a path
	PathUseRead  PathUse = "read"  // a file the CLI reads
	PathUseWrite PathUse = "write" // a file the CLI creates or writes
	PathUseDir   PathUse = "dir"   // a directory the CLI works in
	// PathUseReadOrDir is a file the CLI reads or a directory it reads
	// (a linter's FILE_OR_DIR, a formatter's SRC ...). Added after the
	// first three.
	PathUseReadOrDir PathUse = "read_or_dir"
)

// PathUses lists every PathUse but PathUseNone, in the order documented.
var PathUses = []PathUse{PathUseRead, PathUseWrite, PathUseDir, PathUseReadOrDir}

// Positional reports whether p is a positional parameter.
func (p *Param) Positional() bool { return len(p.Options) == 0 }

// Unrepresentable records why something cannot be projected: the offending
// action class or type, by name, so the reason can be acted on.
type Unrepresentable struct {
	Action string `json:"action,omitempty"` // e.g. "CustomAction", "pflag:ipNet"
	Type   string `json:"type,omitempty"`   // e.g. "parse_budget"
	Reason string `json:"reason"`           // one sentence
	// ByParams, on a command's reason, says it lies only in how the
	// command's parameters sit together: two of them store to one
	// destination, or positionals take words argv cannot tell apart. An
	// adapter sets it only when no other reason blocks the command, so
	// [ExcludeParams] may check the remaining parameters again and drop
	// the reason once they no longer conflict. (Added after the first
	// three fields.)
	ByParams bool `json:"by_params,omitempty"`
	// ByPositionals, on a command's reason, says it lies only in the
	// positionals the adapter could not determine (an Args validator
	// that reads the values, a usage line no rule reads): an operator
	// who states them ([StatePositionals]) makes the command available.
	ByPositionals bool `json:"by_positionals,omitempty"`
}
