// Package argsgen generates argument objects for the projector's round-trip
// property tests and fuzz targets: mostly valid for a command's model, often
// hostile (dash-leading strings, "--", "=", "--help", newlines, quotes,
// braces, unicode, 100 KB values), and sometimes invalid on purpose, so that
// the tests also see validation reject what rendering must refuse.
package argsgen

import (
	"encoding/json"
	"math"
	"math/rand"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
)

// Hostile is the seed corpus of strings that a naive renderer gets wrong.
var Hostile = []string{
	"", "-", "--", "---", "-x", "--help", "-h", "--json", "--name=evil", "--=x", "-5", "-1.5", "-1e5", "-.5",
	"=", "a=b", "==", "a,b", ",", "a,", ",a", `"`, `""`, `"quoted"`, `a"b`, `"a,b"`, `'single'`,
	"{}", `{"a":1}`, "[1,2]", "[", "}", "line1\nline2", "\n", "\r\n", "\r", "a\rb", "\t", " ", " leading", "trailing ",
	"日本語", "emoji 😀", "\u202egnp.exe", "\\", `\"`, "$(rm -rf /)", "`id`", ";", "|", "&&", "*", "?", "~", "%s", "%(default)s",
	"@file", "+x", "0x10", "010", "1_000", "true", "false", "null", "None", "\x00", "a\x00b", "ok", "plain value",
	strings.Repeat("x", 100*1024), strings.Repeat("-", 1000), "-" + strings.Repeat("é", 50000),
}

// Gen draws values from R.
type Gen struct {
	R *rand.Rand
	// Invalid is the probability of deliberately breaking an object
	// (unknown key, wrong type, missing required parameter).
	Invalid float64
	// Sample, when set, may supply a string value for a string parameter
	// whose pattern random strings almost never match (a UUID, a date);
	// ok false falls back to the usual strings.
	Sample func(p *projector.Param) (s string, ok bool)
}

// String returns a hostile or random string.
func (g *Gen) String() string {
	switch g.R.Intn(4) {
	case 0, 1:
		return Hostile[g.R.Intn(len(Hostile))]
	case 2:
		return Hostile[g.R.Intn(len(Hostile))] + g.randomText(4) + Hostile[g.R.Intn(len(Hostile))]
	default:
		return g.randomText(12)
	}
}

func (g *Gen) randomText(max int) string {
	var b strings.Builder
	n := g.R.Intn(max + 1)
	for i := 0; i < n; i++ {
		switch g.R.Intn(6) {
		case 0:
			b.WriteByte(byte(0x20 + g.R.Intn(0x5f))) // printable ASCII
		case 1:
			special := "-=,\"'\n\t {}[]@+"
			b.WriteByte(special[g.R.Intn(len(special))])
		case 2:
			b.WriteRune(rune(0xa0 + g.R.Intn(0x2000)))
		case 3:
			b.WriteRune(rune(0x1f300 + g.R.Intn(0x300)))
		case 4:
			b.WriteByte(byte('a' + g.R.Intn(26)))
		default:
			b.WriteByte(byte('0' + g.R.Intn(10)))
		}
	}
	return b.String()
}

// Integer returns an integer within [lo, hi] (JSON-decoded: a float64),
// favouring the edges.
func (g *Gen) Integer(lo, hi float64) float64 {
	switch g.R.Intn(6) {
	case 0:
		return lo
	case 1:
		return hi
	case 2:
		return 0
	case 3:
		return float64(g.R.Intn(200) - 100)
	}
	span := hi - lo
	return math.Floor(lo + g.R.Float64()*span)
}

// Number returns a float, favouring awkward ones.
func (g *Gen) Number(lo, hi *float64) float64 {
	var f float64
	switch g.R.Intn(8) {
	case 0:
		f = 0
	case 1:
		f = math.Copysign(0, -1)
	case 2:
		f = 5e-324
	case 3:
		f = -1e300
	case 4:
		f = 0.1
	case 5:
		f = -2.5
	default:
		f = g.R.NormFloat64() * math.Pow(10, float64(g.R.Intn(40)-20))
	}
	if lo != nil && f < *lo {
		f = *lo
	}
	if hi != nil && f > *hi {
		f = *hi
	}
	return f
}

// Scalar returns a value for one item of p.
func (g *Gen) Scalar(p *projector.Param) any {
	if len(p.Choices) > 0 && g.R.Intn(5) > 0 {
		return p.Choices[g.R.Intn(len(p.Choices))]
	}
	switch p.Kind {
	case projector.KindBoolean:
		return g.R.Intn(2) == 0
	case projector.KindInteger:
		lo, hi := float64(-projector.MaxSafeInteger), float64(projector.MaxSafeInteger)
		if p.Minimum != nil {
			lo = math.Max(lo, *p.Minimum)
		}
		if p.Maximum != nil {
			hi = math.Min(hi, *p.Maximum)
		}
		return g.Integer(lo, hi)
	case projector.KindNumber:
		return g.Number(p.Minimum, p.Maximum)
	}
	if g.Sample != nil && g.R.Intn(5) > 0 {
		if s, ok := g.Sample(p); ok {
			return s
		}
	}
	if p.Type == "duration" && g.R.Intn(4) > 0 {
		return []string{"0", "1h30m", "-1.5s", "250ms", "99999h", ".5us", "1µs", "+3m2s1ns", "2h45m0.5s"}[g.R.Intn(9)]
	}
	return g.String()
}

// Tuple returns one value of an ArityRepeatedTuple parameter: p.N scalars,
// and now and then one too few or too many (refused by validation).
func (g *Gen) Tuple(p *projector.Param) []any {
	n := p.N
	if g.Invalid > 0 && g.R.Float64() < g.Invalid/4 {
		n += []int{-1, 1}[g.R.Intn(2)]
	}
	out := make([]any, n)
	for i := range out {
		if i < p.N {
			out[i] = g.Scalar(p.Element(i))
		} else {
			out[i] = g.Scalar(p)
		}
	}
	return out
}

// Args returns an argument object for cmd: each optional parameter given
// with probability 1/2, required ones always (unless breaking on purpose).
// Values are in decoded-JSON form (float64, []any).
func (g *Gen) Args(cmd *projector.Command) map[string]any {
	args := map[string]any{}
	for _, p := range cmd.Params {
		if !p.Required && g.R.Intn(2) == 0 {
			continue
		}
		switch p.Arity {
		case projector.ArityNone, projector.ArityOne, projector.ArityOptional:
			args[p.Name] = g.Scalar(p)
			if p.Bare && g.R.Intn(4) == 0 {
				args[p.Name] = g.R.Intn(8) != 0 // the bare spelling; false (refused) now and then
			}
		case projector.ArityCount:
			args[p.Name] = g.Scalar(p)
		default:
			n := g.R.Intn(4)
			switch p.Arity {
			case projector.ArityExactly:
				n = p.N
			case projector.ArityOneOrMore:
				n++
			}
			if n < p.MinItems {
				n = p.MinItems
			}
			items := make([]any, n)
			for i := range items {
				switch p.Arity {
				case projector.ArityRepeatedTuple:
					items[i] = g.Tuple(p)
				case projector.ArityExactly:
					items[i] = g.Scalar(p.Element(i))
				default:
					items[i] = g.Scalar(p)
				}
			}
			args[p.Name] = items
		}
	}
	// Exclusive groups: keep at most one member, mostly.
	for _, grp := range cmd.Groups {
		if g.R.Intn(4) == 0 {
			continue
		}
		kept := false
		for _, n := range grp.Params {
			if _, ok := args[n]; ok {
				if kept {
					delete(args, n)
				}
				kept = true
			}
		}
	}
	// Consecutive optional positionals: mostly give each later one only
	// with the earlier ones, as the schema's dependentRequired demands.
	if g.R.Intn(5) > 0 {
		byName := map[string]*projector.Param{}
		for _, p := range cmd.Params {
			byName[p.Name] = p
		}
		for _, dep := range projector.DependentRequired(cmd) {
			if _, ok := args[dep.Name]; !ok {
				continue
			}
			for _, req := range dep.Requires {
				if _, ok := args[req]; !ok {
					args[req] = g.Scalar(byName[req])
				}
			}
		}
	}
	if g.Invalid > 0 && g.R.Float64() < g.Invalid && len(cmd.Params) > 0 {
		p := cmd.Params[g.R.Intn(len(cmd.Params))]
		switch g.R.Intn(3) {
		case 0:
			args["no_such_param"] = "x"
		case 1:
			args[p.Name] = map[string]any{"x": 1}
		default:
			delete(args, p.Name)
		}
	}
	// Round-trip through JSON so the values are exactly what a decoder
	// hands the surface.
	raw, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		panic(err)
	}
	return out
}
