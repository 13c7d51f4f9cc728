//go:build unix

package verbsurface

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface/internal/testcli"
)

// TestCompileReadsTheSchemaAsItsJSON: CompileValidator reads the schema
// struct, not its JSON, yet must enforce exactly the document a client
// reads. For every schema the tests know — each command of the fixture
// CLI as projected, the extension schemas, the every-keyword schema — the
// validator compiled from the projected struct equals the one compiled
// from the struct its JSON decodes to (enum values as doubles, the false
// schema as decoded, property order kept).
func TestCompileReadsTheSchemaAsItsJSON(t *testing.T) {
	schemas := c1ExtensionSchemas(t)
	schemas["every_keyword"] = mustSchema(t, everyKeywordSchema, everyKeywordOrder)
	tree, err := testcli.Tree(testcli.Env{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range tree.Commands {
		if s, err := projector.Project(c); err == nil {
			schemas["testcli "+strings.Join(c.Path, " ")] = s
		}
	}
	if len(schemas) < 10 {
		t.Fatalf("only %d schemas: the fixture lost its commands", len(schemas))
	}
	for name, s := range schemas {
		t.Run(name, func(t *testing.T) {
			direct, err := CompileValidator(s)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var decoded jsonschema.Schema
			if err := json.Unmarshal(raw, &decoded); err != nil {
				t.Fatal(err)
			}
			decoded.PropertyOrder = s.PropertyOrder
			viaJSON, err := CompileValidator(&decoded)
			if err != nil {
				t.Fatalf("the JSON of a schema that compiles does not: %v\n%s", err, raw)
			}
			opts := cmp.Options{cmp.AllowUnexported(Validator{}, valueCheck{}, crossRule{}, dependency{}),
				cmp.Comparer(func(a, b *regexp.Regexp) bool {
					return a == nil && b == nil || a != nil && b != nil && a.String() == b.String()
				})}
			if diff := cmp.Diff(viaJSON, direct, opts); diff != "" {
				t.Errorf("compiled from the struct differs from compiled from its JSON (-json +struct):\n%s", diff)
			}
		})
	}
}

// Every keyword outside the subset is refused wherever it stands, named
// as it is spelled in JSON, including those jsonschema-go spells from a
// field with another name.
func TestCompileValidatorNamesKeywordsOfOtherFields(t *testing.T) {
	prop := func(p *jsonschema.Schema) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
			Properties: map[string]*jsonschema.Schema{"p": p}}
	}
	tests := []struct {
		rule   string
		schema *jsonschema.Schema
		want   string
	}{
		{"items as an array of schemas", prop(&jsonschema.Schema{Type: "array", ItemsArray: []*jsonschema.Schema{{Type: "string"}}}), `"items"`},
		{"dependencies", prop(&jsonschema.Schema{Type: "string", DependencyStrings: map[string][]string{"a": {"b"}}}), `"dependencies"`},
		{"an extra keyword", prop(&jsonschema.Schema{Type: "string", Extra: map[string]any{"x-hint": 1}}), `"x-hint"`},
		{"type and types both", prop(&jsonschema.Schema{Type: "string", Types: []string{"string"}}), `type (both`},
		{"a default at the root", &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}, Default: json.RawMessage(`{}`)}, `"default"`},
		{"properties on a property", prop(&jsonschema.Schema{Type: "string", Properties: map[string]*jsonschema.Schema{}}), `"properties"`},
		{"a repeated property order", &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}, PropertyOrder: []string{"a", "a"}}, `twice`},
		{"additionalProperties false-like but more", &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}, Title: "x"}}, `additionalProperties must be false`},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			_, err := CompileValidator(tt.schema)
			if err == nil || !regexp.MustCompile(regexp.QuoteMeta(tt.want)).MatchString(err.Error()) {
				t.Fatalf("CompileValidator = %v, want an error naming %s", err, tt.want)
			}
		})
	}
}

// BenchmarkCompileValidator compiles one projected verb of the fixture
// CLI (agent submit, its largest): what every verb costs once at start.
func BenchmarkCompileValidator(b *testing.B) {
	tree, err := testcli.Tree(testcli.Env{})
	if err != nil {
		b.Fatal(err)
	}
	s, err := projector.Project(tree.Find("agent", "submit"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CompileValidator(s); err != nil {
			b.Fatal(err)
		}
	}
}

// The written-out field check and the reflective one agree: each field
// outside the subset, set alone, is named the same by both (the
// reflective one is what a newer jsonschema-go with more fields gets).
func TestOutsideFieldsMatchesReflection(t *testing.T) {
	if !knownSchemaFields {
		t.Fatal("jsonschema.Schema's fields changed: update schemaFields and outsideFields in compile.go")
	}
	for _, f := range otherFields {
		var s jsonschema.Schema
		v := reflect.ValueOf(&s).Elem().Field(f.index)
		switch v.Kind() {
		case reflect.String:
			v.SetString("x")
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Pointer:
			v.Set(reflect.New(v.Type().Elem()))
		case reflect.Slice:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		case reflect.Map:
			v.Set(reflect.MakeMap(v.Type()))
		default:
			t.Fatalf("field %d: kind %s", f.index, v.Kind())
		}
		if got := outsideFields(&s); got != f.keyword {
			t.Errorf("field %s set: outsideFields names %q, reflection %q", reflect.TypeFor[jsonschema.Schema]().Field(f.index).Name, got, f.keyword)
		}
	}
}
