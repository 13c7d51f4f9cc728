package projector

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func inventoryTree() *Tree {
	s := func(n string) *Param {
		return &Param{Name: n, Options: []string{"--" + n}, Kind: KindString, Arity: ArityOne, Action: "store"}
	}
	return &Tree{Program: "demo", Dialect: DialectArgparse, Commands: []*Command{
		{Path: []string{}, Params: []*Param{{Name: "verbose", Options: []string{"-v"}, Kind: KindBoolean, Arity: ArityNone, FlagValue: true, Action: "store_true"}}},
		{Path: []string{"run"}, Runnable: true, Params: []*Param{s("a"), {Name: "n", Options: []string{"--n"}, Kind: KindInteger, Arity: ArityRepeated, Action: "append", Type: "int"}}},
		{Path: []string{"odd"}, Runnable: true, Hidden: true, Unrepresentable: &Unrepresentable{Reason: "positionals cannot be determined"}, Params: []*Param{
			s("ok"),
			{Name: "budget", Options: []string{"--budget"}, Kind: KindString, Arity: ArityOne, Action: "store", Type: "parse_budget",
				Unrepresentable: &Unrepresentable{Type: "parse_budget", Reason: "type callable parse_budget is not a scalar"}},
			{Name: "shout", Options: []string{"--shout"}, Kind: KindString, Arity: ArityOne, Action: "Upper",
				Unrepresentable: &Unrepresentable{Action: "Upper", Reason: "unknown Action subclass Upper"}},
		}},
		{Path: []string{"broken"}, Runnable: true, Params: []*Param{s("x"), s("x")}},
		{Path: []string{"state"}, Aliases: []string{"st"}, Params: []*Param{}},
		{Path: []string{"state", "migrate"}, Runnable: true, Params: []*Param{}},
	}}
}

func TestInventory(t *testing.T) {
	r := Inventory(inventoryTree(), &InventoryOptions{Fenced: [][]string{{"st", "migrate"}, {"state", "migrate"}, {"plugin", "trust"}}})
	if r.Program != "demo" || r.Dialect != DialectArgparse || r.Commands != 6 || r.Groups != 2 || r.Runnable != 4 || r.Hidden != 1 {
		t.Errorf("counts %+v", r)
	}
	if diff := cmp.Diff([][]string{{"state", "migrate"}}, r.Fenced); diff != "" {
		t.Errorf("fenced: present once (aliases resolved), absent ones not listed (-want +got)\n%s", diff)
	}
	if r.Offerable != 3 || r.Clean != 1 || r.CleanShare != 1.0/3 || !cmp.Equal(r.CleanCommands, [][]string{{"run"}}) {
		t.Errorf("offerable %d clean %d share %v %v", r.Offerable, r.Clean, r.CleanShare, r.CleanCommands)
	}
	wantUnavailable := []UnavailableCommand{
		{Path: []string{"odd"}, Reasons: []*UnavailableReason{
			{Reason: "positionals cannot be determined"},
			{Param: "budget", Type: "parse_budget", Reason: "type callable parse_budget is not a scalar"},
			{Param: "shout", Action: "Upper", Reason: "unknown Action subclass Upper"},
		}},
		{Path: []string{"broken"}, Reasons: []*UnavailableReason{{Reason: `projector: command "broken": invalid parser model: two parameters are named "x"`}}},
	}
	if diff := cmp.Diff(wantUnavailable, r.Unavailable); diff != "" {
		t.Errorf("unavailable: every reason, not just the first (-want +got)\n%s", diff)
	}
	wantParams := ParamInventory{
		Total:        8,
		ByAction:     map[string]int{"store": 5, "store_true": 1, "append": 1, "Upper": 1},
		ByType:       map[string]int{"boolean": 1, "string": 4, "array of integer": 1, "unrepresentable": 2},
		BySourceType: map[string]int{"int": 1, "parse_budget": 1},
		Unrepresentable: []UnrepresentableParam{
			{Path: []string{"odd"}, Param: "budget", Type: "parse_budget", Reason: "type callable parse_budget is not a scalar"},
			{Path: []string{"odd"}, Param: "shout", Action: "Upper", Reason: "unknown Action subclass Upper"},
		},
	}
	if diff := cmp.Diff(wantParams, r.Params); diff != "" {
		t.Errorf("params (-want +got)\n%s", diff)
	}

	// JSON-serializable, and back.
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back InventoryReport
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*r, back); diff != "" {
		t.Errorf("JSON round trip (-want +got)\n%s", diff)
	}

	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"demo (argparse): 6 command paths, 4 runnable, 2 groups", "projects cleanly: 1 of 3 offerable commands (33%)",
		"fenced (present, never offered): state migrate", "unavailable: odd", "  - parameter budget: type callable parse_budget is not a scalar"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}

func TestInventoryEmpty(t *testing.T) {
	if r := Inventory(nil, nil); r.Commands != 0 || r.Unavailable == nil {
		t.Errorf("nil tree: %+v", r)
	}
	r := Inventory(&Tree{Program: "none"}, nil)
	if r.Commands != 0 || r.CleanShare != 0 || r.Unavailable == nil || r.Params.ByAction == nil {
		t.Errorf("%+v", r)
	}
	raw, _ := json.Marshal(r)
	if !strings.Contains(string(raw), `"unavailable":[]`) {
		t.Errorf("empty lists should marshal as [], got %s", raw)
	}
}

// Offerable is asked only about commands that project cleanly and are
// offerable; a command it refuses is unavailable with its reason, not clean.
func TestInventoryOfferable(t *testing.T) {
	var asked []string
	r := Inventory(inventoryTree(), &InventoryOptions{
		Fenced: [][]string{{"state", "migrate"}},
		Offerable: func(_ *Tree, c *Command) error {
			asked = append(asked, strings.Join(c.Path, " "))
			return errors.New("no machine-result seam: it does not accept --json")
		},
	})
	if !cmp.Equal(asked, []string{"run"}) {
		t.Errorf("asked about %q, want only the clean, offerable run", asked)
	}
	if r.Offerable != 3 || r.Clean != 0 || len(r.CleanCommands) != 0 {
		t.Errorf("offerable %d clean %d %v", r.Offerable, r.Clean, r.CleanCommands)
	}
	var reason string
	for _, u := range r.Unavailable {
		if strings.Join(u.Path, " ") == "run" {
			reason = u.Reasons[0].Reason
		}
	}
	if !strings.Contains(reason, "no machine-result seam") {
		t.Errorf("run's reason %q", reason)
	}
}

// InventoryOptions.Offered: a command counts as the front would offer it,
// so one whose conflict a verb's exclusion settles is clean.
func TestInventoryOffered(t *testing.T) {
	tr := &Tree{Program: "x", Dialect: DialectArgparse, Commands: []*Command{
		{Path: []string{}, Params: []*Param{}},
		{Path: []string{"run"}, Runnable: true, Unrepresentable: &Unrepresentable{ByParams: true, Reason: "--a and --b both store to dest x"},
			Params: []*Param{{Name: "x", Options: []string{"--a"}, Kind: KindString, Arity: ArityOne}, {Name: "x", Options: []string{"--b"}, Kind: KindString, Arity: ArityOne}}},
	}}
	if r := Inventory(tr, nil); r.Clean != 0 || len(r.Unavailable) != 1 {
		t.Fatalf("without Offered: %+v", r)
	}
	r := Inventory(tr, &InventoryOptions{Offered: func(_ *Tree, c *Command) *Command {
		out, _ := ExcludeFromCommand(c, "--b")
		return out
	}})
	if r.Clean != 1 || len(r.Unavailable) != 0 {
		t.Fatalf("with the exclusion a verb makes: %+v", r)
	}
}

// TestInventoryTypesAreTheServedSchemas: by_type names each parameter by
// the type of the schema Project serves for it, one row per arity; a
// second check reads the type back from the projected schema's JSON.
func TestInventoryTypesAreTheServedSchemas(t *testing.T) {
	nine := float64(MaxCount)
	opt := func(name string, kind Kind, arity Arity) *Param {
		return &Param{Name: name, Options: []string{"--" + name}, Kind: kind, Arity: arity, Action: "store"}
	}
	tests := []struct {
		rule  string
		param *Param
		want  string
	}{
		{"a flag is a boolean", &Param{Name: "force", Options: []string{"--force"}, Kind: KindBoolean, Arity: ArityNone, FlagValue: true, Action: "store_true"}, "boolean"},
		{"one value is its kind", opt("label", KindString, ArityOne), "string"},
		{"an optional value is its kind", opt("level", KindInteger, ArityOptional), "integer"},
		{"a count flag is an integer, not an array", &Param{Name: "verbose", Options: []string{"-v"}, Kind: KindInteger, Arity: ArityCount, Maximum: &nine, Action: "count"}, "integer"},
		{"a bare-able option is boolean or its kind", &Param{Name: "color", Options: []string{"--color"}, Kind: KindString, Arity: ArityOne, Bare: true, Action: "store"}, "boolean or string"},
		{"a repeated option is an array", opt("tag", KindString, ArityRepeated), "array of string"},
		{"nargs=* is an array", opt("files", KindString, ArityZeroOrMore), "array of string"},
		{"nargs=+ is an array", opt("ids", KindString, ArityOneOrMore), "array of string"},
		{"nargs=N is an array", &Param{Name: "size", Options: []string{"--size"}, Kind: KindInteger, Arity: ArityExactly, N: 2, Action: "store"}, "array of integer"},
		{"a repeated tuple is an array of arrays", &Param{Name: "pair", Options: []string{"--pair"}, Kind: KindString, Arity: ArityRepeatedTuple, N: 2, Action: "append"}, "array of array of string"},
		{"a tuple of mixed positions names them", &Param{Name: "at", Options: []string{"--at"}, Kind: KindString, Arity: ArityExactly, N: 2, Action: "store",
			Elements: []Element{{Kind: KindString}, {Kind: KindInteger}}}, "array of [string, integer]"},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			cmd := &Command{Path: []string{"run"}, Runnable: true, Params: []*Param{tt.param}}
			r := Inventory(&Tree{Program: "demo", Commands: []*Command{cmd}}, nil)
			if d := cmp.Diff(map[string]int{tt.want: 1}, r.Params.ByType); d != "" {
				t.Fatalf("by_type (-want +got):\n%s", d)
			}
			s, err := Project(cmd)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := json.Marshal(s.Properties[tt.param.Name])
			if err != nil {
				t.Fatal(err)
			}
			if got := servedTypeName(t, raw); got != tt.want {
				t.Fatalf("the served schema %s is %q; the inventory says %q", raw, got, tt.want)
			}
		})
	}
}

// servedTypeName names a schema's type from its JSON, independently of
// the inventory's reading of the Go value.
func servedTypeName(t *testing.T, raw []byte) string {
	var s struct {
		Type        json.RawMessage   `json:"type"`
		Items       json.RawMessage   `json:"items"`
		PrefixItems []json.RawMessage `json:"prefixItems"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	var types []string
	if err := json.Unmarshal(s.Type, &types); err != nil {
		var one string
		if err := json.Unmarshal(s.Type, &one); err != nil {
			t.Fatalf("schema %s has no type", raw)
		}
		types = []string{one}
	}
	if len(types) != 1 || types[0] != "array" {
		return strings.Join(types, " or ")
	}
	if s.Items != nil {
		return "array of " + servedTypeName(t, s.Items)
	}
	var each []string
	for _, item := range s.PrefixItems {
		each = append(each, servedTypeName(t, item))
	}
	return "array of [" + strings.Join(each, ", ") + "]"
}
