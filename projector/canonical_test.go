package projector

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

var awkwardStrings = []string{"", "plain", "<a href=\"x\">&amp;</a>", "line\nfeed\r\t\b\f", "\x00\x01\x1f\x7f", "\u2028\u2029", "é日本😀",
	"bad \xff utf8 \xc3", `back\slash "quote"`, "--", "^[^\\x00]*$"}
var awkwardNumbers = []float64{0, 1, -1, 0.5, 1e-7, 1e-6, 123456789, 1e20, 1e21, 1e300, 5e-324, -2.5e-9, MaxSafeInteger, -MaxSafeInteger, 3.4028234663852886e38}

// randomCommand builds a command with random parameters of every kind,
// arity and constraint, with awkward strings and numbers throughout.
func randomCommand(r *rand.Rand) *Command {
	str := func() string { return awkwardStrings[r.Intn(len(awkwardStrings))] }
	num := func() float64 { return awkwardNumbers[r.Intn(len(awkwardNumbers))] }
	cmd := &Command{Path: []string{"x"}, Runnable: true, Summary: str()}
	kinds := []Kind{KindString, KindInteger, KindNumber, KindBoolean}
	arities := []Arity{ArityOne, ArityOptional, ArityZeroOrMore, ArityOneOrMore, ArityExactly, ArityRepeated}
	for i := 0; i < 1+r.Intn(8); i++ {
		p := &Param{Name: fmt.Sprintf("p%d%s", i, str()), Options: []string{fmt.Sprintf("--p%d", i)}, Kind: kinds[r.Intn(4)], Help: str()}
		if p.Kind == KindBoolean {
			p.Arity = ArityNone
			if r.Intn(2) == 0 {
				p.Default = r.Intn(2) == 0
			}
		} else {
			p.Arity = arities[r.Intn(len(arities))]
			p.N = 1 + r.Intn(3)
		}
		switch p.Kind {
		case KindString:
			if r.Intn(2) == 0 {
				p.Forbidden = []any{"--", str()}
			}
			if r.Intn(3) == 0 {
				p.Choices = []any{"a", "b<c>"}
			}
			if r.Intn(2) == 0 {
				p.Default = str()
			}
		case KindInteger:
			if r.Intn(2) == 0 {
				lo, hi := -float64(r.Intn(1000)), float64(r.Intn(1e6))
				p.Minimum, p.Maximum = &lo, &hi
			}
			if r.Intn(2) == 0 {
				p.Default = map[string]any{"z": 1, "a": []any{json.Number("1.50"), "x"}}
			}
		case KindNumber:
			if r.Intn(2) == 0 {
				lo := num()
				p.Minimum = &lo
			}
			if r.Intn(2) == 0 {
				p.Default = num()
			}
			if r.Intn(3) == 0 {
				p.Choices = []any{num(), int64(3), 2.5}
			}
		}
		if p.Arity != ArityOne && p.Arity != ArityOptional && p.Arity != ArityNone && r.Intn(3) == 0 {
			p.MinItems = 1 + r.Intn(2)
		}
		if p.Arity != ArityOne && p.Arity != ArityOptional && p.Arity != ArityNone && r.Intn(3) == 0 {
			p.MaxItems, p.UniqueItems = 3+r.Intn(3), r.Intn(2) == 0
		}
		p.Required = r.Intn(3) == 0
		cmd.Params = append(cmd.Params, p)
	}
	if len(cmd.Params) >= 2 {
		cmd.Groups = []Group{{Params: []string{cmd.Params[0].Name, cmd.Params[1].Name}, Required: r.Intn(2) == 0}}
		cmd.AnyRequired = [][]string{{cmd.Params[1].Name}}
	}
	return cmd
}

// TestCanonicalFastPath: the direct canonical writer and the general
// marshal-decode-encode path agree byte for byte on every schema shape the
// projector emits, so fingerprints do not depend on which path ran.
func TestCanonicalFastPath(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	checked := 0
	for i := 0; i < 400; i++ {
		cmd := randomCommand(r)
		s, err := Project(cmd)
		if err != nil {
			continue // a random model may be inconsistent; only schemas count
		}
		for _, verb := range []string{awkwardStrings[i%len(awkwardStrings)], "plain.verb"} {
			slow, err := canonicalJSON(map[string]any{"verb": verb, "schema": s})
			if err != nil {
				t.Fatal(err)
			}
			fast, err := canonicalFingerprintInput(verb, s)
			if err != nil {
				t.Fatal(err)
			}
			if string(fast) != string(slow) {
				t.Fatalf("fast and general canonical forms differ:\nfast %s\nslow %s", fast, slow)
			}
		}
		checked++
	}
	if checked < 60 {
		t.Fatalf("only %d random schemas projected", checked)
	}
	// Values the writer does not handle, and fields outside the subset,
	// take the general path (and still agree, trivially).
	for _, s := range []*jsonschema.Schema{
		{Type: "string", Format: "date"},
		{Type: "object", Properties: map[string]*jsonschema.Schema{"a": {Const: new(any)}}},
		{Enum: []any{struct{ A int }{1}}},
		{Type: "number", Minimum: ptrf(math.Inf(1))},
	} {
		if _, ok := appendCanonicalSchema(nil, s); ok {
			t.Errorf("%+v took the fast path", s)
		}
	}
	// A default given as raw JSON (a schema decoded from JSON rather than
	// projected) is re-encoded canonically too: U+2028 escaped, invalid
	// UTF-8 replaced, HTML characters and number spellings kept.
	for _, raw := range []string{"\"a\u2028b\u2029c\"", "\"a\xffb\"", `"<&>"`, `[1E5,-0,1.50]`, `"é"`, `{"b":1, "a":[true,null]}`, `"tab\tx"`} {
		s := &jsonschema.Schema{Type: "string", Default: json.RawMessage(raw)}
		slow, err := canonicalJSON(map[string]any{"verb": "v", "schema": s})
		if err != nil {
			t.Fatal(err)
		}
		fast, err := canonicalFingerprintInput("v", s)
		if err != nil {
			t.Fatal(err)
		}
		if string(fast) != string(slow) {
			t.Errorf("raw default %q: fast and general canonical forms differ:\nfast %q\nslow %q", raw, fast, slow)
		}
	}
	if b, ok := appendCanonicalSchema(nil, &jsonschema.Schema{}); !ok || string(b) != "true" {
		t.Errorf("empty schema: %s", b)
	}
}

func ptrf(f float64) *float64 { return &f }

func TestCanonicalKnowsSchemaFields(t *testing.T) {
	if !fastCanonical {
		t.Fatal("jsonschema.Schema has fields the canonical writer does not know; every fingerprint takes the slow path. Update schemaFields and c1Only.")
	}
}

// BenchmarkCanonical measures what the direct canonical writer buys over
// the general path (marshal, decode, re-encode sorted) for the schemas a
// fingerprint is taken of: every help and every spawn op computes one.
// Compare the two sub-benchmarks' ns/op from one run.
func BenchmarkCanonical(b *testing.B) {
	r := rand.New(rand.NewSource(7))
	var schemas []*jsonschema.Schema
	for len(schemas) < 64 {
		if s, err := Project(randomCommand(r)); err == nil {
			schemas = append(schemas, s)
		}
	}
	b.Run("direct", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := canonicalFingerprintInput("agent.submit", schemas[i%len(schemas)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("general", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := canonicalJSON(map[string]any{"verb": "agent.submit", "schema": schemas[i%len(schemas)]}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
