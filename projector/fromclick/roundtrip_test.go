package fromclick

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/argsgen"
	"github.com/verbsurface/verbsurface/projector/internal/pywalk"
)

type parseRequest struct {
	Target string   `json:"target"`
	Argv   []string `json:"argv"`
}

type parseResult struct {
	OK        bool           `json:"ok"`
	Path      []string       `json:"path"`
	Params    map[string]any `json:"params"`
	Unexposed []string       `json:"unexposed"`
	Error     string         `json:"error"`
}

// parseBatch parses every argv with the target's real click command (its
// own make_context and resolve_command, as Group.invoke does, short of
// invoking), in one Python process.
func parseBatch(t testing.TB, opts *Options, reqs []parseRequest) []parseResult {
	t.Helper()
	var answer struct {
		Results []parseResult `json:"results"`
	}
	if err := runWalker(context.Background(), opts, "parse", map[string]any{"requests": reqs}, &answer); err != nil {
		t.Fatal(err)
	}
	if len(answer.Results) != len(reqs) {
		t.Fatalf("%d results for %d requests", len(answer.Results), len(reqs))
	}
	return answer.Results
}

// sameValue compares a given (decoded-JSON) value with what click parsed
// (decoded with UseNumber), numerically for numbers, and as the same file
// for a path click hands over as a pathlib object.
func sameValue(p *projector.Param, given, parsed any) bool {
	switch g := given.(type) {
	case []any:
		got, ok := parsed.([]any)
		if !ok || len(got) != len(g) {
			return false
		}
		for i := range g {
			e := p
			if _, tuple := g[i].([]any); !tuple && len(p.Elements) > 0 {
				e = p.Element(i) // a position of a tuple of differing items
			}
			if !sameValue(e, g[i], got[i]) {
				return false
			}
		}
		return true
	case float64:
		n, ok := parsed.(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		return err == nil && f == g
	case int64:
		return sameValue(p, float64(g), parsed)
	case string:
		got, ok := parsed.(string)
		switch {
		case !ok:
			return false
		case got == g:
			return true
		case p.Path != "":
			return got == pywalk.PurePosixPath(g)
		case p.Pattern == uuidPattern:
			return got == strings.ToLower(g)
		case strings.Contains(p.Type, "DateTime"):
			want := strings.Replace(g, " ", "T", 1)
			if !strings.Contains(want, "T") {
				want += "T00:00:00"
			}
			return got == want
		}
		return false
	}
	return given == parsed
}

// checkBatch renders every case, parses them all with click in one batch,
// and requires each command's parameters to hold exactly the given values
// (and the schema's defaults for omitted parameters that state one).
func checkBatch(t *testing.T, opts *Options, cases []argsgen.Case) {
	t.Helper()
	reqs := make([]parseRequest, len(cases))
	for i, c := range cases {
		reqs[i] = parseRequest{Target: c.Target, Argv: append(slices.Clone(c.Cmd.Path), c.Argv...)}
	}
	results := parseBatch(t, opts, reqs)
	for i, c := range cases {
		r := results[i]
		if !r.OK {
			t.Errorf("%s %v: click rejected rendered argv %s: %s\nargs: %s", c.Target, c.Cmd.Path, argsgen.Short(c.Argv), r.Error, argsgen.Short(c.Args))
			continue
		}
		if !slices.Equal(r.Path, c.Cmd.Path) && !(len(r.Path) == 0 && len(c.Cmd.Path) == 0) {
			t.Errorf("%s %v: click resolved the command %v", c.Target, c.Cmd.Path, r.Path)
			continue
		}
		for _, p := range c.Cmd.Params {
			if msg := checkParam(p, c.Args, r); msg != "" {
				t.Errorf("%s %v: parameter %s: rendered %s: %s", c.Target, c.Cmd.Path, p.Name, argsgen.Short(c.Argv), msg)
			}
		}
	}
}

// checkParam returns what is wrong with p's parsed value, or "".
func checkParam(p *projector.Param, args map[string]any, r parseResult) string {
	v, given := args[p.Name]
	key := p.Name
	if p.Dest != "" {
		key = p.Dest
	}
	got, present := r.Params[key]
	if slices.Contains(r.Unexposed, key) {
		return "" // expose_value=False: click keeps no value (the confirmation option)
	}
	switch {
	case p.Dest != "":
		// A flag split from a shared name: given, the name holds its
		// flag_value; otherwise another member (or the default) decides.
		if given && v == true && !sameJSONPlain(got, p.Const) {
			return fmt.Sprintf("click parsed %s, want the flag_value %s", argsgen.Short(got), argsgen.Short(p.Const))
		}
		return ""
	case p.Arity == projector.ArityNone && p.Const != nil:
		if given && v == true && !sameJSONPlain(got, p.Const) {
			return fmt.Sprintf("click parsed %s, want the flag_value %s", argsgen.Short(got), argsgen.Short(p.Const))
		}
		return ""
	case p.Bare && v == true:
		if !sameJSONPlain(got, p.Const) {
			return fmt.Sprintf("bare: click parsed %s, want the flag_value %s", argsgen.Short(got), argsgen.Short(p.Const))
		}
		return ""
	}
	if !given {
		if p.Default == nil {
			return ""
		}
		raw, _ := json.Marshal(p.Default)
		_ = json.Unmarshal(raw, &v)
	}
	if !present || !sameValue(p, v, got) {
		return fmt.Sprintf("click parsed %s, want %s", argsgen.Short(got), argsgen.Short(v))
	}
	return ""
}

func sameJSONPlain(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	var xa, ya any
	_ = json.Unmarshal(x, &xa)
	_ = json.Unmarshal(y, &ya)
	x, _ = json.Marshal(xa)
	y, _ = json.Marshal(ya)
	return string(x) == string(y)
}

// roundTripTrees runs the round-trip property over every command of trees
// that projects: validation (jsonschema-go) accepts exactly what
// RenderArgv renders, and click parses each rendered argv back to exactly
// the given values. It returns how many commands that was.
func roundTripTrees(t *testing.T, opts *Options, trees map[string]*projector.Tree, iterations int) int {
	t.Helper()
	cases, commands := argsgen.ValidCases(t, trees, projector.DialectClick, iterations, func(r *rand.Rand) *argsgen.Gen {
		return &argsgen.Gen{R: r, Invalid: 0.1, Sample: func(p *projector.Param) (string, bool) { return sample(r, p) }}
	})
	checkBatch(t, opts, cases)
	t.Logf("%d argument objects over %d commands round-tripped", len(cases), commands)
	return commands
}

// TestRoundTripClick is the round-trip property over random, mostly valid,
// often hostile argument objects for every available command of the
// fixtures, against every click on the machine (Debian's 8.1 and any other
// interpreter's).
func TestRoundTripClick(t *testing.T) {
	iterations := 100
	if testing.Short() {
		iterations = 25
	}
	for _, python := range pythonsWith(t, "click") {
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(python)))+"_"+filepath.Base(python), func(t *testing.T) {
			trees := fixtures(t, python)
			if n := roundTripTrees(t, fixtureOptions(t, python), trees, iterations); n < 15 {
				t.Errorf("only %d commands available", n)
			}
		})
	}
}

// sample supplies values for the patterns random strings miss: UUIDs in
// either case, and dates (leap days and month ends included) in the forms
// click.DateTime reads, some of them invalid on purpose.
func sample(r *rand.Rand, p *projector.Param) (string, bool) {
	switch {
	case p.Pattern == uuidPattern:
		const hex = "0123456789abcdefABCDEF"
		var b strings.Builder
		for i, n := range []int{8, 4, 4, 4, 12} {
			if i > 0 {
				b.WriteByte('-')
			}
			for j := 0; j < n; j++ {
				b.WriteByte(hex[r.Intn(len(hex))])
			}
		}
		return b.String(), true
	case strings.Contains(p.Type, "DateTime"):
		days := []string{"2024-02-29", "2023-02-29", "1900-02-29", "2000-02-29", "0001-01-01", "9999-12-31", "2024-04-31", "2024-04-30", "2024-13-01", "0000-01-01", "2024-1-5"}
		d := days[r.Intn(len(days))]
		switch r.Intn(3) {
		case 1:
			d += fmt.Sprintf("T%02d:%02d:%02d", r.Intn(25), r.Intn(61), r.Intn(61))
		case 2:
			d += fmt.Sprintf(" %02d:%02d:%02d", r.Intn(24), r.Intn(60), r.Intn(60))
		}
		return d, true
	}
	return "", false
}
