package fromcobra

import (
	"errors"

	"github.com/spf13/pflag"

	"github.com/verbsurface/verbsurface/projector"
)

// FlagParam returns the parameter [Walk] makes of one visible flag, by its
// pflag value type (the table in the package documentation), its default,
// its no-value default and its annotations. It is for an adapter that
// learns a cobra program's flags another way — projector/fromcobrabin reads
// them from the installed program's --help — so that the two map every type
// the same way and cannot drift apart.
//
// FlagParam does not decide whether f is offered (hidden, deprecated,
// excluded flags) and does not read cobra's group annotations, which are a
// command's, not a flag's.
func FlagParam(f *pflag.Flag) *projector.Param { return flagParam(f) }

// UsePositionals returns the positional parameters that a Use line states
// by its own grammar (see Positionals in the package documentation):
// required words, then optional ones, then at most one variadic word, last.
// ok is false when the line's words are in another order, so that the line
// names nothing reliably. use is the whole Use line, the command's own name
// first ("copy SRC DST [flags]").
//
// [Walk] offers this range when the command's Args validator accepts it,
// and otherwise the validator's; an adapter that cannot call the validator
// has only this. The parameters' Help is the Use-line word; Walk replaces
// it by a description, and renames a positional whose name a flag has
// taken.
func UsePositionals(use string) (params []*projector.Param, ok bool) {
	params, err := ReadUsePositionals(use, nil)
	return params, err == nil
}

// UseReading is what an adapter that reads a Use line without its
// command's Args validator knows besides the line: the command's flags,
// and how program authors spell "any number".
type UseReading struct {
	// ValueFlag reports whether the option word opt ("-f", "--file") is a
	// flag of the command (known) that takes a value. The Use line
	// "prog -f <file> <selector>" then names one positional, selector:
	// <file> is the value of -f. An option the command does not have
	// makes the line unreadable, since what follows it cannot be told.
	// Nil: option words are skipped, and the words after them read as
	// positionals.
	ValueFlag func(opt string) (takesValue, known bool)
	// Repeats reads the same word three times or more, ending the line
	// ("validate <file> <file> <file>"), as that word, variadic: one or
	// more when the words are required. Twice stays two positionals
	// ("diff FILE FILE").
	Repeats bool
}

// ReadUsePositionals is [UsePositionals] with the readings r gives (nil:
// none, as UsePositionals). err says why the line names nothing
// reliably.
func ReadUsePositionals(use string, r *UseReading) ([]*projector.Param, error) {
	tokens, err := readUseTokens(use, r)
	if err != nil {
		return nil, err
	}
	grammatical, min, max := useRange(tokens)
	if !grammatical {
		return nil, errors.New("it does not list required words, then optional ones, then at most one variadic word")
	}
	return layout(tokens, min, max), nil
}
