package fromcobrabin

import (
	"context"
	"strings"
)

// A program call costs far more than anything the reader does with its
// answer (a 200-command program: about 9 ms of CPU a call, most of it the
// kernel's exec of a large binary), so the questions the probes of
// walk.go ask flag by flag are first asked of all of a command's flags
// at once. pflag parses the words of a command line in order and stops at
// the first it cannot set, so one answer that the words parsed says that
// each flag's words parse on their own: the answer every one of the
// single questions would have given. Any other answer settles nothing,
// and each flag is then asked alone, as before.

// probed is what the questions asked together learnt of a command's
// flags, by printed entry: the answer each flag's question would have had
// alone, where the answer together settles it (all parsed, or a question
// asked of one flag only).
type probed struct {
	bools map[*flagLine]probe // --flag=true --flag=false
	texts map[*flagLine]probe // --flag=x
	// repeats is set, for a flag of texts, when cobra's answer after
	// all of them given lists every flag it would complete: it completes
	// a flag already given again only for a slice, an array or a map.
	repeats map[*flagLine]bool
}

// boolAnswer is the answer to f's --flag=true --flag=false, if known.
func (p *probed) boolAnswer(f *flagLine) (probe, bool) {
	if p == nil {
		return probeUnclear, false
	}
	pr, ok := p.bools[f]
	return pr, ok
}

// textAnswer is the answer to f's --flag=x: the one learnt together, or
// ask's.
func (p *probed) textAnswer(f *flagLine, ask func() probe) probe {
	if p != nil {
		if pr, ok := p.texts[f]; ok {
			return pr
		}
	}
	return ask()
}

// repeated says whether the answer shows f given again; known is false
// when it cannot tell (the answer listed only required flags).
func (p *probed) repeated(f *flagLine) (again, known bool) {
	if p == nil || p.repeats == nil {
		return false, false
	}
	again, known = p.repeats[f]
	return again, known
}

// probeKind is the question flagParam would ask of f first, past the
// bare probe: whether it is a bool (a flag printed with no word and no
// default of a value) or reads any text (a placeholder with no no-value
// default). raw is the command's flag listing (flag name -> raw usage).
type probeKind int

const (
	probeNone probeKind = iota
	probeBool
	probeString
)

func kindToProbe(f *flagLine, raw map[string]string) probeKind {
	r, known := raw[f.name]
	kind, _ := classifyWord(f, r, known)
	switch {
	case kind == wordType && f.word == "" && !valueDefault(f):
		return probeBool
	case kind == wordPlaceholder && !f.hasNoOpt:
		return probeString
	}
	return probeNone
}

// probeTogether asks, for the flags of the command at path, the question
// each would be asked alone (kind says which, see kindToProbe): one call
// for the flags that may be bools, one for those that may read any text.
// A flag the walk learns once for every command that has it (shared: an
// inherited flag) is left out: the commands walked at the same time would
// each ask it, where alone the first asks and the others wait.
func (w *walker) probeTogether(ctx context.Context, path []string, flags []*flagLine, kind func(*flagLine) probeKind, shared func(*flagLine) bool) *probed {
	if w.oneByOne {
		return nil
	}
	var bools, texts []*flagLine
	for _, f := range flags {
		if f.name == "help" || w.exclude[f.name] || shared(f) {
			continue
		}
		switch kind(f) {
		case probeBool:
			bools = append(bools, f)
		case probeString:
			texts = append(texts, f)
		}
	}
	p := &probed{bools: map[*flagLine]probe{}, texts: map[*flagLine]probe{}}
	if len(bools) > 0 {
		var words []string
		for _, f := range bools {
			words = append(words, "--"+f.name+"=true", "--"+f.name+"=false")
		}
		if _, pr, ok := w.together(ctx, path, words); ok && (pr == probeParsed || len(bools) == 1) {
			for _, f := range bools {
				p.bools[f] = pr
			}
		}
	}
	if len(texts) > 0 {
		var words []string
		for _, f := range texts {
			words = append(words, "--"+f.name+"=x")
		}
		if c, pr, ok := w.together(ctx, path, words); ok && (pr == probeParsed || len(texts) == 1) {
			for _, f := range texts {
				p.texts[f] = pr
			}
			// While a required flag is not given, cobra lists only the
			// required flags; the help flag, never required, is in the
			// answer only when it lists them all.
			if _, full := c.find("--help"); full && pr == probeParsed {
				p.repeats = map[*flagLine]bool{}
				for _, f := range texts {
					_, p.repeats[f] = c.find("--" + f.name)
				}
			}
		}
	}
	return p
}

// together completes a flag name after words on the command at path, as
// program.parses does, and returns the answer and what it says of the
// words; ok is false when the call failed.
func (w *walker) together(ctx context.Context, path, words []string) (*completion, probe, bool) {
	c, err := w.prog.complete(ctx, path, append(words, "-")...)
	if err != nil {
		w.settled(err)
		return nil, probeUnclear, false
	}
	return c, c.probe(), true
}

// valueDefault reports whether f's usage ends in a default of one word
// other than "true": pflag prints none for a bool but "true", so the flag
// takes words of its own (see noWord).
func valueDefault(f *flagLine) bool {
	_, def, ok := pflagDefault(f.usage, false)
	return ok && def != "true" && def != "" && !strings.ContainsAny(def, " \t\n")
}
