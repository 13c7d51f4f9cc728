package flow

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/yamldoc"
)

// MaxSpecBytes bounds a flow spec file (the cap limcp mcp applies to a
// caller's spec too).
const MaxSpecBytes = 1 << 20

// MaxSteps bounds a flow's size.
const MaxSteps = 64

// MaxRenderedBytes bounds one step prompt as rendered. A run's prompt is at
// most 1 MiB; the bound leaves room for a template that quotes it a few
// times, and stops one that would expand it without limit.
const MaxRenderedBytes = 4 << 20

// Spec is a flow: its steps in declaration order.
type Spec struct {
	Steps []Step `yaml:"steps" json:"steps"`
}

// Step is one agent invocation of a flow.
type Step struct {
	ID        string   `yaml:"id" json:"id"`
	Model     string   `yaml:"model" json:"model"`
	Prompt    string   `yaml:"prompt" json:"prompt"`
	DependsOn []string `yaml:"depends_on,omitempty" json:"depends_on,omitempty"`
}

// FieldError is a rule a spec breaks, naming the field ("steps[1].depends_on").
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

var stepIDRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// Parse decodes a flow spec (YAML or JSON, one document) and validates it.
// Unknown fields are errors: a misspelt depends_on must not silently make a
// step independent.
func Parse(b []byte) (Spec, error) {
	var s Spec
	switch err := yamldoc.Decode(b, &s); {
	case errors.Is(err, yamldoc.ErrEmpty):
		return Spec{}, &FieldError{Field: "steps", Msg: "the spec is empty"}
	case err != nil:
		return Spec{}, &FieldError{Field: "", Msg: err.Error()}
	}
	if err := s.Validate(); err != nil {
		return Spec{}, err
	}
	return s, nil
}

// Validate checks the structural rules: at least one and at most MaxSteps
// steps; ids unique and well-formed; a model and a prompt per step; every
// dependency names another existing step, once; no cycle; every prompt a
// valid template.
func (s Spec) Validate() error {
	if len(s.Steps) == 0 {
		return &FieldError{Field: "steps", Msg: "a flow needs at least one step"}
	}
	if len(s.Steps) > MaxSteps {
		return &FieldError{Field: "steps", Msg: fmt.Sprintf("%d steps is more than the limit of %d", len(s.Steps), MaxSteps)}
	}
	index := map[string]int{}
	for i, st := range s.Steps {
		f := fmt.Sprintf("steps[%d]", i)
		switch {
		case !stepIDRE.MatchString(st.ID):
			return &FieldError{Field: f + ".id", Msg: fmt.Sprintf("id %s must match %s", yamldoc.Excerpt(st.ID), stepIDRE)}
		case index[st.ID] != 0:
			return &FieldError{Field: f + ".id", Msg: fmt.Sprintf("id %s is used by more than one step", yamldoc.Excerpt(st.ID))}
		case strings.TrimSpace(st.Model) == "":
			return &FieldError{Field: f + ".model", Msg: "a step needs a model"}
		case strings.TrimSpace(st.Prompt) == "":
			return &FieldError{Field: f + ".prompt", Msg: "a step needs a prompt"}
		}
		if _, err := parseTemplate(st.Prompt); err != nil {
			return &FieldError{Field: f + ".prompt", Msg: err.Error()}
		}
		index[st.ID] = i + 1
	}
	for i, st := range s.Steps {
		listed := map[string]bool{}
		for j, d := range st.DependsOn {
			f := fmt.Sprintf("steps[%d].depends_on[%d]", i, j)
			switch {
			case d == st.ID:
				return &FieldError{Field: f, Msg: fmt.Sprintf("step %q depends on itself", st.ID)}
			case index[d] == 0:
				return &FieldError{Field: f, Msg: fmt.Sprintf("step %q depends on %s, which is not a step", st.ID, yamldoc.Excerpt(d))}
			case listed[d]:
				// Its output would be appended twice.
				return &FieldError{Field: f, Msg: fmt.Sprintf("step %q lists %s twice in depends_on", st.ID, yamldoc.Excerpt(d))}
			}
			listed[d] = true
		}
	}
	if cyc := s.cycle(index); cyc != nil {
		return &FieldError{Field: "steps", Msg: "dependency cycle: " + strings.Join(cyc, " → ")}
	}
	return nil
}

// cycle returns one dependency cycle, or nil.
func (s Spec) cycle(index map[string]int) []string {
	const (
		unseen = iota
		active
		done
	)
	state := make([]int, len(s.Steps))
	var path []string
	var visit func(i int) []string
	visit = func(i int) []string {
		state[i] = active
		path = append(path, s.Steps[i].ID)
		for _, d := range s.Steps[i].DependsOn {
			j := index[d] - 1
			switch state[j] {
			case active:
				for k, id := range path {
					if id == d {
						return append(append([]string(nil), path[k:]...), d)
					}
				}
			case unseen:
				if c := visit(j); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[i] = done
		return nil
	}
	for i := range s.Steps {
		if state[i] == unseen {
			if c := visit(i); c != nil {
				return c
			}
		}
	}
	return nil
}

// Render returns the spec with every step prompt rendered with the run's
// prompt and argument values. A step prompt that renders to more than
// MaxRenderedBytes is an error naming the step. It is RenderWithin with
// no total.
func (s Spec) Render(prompt string, args map[string]any) (Spec, error) {
	return s.RenderWithin(prompt, args, -1)
}

// RenderWithin is Render that stops as soon as the step prompts rendered
// so far take more than total bytes (negative: no total) and returns a
// [*TotalError]. A caller whose run may hold at most total bytes of
// prompts (limits.run_bytes) learns so after rendering total + 1 bytes,
// not after rendering every step: 64 steps quoting a 1 MiB prompt four
// times took 490 MB before the run's size was compared with its bound.
func (s Spec) RenderWithin(prompt string, args map[string]any, total int64) (Spec, error) {
	out := Spec{Steps: make([]Step, len(s.Steps))}
	data := map[string]any{"prompt": prompt, "args": args}
	if args == nil {
		data["args"] = map[string]any{}
	}
	var rendered int64
	for i, st := range s.Steps {
		t, err := parseTemplate(st.Prompt)
		if err != nil {
			return Spec{}, &FieldError{Field: fmt.Sprintf("steps[%d].prompt", i), Msg: err.Error()}
		}
		b := &boundedBuilder{max: MaxRenderedBytes}
		byTotal := false
		if total >= 0 && total-rendered < MaxRenderedBytes {
			b.max, byTotal = int(total-rendered), true
		}
		if err := t.Execute(b, data); err != nil {
			switch {
			case b.over && byTotal:
				return Spec{}, &TotalError{Total: total, Rendered: rendered + int64(b.attempted), Step: i}
			case b.over:
				err = fmt.Errorf("the rendered prompt is larger than %d bytes", MaxRenderedBytes)
			}
			return Spec{}, &FieldError{Field: fmt.Sprintf("steps[%d].prompt", i), Msg: err.Error()}
		}
		st.Prompt = b.String()
		rendered += int64(b.Len())
		out.Steps[i] = st
	}
	return out, nil
}

// TotalError is RenderWithin's refusal: the step prompts rendered up to
// and including step Step (its index) took Rendered bytes, more than
// Total.
type TotalError struct {
	Total, Rendered int64
	Step            int
}

func (e *TotalError) Error() string {
	return fmt.Sprintf("the step prompts rendered up to steps[%d] take %d bytes, more than %d", e.Step, e.Rendered, e.Total)
}

// boundedBuilder is a strings.Builder that refuses to grow past max, so a
// template that would expand without limit fails instead of eating memory.
// attempted is the size it was asked to reach when it refused.
type boundedBuilder struct {
	strings.Builder
	max       int
	over      bool
	attempted int
}

func (b *boundedBuilder) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.max {
		b.over, b.attempted = true, b.Len()+len(p)
		return 0, errors.New("rendered prompt too large")
	}
	return b.Builder.Write(p)
}

// WithInputs returns prompt followed by the outputs of the steps it
// depends on, each under a header line, in the order given.
func WithInputs(prompt string, inputs []Input) string {
	if len(inputs) == 0 {
		return prompt
	}
	var b strings.Builder
	b.WriteString(prompt)
	for _, in := range inputs {
		fmt.Fprintf(&b, "\n\n--- output of %s ---\n%s", in.Step, in.Output)
	}
	return b.String()
}

// Input is one dependency's output.
type Input struct {
	Step   string
	Output string
}
