package fromcobra

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/verbsurface/verbsurface/projector"
)

// useWord matches one positional of a Use line: NAME, <NAME>, [NAME],
// NAME..., [NAME...] (and [NAME]...).
var useWord = regexp.MustCompile(`^(\[)?<?([A-Za-z][A-Za-z0-9_-]*)>?(\.\.\.)?(\])?(\.\.\.)?$`)

// probeExtra is how many counts beyond the Use line's largest the Args
// validator is probed with.
const probeExtra = 3

// positionals reads a command's positional parameters from its Use line and
// checks them against its Args validator. It returns the parameters, or why
// they cannot be determined.
//
// The grammar is: required words first, then at most one optional ([NAME])
// or variadic (NAME..., [NAME...]) word, last. "[flags]" and "[options]" are
// ignored. Anything else — {a|b}, NAME=VALUE, two optional words (giving the
// second without the first has no argv spelling) — is undeterminable.
func positionals(c *cobra.Command) ([]*projector.Param, *projector.Unrepresentable) {
	undeterminable := func(format string, a ...any) *projector.Unrepresentable {
		return &projector.Unrepresentable{Reason: "positionals cannot be determined: " + fmt.Sprintf(format, a...)}
	}
	words := strings.Fields(c.Use)
	if len(words) > 0 {
		words = words[1:] // the command's own name
	}
	var params []*projector.Param
	required, variable := 0, false
	unbounded := false
	for _, w := range words {
		if lw := strings.ToLower(w); lw == "[flags]" || lw == "[options]" {
			continue
		}
		m := useWord.FindStringSubmatch(w)
		if m == nil || (m[1] == "[") != (m[4] == "]") {
			return nil, undeterminable("Use line %q: word %q is not NAME, [NAME], NAME... or [NAME...]", c.Use, w)
		}
		if variable {
			return nil, undeterminable("Use line %q: %q follows an optional or variadic positional", c.Use, w)
		}
		optional, variadic := m[1] == "[", m[3] != "" || m[5] != ""
		p := &projector.Param{
			Name:   snakeCase(m[2]),
			Kind:   projector.KindString,
			Action: "cobra:positional",
			Help:   w,
		}
		switch {
		case optional && variadic:
			p.Arity = projector.ArityZeroOrMore
		case variadic:
			p.Arity, p.Required = projector.ArityOneOrMore, true
		case optional:
			p.Arity = projector.ArityOptional
		default:
			p.Arity, p.Required = projector.ArityOne, true
			required++
		}
		if optional || variadic {
			variable = true
			unbounded = variadic
			if !optional {
				required++
			}
		}
		params = append(params, p)
	}

	// The Use line is the schema; the validator must accept every count it
	// allows (probed up to a few past the largest), or the two disagree
	// and the command's positionals are undeterminable.
	largest := required
	if variable {
		largest++
	}
	validate := argsValidator(c)
	probe, bogus := "arg", "\x00not-a-valid-arg"
	var choices []any
	if len(c.ValidArgs) > 0 {
		probe = strings.SplitN(c.ValidArgs[0], "\t", 2)[0]
	}
	for n := 0; n <= largest+probeExtra; n++ {
		allowed := n >= required && (n <= largest || unbounded)
		if !allowed {
			continue
		}
		if !validate(repeat(probe, n)) {
			return nil, undeterminable("the Args validator rejects %d positional argument(s), which Use line %q allows", n, c.Use)
		}
		if n > 0 && len(c.ValidArgs) > 0 && choices == nil && !validate(repeat(bogus, n)) {
			// The validator enforces ValidArgs (cobra.OnlyValidArgs): each
			// positional is one of them.
			for _, v := range c.ValidArgs {
				choices = append(choices, strings.SplitN(v, "\t", 2)[0])
			}
		}
	}
	for _, p := range params {
		p.Choices = choices
	}
	return params, nil
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// argsValidator returns whether c accepts a positional argument list, as
// cobra decides it: c.Args if set; otherwise any list, except that a root
// with subcommands rejects positionals (cobra's legacyArgs, applied when the
// root is the command found). A panicking validator rejects.
func argsValidator(c *cobra.Command) func([]string) bool {
	return func(args []string) (ok bool) {
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		if c.Args == nil {
			return !(c.HasSubCommands() && !c.HasParent() && len(args) > 0)
		}
		return c.Args(c, args) == nil
	}
}
