package fromcobra

import (
	"fmt"
	"io"
	"math"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromcobra/internal/fixture"
	"github.com/verbsurface/verbsurface/projector/internal/argsgen"
	"github.com/verbsurface/verbsurface/projector/internal/cobrart"
)

var fixtureOptions = &Options{ExcludeFlags: []string{"json"}}

func fixtureTree(t testing.TB) *projector.Tree {
	t.Helper()
	tree, err := Walk(fixture.New(nil), fixtureOptions)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// parseCobra runs argv (the command path, "--json" as the reference CLI's
// dispatcher renders it, then the rendered tail) through a fresh fixture
// tree with cobra's own Execute — finding the command, parsing flags,
// checking required flags, flag groups and the Args validator — and returns
// the typed value of every parameter of cmd as cobra parsed it, keyed by
// parameter name. An omitted positional is absent from the map.
func parseCobra(cmd *projector.Command, tail []string) (map[string]any, error) {
	var got *cobra.Command
	var gotArgs []string
	root := fixture.New(func(c *cobra.Command, args []string) error {
		got, gotArgs = c, args
		return nil
	})
	// String-in flags (any type but the typed ones): what must reach the
	// CLI is the string given; its Set is the final validator.
	if c, _, err := root.Find(cmd.Path); err == nil {
		_ = c.InheritedFlags()
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if !cobrart.Typed[f.Value.Type()] {
				f.Value = &cobrart.Recorder{Value: f.Value}
			}
		})
	}
	root.SetArgs(append(append(append([]string(nil), cmd.Path...), "--json"), tail...))
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	if _, err := root.ExecuteC(); err != nil {
		return nil, err
	}
	if got == nil {
		return nil, fmt.Errorf("no command ran")
	}
	if want := strings.Join(cmd.Path, " "); strings.TrimPrefix(got.CommandPath(), "fixture ") != want {
		return nil, fmt.Errorf("ran %q, want %q", got.CommandPath(), want)
	}
	out := map[string]any{}
	var pos []*projector.Param
	required := 0
	for _, p := range cmd.Params {
		if p.Positional() {
			pos = append(pos, p)
			if p.Arity == projector.ArityOne {
				required++
			}
			continue
		}
		v, err := flagValue(got.Flags(), strings.TrimPrefix(p.Options[0], "--"), p.Type)
		if err != nil {
			return nil, err
		}
		out[p.Name] = v
	}
	// Use-line positionals: the fixed ones first, the one variable last.
	rest := gotArgs
	for _, p := range pos {
		switch p.Arity {
		case projector.ArityOne:
			if len(rest) == 0 {
				return nil, fmt.Errorf("positional %s missing", p.Name)
			}
			out[p.Name], rest = rest[0], rest[1:]
		case projector.ArityOptional:
			if len(rest) > 0 {
				out[p.Name], rest = rest[0], rest[1:]
			}
		default:
			out[p.Name], rest = append([]string{}, rest...), nil
		}
	}
	if len(rest) > 0 {
		return nil, fmt.Errorf("extra positionals %q", rest)
	}
	return out, nil
}

func flagValue(fs *pflag.FlagSet, name, typ string) (any, error) {
	if f := fs.Lookup(name); f != nil {
		if r, ok := f.Value.(*cobrart.Recorder); ok {
			if len(r.Sets) == 0 {
				return nil, nil // not given
			}
			return r.Sets[len(r.Sets)-1], nil
		}
	}
	switch typ {
	case "string":
		return fs.GetString(name)
	case "bool":
		return fs.GetBool(name)
	case "int":
		v, err := fs.GetInt(name)
		return int64(v), err
	case "int8":
		v, err := fs.GetInt8(name)
		return int64(v), err
	case "int16":
		v, err := fs.GetInt16(name)
		return int64(v), err
	case "int32":
		v, err := fs.GetInt32(name)
		return int64(v), err
	case "int64":
		return fs.GetInt64(name)
	case "count":
		v, err := fs.GetCount(name)
		return int64(v), err
	case "uint":
		v, err := fs.GetUint(name)
		return int64(v), err
	case "uint8":
		v, err := fs.GetUint8(name)
		return int64(v), err
	case "uint16":
		v, err := fs.GetUint16(name)
		return int64(v), err
	case "uint32":
		v, err := fs.GetUint32(name)
		return int64(v), err
	case "uint64":
		v, err := fs.GetUint64(name)
		return int64(v), err
	case "float32":
		v, err := fs.GetFloat32(name)
		return float64(v), err
	case "float64":
		return fs.GetFloat64(name)
	case "duration":
		return fs.GetDuration(name)
	case "stringSlice":
		return fs.GetStringSlice(name)
	case "stringArray":
		return fs.GetStringArray(name)
	case "stringToString":
		m, err := fs.GetStringToString(name)
		return sortedPairs(m), err
	case "intSlice":
		v, err := fs.GetIntSlice(name)
		out := make([]int64, len(v))
		for i := range v {
			out[i] = int64(v[i])
		}
		return out, err
	}
	return nil, fmt.Errorf("flag --%s: no reader for type %s", name, typ)
}

// expected turns a given (JSON-decoded) value, or the model's default for
// an omitted parameter, into the typed value cobra must have parsed.
func expected(p *projector.Param, v any) any {
	if p.Bare && v == true {
		return p.Const // the bare flag stores its no-value default
	}
	switch d := v.(type) {
	case map[string]string: // a stringToString default
		return sortedPairs(d)
	case []any:
		if p.Type == "stringToString" {
			m := map[string]string{}
			for _, it := range d {
				k, val, _ := strings.Cut(it.(string), "=")
				m[k] = val // a later pair replaces an earlier one
			}
			return sortedPairs(m)
		}
	}
	one := func(x any) any {
		switch p.Kind {
		case projector.KindInteger:
			return int64(x.(float64))
		case projector.KindNumber:
			f := x.(float64)
			if p.Type == "float32" {
				return float64(float32(f)) // the parameter's own precision
			}
			return f
		case projector.KindString:
			if p.Type == "duration" {
				d, err := time.ParseDuration(x.(string))
				if err != nil {
					panic(err)
				}
				return d
			}
		}
		return x
	}
	if items, ok := v.([]any); ok {
		if p.Kind == projector.KindInteger {
			out := make([]int64, len(items))
			for i, x := range items {
				out[i] = one(x).(int64)
			}
			return out
		}
		out := make([]string, len(items))
		for i, x := range items {
			out[i] = x.(string)
		}
		return out
	}
	return one(v)
}

// groupMemberGiven reports whether another member of an exclusive group of
// name's was given.
func groupMemberGiven(cmd *projector.Command, args map[string]any, name string) bool {
	for _, g := range cmd.Groups {
		in, other := false, false
		for _, n := range g.Params {
			if n == name {
				in = true
			} else if _, ok := args[n]; ok {
				other = true
			}
		}
		if in && other {
			return true
		}
	}
	return false
}

func sortedPairs(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// jsonValue returns the model default in decoded-JSON form.
func jsonDefault(p *projector.Param) any {
	switch d := p.Default.(type) {
	case int64:
		return float64(d)
	case uint64:
		return float64(d)
	case []string:
		out := make([]any, len(d))
		for i := range d {
			out[i] = d[i]
		}
		return out
	case []int64:
		out := make([]any, len(d))
		for i := range d {
			out[i] = float64(d[i])
		}
		return out
	}
	return p.Default
}

// checkRoundTrip is the property: validation (jsonschema-go, the oracle)
// accepts args exactly when RenderArgv renders them, and whatever renders
// parses back — through cobra itself — to exactly the given values, with
// the parser's defaults (as the schema states them) for omitted ones.
func checkRoundTrip(t *testing.T, cmd *projector.Command, rs *jsonschema.Resolved, args map[string]any) (accepted bool) {
	t.Helper()
	verr := rs.Validate(args)
	argv, rerr := projector.RenderArgv(projector.DialectPflag, cmd, args)
	if (verr == nil) != (rerr == nil) {
		t.Fatalf("%v: validation error %v but render error %v\nargs: %s", cmd.Path, verr, rerr, short(args))
	}
	if verr != nil {
		return false
	}
	got, err := parseCobra(cmd, argv)
	if err != nil {
		t.Fatalf("%v: cobra rejected rendered argv %s: %v\nargs: %s", cmd.Path, short(argv), err, short(args))
	}
	for _, p := range cmd.Params {
		v, given := args[p.Name]
		if !given {
			if p.Positional() {
				if g, ok := got[p.Name]; ok && !reflect.DeepEqual(g, []string{}) {
					t.Fatalf("%v: omitted positional %s parsed as %q", cmd.Path, p.Name, g)
				}
				continue
			}
			if groupMemberGiven(cmd, args, p.Name) {
				continue // it may share its variable with the member given (--tag/--rebased)
			}
			v = jsonDefault(p)
		}
		want := expected(p, v)
		if !sameValue(got[p.Name], want) {
			t.Fatalf("%v: parameter %s: rendered %s, cobra parsed %s, want %s\nargs: %s", cmd.Path, p.Name, short(argv), short(got[p.Name]), short(want), short(args))
		}
	}
	return true
}

func sameValue(a, b any) bool {
	if fa, ok := a.(float64); ok {
		fb, ok := b.(float64)
		return ok && (fa == fb || math.IsNaN(fa) && math.IsNaN(fb))
	}
	return reflect.DeepEqual(a, b)
}

func short(v any) string {
	s := fmt.Sprintf("%#v", v)
	if len(s) > 600 {
		return s[:600] + fmt.Sprintf("...(%d bytes)", len(s))
	}
	return s
}

func resolved(t testing.TB, cmd *projector.Command) *jsonschema.Resolved {
	t.Helper()
	s, err := projector.Project(cmd)
	if err != nil {
		t.Fatalf("%v: %v", cmd.Path, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%v: resolve: %v", cmd.Path, err)
	}
	return rs
}

// TestRoundTripCobra is the round-trip property over random, mostly valid,
// often hostile argument objects for every available fixture command.
func TestRoundTripCobra(t *testing.T) {
	tree := fixtureTree(t)
	iterations := 300
	if testing.Short() {
		iterations = 50
	}
	available := 0
	for _, cmd := range tree.Commands {
		if _, err := projector.Project(cmd); err != nil {
			continue
		}
		available++
		t.Run(strings.Join(cmd.Path, "_"), func(t *testing.T) {
			rs := resolved(t, cmd)
			g := &argsgen.Gen{R: rand.New(rand.NewSource(int64(len(cmd.Path[0])) * 7919)), Invalid: 0.1}
			accepted := 0
			for i := 0; i < iterations; i++ {
				if checkRoundTrip(t, cmd, rs, g.Args(cmd)) {
					accepted++
				}
			}
			// The property is only as good as the share of objects that
			// reach the parser.
			if accepted < iterations/4 {
				t.Fatalf("only %d of %d generated objects were valid", accepted, iterations)
			}
			t.Logf("%d of %d objects valid and round-tripped", accepted, iterations)
		})
	}
	if available < 5 {
		t.Fatalf("only %d fixture commands are available; the property covers too little", available)
	}
}
