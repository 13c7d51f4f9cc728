package projector

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func opt(name string, kind Kind, arity Arity) *Param {
	return &Param{Name: name, Options: []string{"--" + strings.ReplaceAll(name, "_", "-")}, Kind: kind, Arity: arity}
}

func pos(name string, arity Arity) *Param {
	return &Param{Name: name, Kind: KindString, Arity: arity, Required: arity == ArityOne || arity == ArityOneOrMore}
}

func with(p *Param, f func(p *Param)) *Param { f(p); return p }

// One row per rendering rule of the package documentation.
func TestRenderArgvRules(t *testing.T) {
	tests := []struct {
		rule    string
		dialect Dialect
		params  []*Param
		args    map[string]any
		want    []string
	}{
		{"options render as --flag=value, dash-leading values included", DialectPflag,
			[]*Param{opt("name", KindString, ArityOne)}, map[string]any{"name": "--help"}, []string{"--name=--help"}},
		{"the long option string is preferred", DialectArgparse,
			[]*Param{{Name: "n", Options: []string{"-n", "--count"}, Kind: KindInteger, Arity: ArityOne}}, map[string]any{"n": 3.0}, []string{"--count=3"}},
		{"a short-only option still takes =", DialectArgparse,
			[]*Param{{Name: "k", Options: []string{"-k"}, Kind: KindString, Arity: ArityOne}}, map[string]any{"k": "-v"}, []string{"-k=-v"}},
		{"parameters render in parser order, positionals after --", DialectPflag,
			[]*Param{pos("model", ArityOne), with(opt("b", KindBoolean, ArityNone), func(p *Param) { p.FlagValue = true }), opt("a", KindString, ArityOne), pos("rest", ArityZeroOrMore)},
			map[string]any{"a": "x", "b": true, "model": "--json", "rest": []any{"-", "--"}},
			[]string{"--b", "--a=x", "--", "--json", "-", "--"}},
		{"no positionals, no --", DialectPflag,
			[]*Param{opt("a", KindString, ArityOne), pos("p", ArityOptional)}, map[string]any{"a": "x"}, []string{"--a=x"}},
		{"omitted parameters render nothing", DialectPflag,
			[]*Param{opt("a", KindString, ArityOne)}, map[string]any{}, []string{}},
		{"pflag bool: true is the bare flag", DialectPflag,
			[]*Param{with(opt("v", KindBoolean, ArityNone), func(p *Param) { p.FlagValue = true })}, map[string]any{"v": true}, []string{"--v"}},
		{"pflag bool: false is --flag=false", DialectPflag,
			[]*Param{with(opt("v", KindBoolean, ArityNone), func(p *Param) { p.FlagValue = true })}, map[string]any{"v": false}, []string{"--v=false"}},
		{"store_true: false equal to the default renders nothing", DialectArgparse,
			[]*Param{with(opt("v", KindBoolean, ArityNone), func(p *Param) { p.FlagValue, p.Default = true, false })}, map[string]any{"v": false}, []string{}},
		{"store_false: false is the bare flag", DialectArgparse,
			[]*Param{with(opt("ensure_ascii", KindBoolean, ArityNone), func(p *Param) { p.Options, p.FlagValue, p.Default = []string{"--no-ensure-ascii"}, false, true })},
			map[string]any{"ensure_ascii": false}, []string{"--no-ensure-ascii"}},
		{"BooleanOptionalAction: false is the negation", DialectArgparse,
			[]*Param{with(opt("color", KindBoolean, ArityNone), func(p *Param) { p.FlagValue, p.NegOptions = true, []string{"--no-color"} })},
			map[string]any{"color": false}, []string{"--no-color"}},
		{"repeated options render once per value", DialectArgparse,
			[]*Param{opt("tag", KindString, ArityRepeated)}, map[string]any{"tag": []any{"a,b", "-x"}}, []string{"--tag=a,b", "--tag=-x"}},
		{"pflag stringSlice items are CSV-quoted", DialectPflag,
			[]*Param{with(opt("tags", KindString, ArityRepeated), func(p *Param) { p.Action = "pflag:stringSlice" })},
			map[string]any{"tags": []any{"a,b", `say "hi"`}}, []string{`--tags="a,b"`, `--tags="say ""hi"""`}},
		{"pflag stringSlice: the empty list is an empty record", DialectPflag,
			[]*Param{with(opt("tags", KindString, ArityRepeated), func(p *Param) { p.Action = "pflag:stringSlice" })},
			map[string]any{"tags": []any{}}, []string{"--tags="}},
		{"other empty repeated lists render nothing", DialectPflag,
			[]*Param{opt("items", KindString, ArityRepeated)}, map[string]any{"items": []any{}}, []string{}},
		{"argparse nargs options take space-separated values", DialectArgparse,
			[]*Param{opt("create", KindString, ArityOneOrMore)}, map[string]any{"create": []any{"a.zip", "b c", ""}}, []string{"--create", "a.zip", "b c", ""}},
		{"argparse nargs=* with no values is the bare option", DialectArgparse,
			[]*Param{opt("files", KindString, ArityZeroOrMore)}, map[string]any{"files": []any{}}, []string{"--files"}},
		{"argparse nargs=1 takes its value through =", DialectArgparse,
			[]*Param{with(opt("one", KindString, ArityExactly), func(p *Param) { p.N = 1 })}, map[string]any{"one": []any{"-v"}}, []string{"--one=-v"}},
		{"argparse negative numbers in nargs items stay plain decimals", DialectArgparse,
			[]*Param{opt("xs", KindNumber, ArityOneOrMore)}, map[string]any{"xs": []any{-1e-7, -1e22, 2.5}},
			[]string{"--xs", "-0.0000001", "-10000000000000000000000", "2.5"}},
		{"integers render in decimal, 3.0 as 3", DialectPflag,
			[]*Param{opt("n", KindInteger, ArityOne)}, map[string]any{"n": 3.0}, []string{"--n=3"}},
		{"negative zero renders as 0", DialectPflag,
			[]*Param{opt("x", KindNumber, ArityOne)}, map[string]any{"x": math.Copysign(0, -1)}, []string{"--x=0"}},
		{"large and tiny numbers use exponents", DialectPflag,
			[]*Param{opt("x", KindNumber, ArityRepeated)}, map[string]any{"x": []any{1e300, 5e-324, 0.1}}, []string{"--x=1e+300", "--x=5e-324", "--x=0.1"}},
		{"float32 renders the shortest text of the float32 value", DialectPflag,
			[]*Param{with(opt("f", KindNumber, ArityOne), func(p *Param) { p.Type = "float32" })}, map[string]any{"f": 0.1}, []string{"--f=0.1"}},
		// 1+2^-24 lies exactly between two float32s: float32() rounds it
		// to even (1), but its shortest float64 text 1.0000000596046448
		// lies above the midpoint and would parse at 32 bits as 1+2^-23.
		{"float32 rounds once, as float32(value) does", DialectPflag,
			[]*Param{with(opt("f", KindNumber, ArityOne), func(p *Param) { p.Type = "float32" })}, map[string]any{"f": 1 + 0x1p-24}, []string{"--f=1"}},
		{"a json.Number integer with a zero fraction or an exponent", DialectPflag,
			[]*Param{opt("n", KindInteger, ArityRepeated)}, map[string]any{"n": []any{json.Number("3.0"), json.Number("1e2"), json.Number("-9007199254740991")}},
			[]string{"--n=3", "--n=100", "--n=-9007199254740991"}},
		{"a json.Number number", DialectPflag,
			[]*Param{opt("x", KindNumber, ArityOne)}, map[string]any{"x": json.Number("2.50")}, []string{"--x=2.5"}},
		{"an integer choice matches 2.0 and json.Number 2", DialectPflag,
			[]*Param{with(opt("n", KindInteger, ArityRepeated), func(p *Param) { p.Choices = []any{int64(1), int64(2)} })},
			map[string]any{"n": []any{2.0, json.Number("2"), 1}}, []string{"--n=2", "--n=2", "--n=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			got, err := RenderArgv(tt.dialect, cmdWith(tt.params...), tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("argv (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRenderArgvRefuses(t *testing.T) {
	b := func(n string) *Param {
		return with(opt(n, KindBoolean, ArityNone), func(p *Param) { p.FlagValue = true })
	}
	tests := []struct {
		rule    string
		dialect Dialect
		cmd     *Command
		args    map[string]any
		param   string
		reason  string
	}{
		{"unknown parameter", DialectPflag, cmdWith(opt("a", KindString, ArityOne)), map[string]any{"b": "x", "a": "y"}, "b", "unknown parameter"},
		{"missing required", DialectPflag, cmdWith(with(opt("a", KindString, ArityOne), func(p *Param) { p.Required = true })), map[string]any{}, "a", "required"},
		{"null", DialectPflag, cmdWith(opt("a", KindString, ArityOne)), map[string]any{"a": nil}, "a", "null"},
		{"wrong type", DialectPflag, cmdWith(opt("a", KindInteger, ArityOne)), map[string]any{"a": "3"}, "a", "want an integer"},
		{"fraction for an integer", DialectPflag, cmdWith(opt("a", KindInteger, ArityOne)), map[string]any{"a": 1.5}, "a", "want an integer"},
		{"integer beyond the safe range", DialectPflag, cmdWith(opt("a", KindInteger, ArityOne)), map[string]any{"a": 1e16}, "a", "outside"},
		{"below a minimum", DialectPflag, cmdWith(with(opt("a", KindInteger, ArityOne), func(p *Param) { p.Minimum = f64(0) })), map[string]any{"a": -1.0}, "a", "outside"},
		{"not a choice", DialectPflag, cmdWith(with(opt("a", KindString, ArityOne), func(p *Param) { p.Choices = []any{"x"} })), map[string]any{"a": "y"}, "a", "not one of the choices"},
		{"pattern mismatch", DialectPflag, cmdWith(with(opt("a", KindString, ArityOne), func(p *Param) { p.Pattern = "^[a-z]+$" })), map[string]any{"a": "A"}, "a", "does not match"},
		{"NUL byte", DialectPflag, cmdWith(opt("a", KindString, ArityOne)), map[string]any{"a": "x\x00y"}, "a", "pattern"},
		{"a fractional json.Number for an integer", DialectPflag, cmdWith(opt("a", KindInteger, ArityOne)), map[string]any{"a": json.Number("1.5")}, "a", "want an integer"},
		{"a json.Number integer beyond int64", DialectPflag, cmdWith(opt("a", KindInteger, ArityOne)), map[string]any{"a": json.Number("1e30")}, "a", "want an integer"},
		{"a json.Number that overflows float64", DialectPflag, cmdWith(opt("a", KindNumber, ArityOne)), map[string]any{"a": json.Number("1e400")}, "a", "want a number"},
		{"a number below its minimum", DialectPflag, cmdWith(with(opt("a", KindNumber, ArityOne), func(p *Param) { p.Minimum = f64(-1) })), map[string]any{"a": -1.5}, "a", "below the minimum -1"},
		{"a number above its maximum", DialectPflag, cmdWith(with(opt("a", KindNumber, ArityRepeated), func(p *Param) { p.Maximum = f64(3.4e38) })), map[string]any{"a": []any{1.0, 1e39}}, "a", "item 1: value 1e+39 is above the maximum"},
		{"NUL byte even where a pattern admits it", DialectPflag, cmdWith(with(opt("a", KindString, ArityOne), func(p *Param) { p.Pattern = "(?s)^.*$" })), map[string]any{"a": "x\x00y"}, "a", "NUL byte"},
		{"NUL byte in an item even where a pattern admits it", DialectPflag, cmdWith(with(opt("a", KindString, ArityRepeated), func(p *Param) { p.Pattern = "(?s)^.*$" })), map[string]any{"a": []any{"ok", "\x00"}}, "a", "item 1 contains a NUL byte"},
		{"forbidden literal", DialectArgparse, cmdWith(with(opt("a", KindString, ArityOne), func(p *Param) { p.Forbidden = []any{"--"} })), map[string]any{"a": "--"}, "a", "misread"},
		{"not an array", DialectPflag, cmdWith(opt("a", KindString, ArityRepeated)), map[string]any{"a": "x"}, "a", "want an array"},
		{"too few items", DialectArgparse, cmdWith(opt("a", KindString, ArityOneOrMore)), map[string]any{"a": []any{}}, "a", "fewer than the minimum 1"},
		{"too many items", DialectArgparse, cmdWith(with(opt("a", KindString, ArityExactly), func(p *Param) { p.N = 2 })), map[string]any{"a": []any{"x", "y", "z"}}, "a", "more than the maximum 2"},
		{"bad item", DialectArgparse, cmdWith(opt("a", KindInteger, ArityRepeated)), map[string]any{"a": []any{1.0, "2"}}, "a", "item 1"},
		{"exclusive parameters together", DialectPflag, &Command{Path: []string{"t"}, Runnable: true, Params: []*Param{b("x"), b("y")}, Groups: []Group{{Params: []string{"x", "y"}}}},
			map[string]any{"x": true, "y": false}, "y", "mutually exclusive"},
		{"required group empty", DialectPflag, &Command{Path: []string{"t"}, Runnable: true, Params: []*Param{b("x"), b("y")}, Groups: []Group{{Params: []string{"x", "y"}, Required: true}}},
			map[string]any{}, "", "one of x, y is required"},
		{"at-least-one set empty", DialectPflag, &Command{Path: []string{"t"}, Runnable: true, Params: []*Param{b("x"), b("y")}, AnyRequired: [][]string{{"x", "y"}}},
			map[string]any{}, "", "at least one of x, y"},
		{"dash-leading item of an argparse nargs option", DialectArgparse, cmdWith(opt("a", KindString, ArityOneOrMore)), map[string]any{"a": []any{"ok", "--help"}}, "a", "read it as an option"},
		{"carriage return in a pflag stringSlice item", DialectPflag, cmdWith(with(opt("a", KindString, ArityRepeated), func(p *Param) { p.Action = "pflag:stringSlice" })),
			map[string]any{"a": []any{"x\r\ny"}}, "a", "carriage return"},
		{"store_true given false when the default is not false", DialectArgparse, cmdWith(with(opt("v", KindBoolean, ArityNone), func(p *Param) { p.FlagValue = true })),
			map[string]any{"v": false}, "v", "cannot be spelled"},
		{"multi-value option in pflag", DialectPflag, cmdWith(opt("a", KindString, ArityOneOrMore)), map[string]any{"a": []any{"x"}}, "a", "no spelling"},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			argv, err := RenderArgv(tt.dialect, tt.cmd, tt.args)
			var ae *ArgError
			if !errors.As(err, &ae) {
				t.Fatalf("RenderArgv = %q, %v; want *ArgError", argv, err)
			}
			if argv != nil {
				t.Errorf("argv %q returned with an error", argv)
			}
			if ae.Param != tt.param || !strings.Contains(ae.Reason, tt.reason) {
				t.Errorf("got param %q reason %q; want param %q reason containing %q", ae.Param, ae.Reason, tt.param, tt.reason)
			}
		})
	}
	if _, err := RenderArgv("getopt", cmdWith(), nil); err == nil {
		t.Error("unknown dialect accepted")
	}
}
