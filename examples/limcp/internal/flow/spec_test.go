package flow

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestValidateRules(t *testing.T) {
	step := func(id string, deps ...string) Step { return Step{ID: id, Model: "echo", Prompt: "p", DependsOn: deps} }
	many := make([]Step, MaxSteps+1)
	for i := range many {
		many[i] = step("s" + strings.Repeat("x", i))
	}
	tests := []struct {
		name  string
		spec  Spec
		field string // "" when valid
	}{
		{"one step is a flow", Spec{Steps: []Step{step("a")}}, ""},
		{"a diamond is acyclic", Spec{Steps: []Step{step("a"), step("b", "a"), step("c", "a"), step("d", "b", "c")}}, ""},
		{"no steps", Spec{}, "steps"},
		{"too many steps", Spec{Steps: many}, "steps"},
		{"a malformed id", Spec{Steps: []Step{step("1a")}}, "steps[0].id"},
		{"a duplicate id", Spec{Steps: []Step{step("a"), step("b"), step("a")}}, "steps[2].id"},
		{"a missing model", Spec{Steps: []Step{{ID: "a", Prompt: "p"}}}, "steps[0].model"},
		{"a missing prompt", Spec{Steps: []Step{{ID: "a", Model: "echo"}}}, "steps[0].prompt"},
		{"a bad template", Spec{Steps: []Step{{ID: "a", Model: "echo", Prompt: "{{.x"}}}, "steps[0].prompt"},
		{"a self dependency", Spec{Steps: []Step{step("a", "a")}}, "steps[0].depends_on[0]"},
		{"an unknown dependency", Spec{Steps: []Step{step("a"), step("b", "zz")}}, "steps[1].depends_on[0]"},
		{"a cycle", Spec{Steps: []Step{step("a", "c"), step("b", "a"), step("c", "b")}}, "steps"},
		{"a dependency listed twice", Spec{Steps: []Step{step("a"), step("b", "a", "a")}}, "steps[1].depends_on[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.spec.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatalf("Validate = %v; want valid", err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tt.field {
				t.Fatalf("Validate = %v; want an error on field %q", err, tt.field)
			}
		})
	}
}

func TestCycleIsNamed(t *testing.T) {
	err := Spec{Steps: []Step{{ID: "a", Model: "m", Prompt: "p", DependsOn: []string{"b"}}, {ID: "b", Model: "m", Prompt: "p", DependsOn: []string{"a"}}}}.Validate()
	if err == nil || !strings.Contains(err.Error(), "a → b → a") {
		t.Fatalf("cycle error = %v; want the cycle spelled out", err)
	}
}

func TestParseRefusesASecondDocument(t *testing.T) {
	_, err := Parse([]byte("steps:\n  - {id: a, model: m, prompt: p}\n---\nsteps:\n  - {id: b, model: m, prompt: p}\n"))
	if err == nil || !strings.Contains(err.Error(), "more than one YAML document") {
		t.Fatalf("Parse = %v; want the second document refused", err)
	}
	if _, err := Parse([]byte("---\nsteps:\n  - {id: a, model: m, prompt: p}\n...\n")); err != nil {
		t.Fatalf("one document with markers: %v", err)
	}
}

func TestParseRefusesUnknownFields(t *testing.T) {
	_, err := Parse([]byte("steps:\n  - {id: a, model: m, prompt: p, dependson: [b]}\n"))
	if err == nil || !strings.Contains(err.Error(), "dependson") {
		t.Fatalf("Parse = %v; want the unknown field named", err)
	}
}

func TestRender(t *testing.T) {
	s := Spec{Steps: []Step{{ID: "a", Model: "m", Prompt: "{{.prompt}} at depth {{.args.depth}}"}}}
	got, err := s.Render("look", map[string]any{"depth": int64(3)})
	if err != nil || got.Steps[0].Prompt != "look at depth 3" {
		t.Fatalf("Render = %q, %v", got.Steps[0].Prompt, err)
	}
	if s.Steps[0].Prompt != "{{.prompt}} at depth {{.args.depth}}" {
		t.Fatal("Render modified its receiver")
	}
	if _, err := s.Render("look", nil); err == nil {
		t.Fatal("a missing arg rendered; want missingkey=error")
	}
}

// TestRenderIsBounded: a template that expands the run's prompt without
// limit fails naming the step, rather than building the text in memory.
func TestRenderIsBounded(t *testing.T) {
	prompt := strings.Repeat("x", 1<<20)
	s := Spec{Steps: []Step{
		{ID: "fine", Model: "m", Prompt: "{{.prompt}}{{.prompt}}"},
		{ID: "huge", Model: "m", Prompt: `{{.prompt}}{{.prompt}}{{.prompt}}{{.prompt}}{{.prompt}}`},
	}}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	_, err := s.Render(prompt, nil)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "steps[1].prompt" || !strings.Contains(fe.Msg, "larger than") {
		t.Fatalf("Render = %v; want steps[1].prompt too large", err)
	}
	got, err := Spec{Steps: s.Steps[:1]}.Render(prompt, nil)
	if err != nil || len(got.Steps[0].Prompt) != 2<<20 {
		t.Fatalf("a prompt quoted twice: %d bytes, %v", len(got.Steps[0].Prompt), err)
	}
}

func TestWithInputs(t *testing.T) {
	got := WithInputs("summarise", []Input{{Step: "a", Output: "A"}, {Step: "b", Output: "B"}})
	if want := "summarise\n\n--- output of a ---\nA\n\n--- output of b ---\nB"; got != want {
		t.Fatalf("WithInputs = %q; want %q", got, want)
	}
	if WithInputs("alone", nil) != "alone" {
		t.Fatal("no inputs changed the prompt")
	}
}

// TestTemplateWorkIsBounded: the features that let a template run without
// bound are refused when the spec is read, each naming where and why, and
// what flows use still passes. The attack,
// {{range 100000000}}{{range 100000000}}{{end}}{{end}}x, held a CPU for the
// whole 30 s command timeout.
func TestTemplateWorkIsBounded(t *testing.T) {
	for _, tt := range []struct {
		name, prompt, refusal string // refusal "" passes
	}{
		{"the run's prompt and an arg", "Research {{.prompt}} at depth {{.args.depth}}", ""},
		{"conditions, comparisons and variables", `{{$d := .args.depth}}{{if and (gt $d 2) (ne .prompt "")}}deep {{len .prompt}}{{else}}{{with .args.x}}{{.}}{{end}}{{end}}`, ""},
		{"index and slice", `{{index .args "k"}} {{slice .prompt 0 3}}`, ""},
		{"the issue's nested range", "{{range 100000000}}{{range 100000000}}{{end}}{{end}}x", "prompt:1:8: {{range}} is not allowed"},
		{"a range over an argument", "{{range .args.n}}x{{end}}", "{{range}} is not allowed"},
		{"recursion through define", `{{define "r"}}{{template "r" .}}{{end}}{{template "r" .}}`, "{{define}} and {{block}} are not allowed"},
		{"block", `{{block "b" .}}x{{end}}`, "{{define}} and {{block}} are not allowed"},
		{"printf's width asks for any size", `{{printf "%0999999999d" 0}}`, "the function printf is not allowed"},
		{"print builds text before it is written", `{{print .prompt .prompt}}`, "the function print is not allowed"},
		{"a function inside parentheses", `{{if eq (html .prompt) "x"}}y{{end}}`, "the function html is not allowed"},
		{"call", `{{call .args.f}}`, "the function call is not allowed"},
		{"more actions than the bound", strings.Repeat("{{.prompt}}", MaxTemplateActions+1), fmt.Sprintf("more than %d actions", MaxTemplateActions)},
		{"exactly the bound", strings.Repeat("{{.prompt}}", MaxTemplateActions), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := Spec{Steps: []Step{{ID: "a", Model: "m", Prompt: tt.prompt}}}.Validate()
			if tt.refusal == "" {
				if err != nil {
					t.Fatalf("Validate = %v; want it accepted", err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != "steps[0].prompt" || !strings.Contains(fe.Msg, tt.refusal) || !strings.Contains(fe.Msg, "a flow template may use") {
				t.Fatalf("Validate = %v; want steps[0].prompt refused with %q and what is allowed", err, tt.refusal)
			}
		})
	}
}
