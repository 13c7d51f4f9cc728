package projector_test

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"

	. "github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/argsgen"
)

var negativeNumber = regexp.MustCompile(`^-\d+$|^-\d*\.\d+$`)

func opt(name string, kind Kind, arity Arity) *Param {
	return &Param{Name: name, Options: []string{"--" + strings.ReplaceAll(name, "_", "-")}, Kind: kind, Arity: arity}
}

func pos(name string, arity Arity) *Param {
	return &Param{Name: name, Kind: KindString, Arity: arity, Required: arity == ArityOne || arity == ArityOneOrMore}
}

func with(p *Param, f func(p *Param)) *Param { f(p); return p }

func cmdWith(params ...*Param) *Command {
	return &Command{Path: []string{"t"}, Runnable: true, Params: params}
}

// TestNoCallerValueInOptionPosition: over random hostile args, every word
// before the "--" separator is one of the model's option strings, alone or
// followed by "=", or an item of an argparse multi-value option that does not
// start with "-". So no caller value can become an option.
func TestNoCallerValueInOptionPosition(t *testing.T) {
	params := []*Param{
		opt("s", KindString, ArityOne),
		with(opt("b", KindBoolean, ArityNone), func(p *Param) { p.FlagValue = true; p.NegOptions = []string{"--no-b"} }),
		opt("r", KindString, ArityRepeated),
		with(opt("m", KindString, ArityOneOrMore), func(p *Param) { p.Pattern = `^(?:[^-\x00][^\x00]*)?$` }),
		opt("n", KindNumber, ArityZeroOrMore),
		pos("p", ArityOne),
		pos("rest", ArityZeroOrMore),
	}
	cmd := cmdWith(params...)
	for _, d := range []Dialect{DialectPflag, DialectArgparse} {
		g := &argsgen.Gen{R: rand.New(rand.NewSource(1))}
		rendered := 0
		for i := 0; i < 400; i++ {
			args := g.Args(cmd)
			argv, err := RenderArgv(d, cmd, args)
			if err != nil {
				continue
			}
			rendered++
			inMulti := false
			for _, w := range argv {
				if w == "--" {
					break
				}
				isOpt := false
				for _, p := range params {
					for _, o := range append(append([]string(nil), p.Options...), p.NegOptions...) {
						if w == o || strings.HasPrefix(w, o+"=") {
							isOpt = true
							inMulti = p.Arity == ArityOneOrMore || p.Arity == ArityZeroOrMore
						}
					}
				}
				if !isOpt && (!inMulti || strings.HasPrefix(w, "-") && !negativeNumber.MatchString(w)) {
					t.Fatalf("%s: word %q of %q is a caller value in an option position", d, w, argv)
				}
			}
		}
		if rendered < 40 {
			t.Fatalf("%s: only %d of 400 rendered", d, rendered)
		}
	}
}
