//go:build unix

package verbsurface

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/verbsurface/verbsurface/projector"
)

// TestDifferentialAgainstJSONSchemaGo generates a corpus of argument
// objects over the fixture verbs' projected schemas (and a hand-written
// schema using every C1 keyword) and requires the surface validator and
// jsonschema-go's Resolved.Validate to make the same accept/reject decision
// on every one. Both see the same JSON text: the surface decodes it with
// UseNumber (as it does on the wire), jsonschema-go with plain float64
// decoding. A document whose numbers do not fit a double cannot be decoded
// for jsonschema-go at all; the surface must reject it.
func TestDifferentialAgainstJSONSchemaGo(t *testing.T) {
	schemas := map[string]*jsonschema.Schema{"every_keyword": mustSchema(t, everyKeywordSchema, everyKeywordOrder)}
	schemas["unique_items"] = mustSchema(t, uniqueItemsSchema, uniqueItemsOrder)
	fx := newFixture(t)
	tree, err := fx.env.tree()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range tree.Commands {
		s, err := projector.Project(c)
		if err != nil {
			continue // unavailable or a group: nothing to validate
		}
		schemas[strings.Join(c.Path, ".")] = s
	}
	inj, _, err := fx.env.injector()("audit")
	if err != nil {
		t.Fatal(err)
	}
	if schemas["play+audit"], err = projector.Project(inj); err != nil {
		t.Fatal(err)
	}
	for name, s := range c1ExtensionSchemas(t) {
		schemas[name] = s
	}
	if len(schemas) < 8 {
		t.Fatalf("only %d schemas to compare on", len(schemas))
	}
	names := sortedKeys(schemas)

	rng := rand.New(rand.NewPCG(20260930, 1))
	const perSchema = 1500
	var total, accepted, undecodable int
	for _, name := range names {
		s := schemas[name]
		mine, err := CompileValidator(s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		theirs, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: resolve: %v", name, err)
		}
		g := &argGen{rng: rng, schema: s}
		for range perSchema {
			doc := g.object()
			total++
			myOK := len(mine.Validate(decodeArgs(t, doc))) == 0
			var plain map[string]any
			if err := json.Unmarshal([]byte(doc), &plain); err != nil {
				undecodable++
				if myOK {
					t.Errorf("%s: surface accepted %s, which does not decode as doubles (%v)", name, doc, err)
				}
				continue
			}
			theirOK := theirs.Validate(plain) == nil
			if myOK != theirOK {
				t.Errorf("%s: disagreement on %s: surface accepts=%v, jsonschema-go accepts=%v (%v)",
					name, doc, myOK, theirOK, theirs.Validate(plain))
			}
			if myOK {
				accepted++
			}
		}
	}
	t.Logf("corpus: %d argument objects over %d schemas; %d accepted, %d undecodable as doubles", total, len(schemas), accepted, undecodable)
	if total < 10000 {
		t.Errorf("corpus has %d objects, want at least 10,000", total)
	}
	if accepted < total/10 || accepted > total*9/10 {
		t.Errorf("corpus is lopsided: %d of %d accepted", accepted, total)
	}
}

// argGen writes random argument objects as JSON text, biased towards
// almost-valid ones so both decisions are common.
type argGen struct {
	rng    *rand.Rand
	schema *jsonschema.Schema
}

var hostileNames = []string{"--help", "", " ", "__proto__", "constructor", "-x", "name ", "NAME", "prompt-file",
	"a\u0000b", "é", "ｍｏｄｅｌ", "extra_args", "args", "$ref", "0", "\n"}

var hostileStrings = []string{"", "-", "--", "--help", "-h", "--dry-run", "a=b", "--x=y", "a,b", `"q"`, "a\nb", "a\rb",
	"a\u0000b", "{}", "[1]", "é", "µs", "\u202e", "' OR 1=1", strings.Repeat("x", 3000), "fast", "safe", "FAST",
	"abc", "ABC", "10m", "1h30m", "0", "-3s", "99999h", "100000h", "1.5h", "1h2m3s4ms", "5", "true", "null"}

var numberTexts = []string{"0", "-0", "1", "-1", "3", "3.0", "3.5", "1e2", "1E2", "2.5e-1", "10", "11", "127", "128",
	"-128", "-129", "255", "256", "4294967295", "9007199254740991", "9007199254740992", "9007199254740993",
	"-9007199254740992", "1e300", "-1e300", "1e400", "-1e400", "1e-400", "1.5", "-1.5", "-1.5000000000000002",
	"0.7", "3.4028234663852886e38", "3.5e38", "1.7976931348623157e308", "123456789012345678901234567890",
	"3.0000000000000000001", "0.1"}

func (g *argGen) pick(list []string) string { return list[g.rng.IntN(len(list))] }

func (g *argGen) object() string {
	props := sortedKeys(g.schema.Properties)
	chosen := map[string]bool{}
	for _, p := range props {
		if g.rng.IntN(3) == 0 {
			chosen[p] = true
		}
	}
	if g.rng.IntN(10) < 8 { // usually satisfy the cross-parameter rules
		for _, r := range g.schema.Required {
			chosen[r] = true
		}
		for _, m := range g.schema.AllOf {
			if m.Not != nil && g.rng.IntN(4) != 0 {
				delete(chosen, m.Not.Required[g.rng.IntN(2)])
			}
			if len(m.AnyOf) > 0 {
				chosen[m.AnyOf[g.rng.IntN(len(m.AnyOf))].Required[0]] = true
			}
		}
		for name, reqs := range g.schema.DependentRequired {
			if chosen[name] && g.rng.IntN(4) != 0 {
				for _, r := range reqs {
					chosen[r] = true
				}
			}
		}
	}
	var fields []string
	for _, p := range props {
		if chosen[p] {
			fields = append(fields, quote(p)+":"+g.value(g.schema.Properties[p], g.rng.IntN(10) < 8))
		}
	}
	if g.rng.IntN(8) == 0 {
		fields = append(fields, quote(g.pick(hostileNames))+":"+g.anyValue())
	}
	g.rng.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	return "{" + strings.Join(fields, ",") + "}"
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// value writes a value for s: usually of the right type (likely valid),
// otherwise anything at all.
func (g *argGen) value(s *jsonschema.Schema, rightType bool) string {
	if !rightType {
		return g.anyValue()
	}
	if len(s.Enum) > 0 && g.rng.IntN(3) != 0 {
		b, _ := json.Marshal(s.Enum[g.rng.IntN(len(s.Enum))])
		return string(b)
	}
	typ := s.Type
	if len(s.Types) == 2 { // ["boolean", T]: the bare spelling or a value
		if g.rng.IntN(3) == 0 {
			return []string{"true", "false"}[g.rng.IntN(2)]
		}
		typ = s.Types[1]
	}
	switch typ {
	case "string":
		if s.Not != nil && len(s.Not.Enum) > 0 && g.rng.IntN(4) == 0 {
			b, _ := json.Marshal(s.Not.Enum[g.rng.IntN(len(s.Not.Enum))])
			return string(b)
		}
		return quote(g.pick(hostileStrings))
	case "integer":
		if g.rng.IntN(2) == 0 && s.Minimum != nil && s.Maximum != nil {
			lo, hi := *s.Minimum, *s.Maximum
			if hi-lo < 1000 {
				return strconv.Itoa(int(lo) + g.rng.IntN(int(hi-lo)+1))
			}
		}
		return g.pick(numberTexts)
	case "number":
		return g.pick(numberTexts)
	case "boolean":
		return []string{"true", "false"}[g.rng.IntN(2)]
	case "array":
		n := g.rng.IntN(5)
		if g.rng.IntN(6) == 0 {
			n = 0
		}
		if len(s.PrefixItems) > 0 {
			// A tuple: mostly its own length, one off now and then.
			n = len(s.PrefixItems) + []int{0, 0, 0, 0, 0, 0, -1, 1}[g.rng.IntN(8)]
		}
		items := make([]string, n)
		for i := range items {
			item := s.Items
			if i < len(s.PrefixItems) {
				item = s.PrefixItems[i]
			}
			if item == nil {
				items[i] = g.anyValue()
				continue
			}
			items[i] = g.value(item, g.rng.IntN(10) < 9)
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	panic(fmt.Sprintf("no generator for type %q", typ))
}

func (g *argGen) anyValue() string {
	switch g.rng.IntN(8) {
	case 0:
		return "null"
	case 1:
		return `{"nested":{"deeper":[1,{"x":null}]}}`
	case 2:
		return "{}"
	case 3:
		return "[" + g.pick(numberTexts) + "," + quote(g.pick(hostileStrings)) + "]"
	case 4:
		return []string{"true", "false"}[g.rng.IntN(2)]
	case 5:
		return g.pick(numberTexts)
	case 6:
		return "[]"
	}
	return quote(g.pick(hostileStrings))
}
