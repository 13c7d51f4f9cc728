package verbsurface

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// Catalog is the answer to {"help": true}: one compact line per available
// verb and the verbs that exist but cannot be offered, with the reason.
// Synonyms and fenced commands never appear.
type Catalog struct {
	Verbs       []string          `json:"verbs"`
	Unavailable []UnavailableVerb `json:"unavailable,omitempty"`
	Next        string            `json:"next"`
}

// UnavailableVerb names a registered verb that cannot be offered now.
type UnavailableVerb struct {
	Verb   string `json:"verb"`
	Param  string `json:"param,omitempty"`
	Reason string `json:"reason"`
}

// VerbHelp is the answer to {"help": "<verb>"} and, with the dynamic
// members set, to {"help": {"verb": ..., "<param>": value}}.
type VerbHelp struct {
	Verb              string             `json:"verb"`
	Class             Class              `json:"class"`
	Summary           string             `json:"summary"`
	Schema            *jsonschema.Schema `json:"schema"`
	SchemaFingerprint string             `json:"schema_fingerprint"`
	// Dynamic, on a dynamic verb's base help, says which parameter
	// injects more and how to see them.
	Dynamic *DynamicHelp `json:"dynamic,omitempty"`
	// PlaybookFingerprint is the content fingerprint of what the dynamic
	// value injected; pass it back as the op's playbook_fingerprint.
	PlaybookFingerprint string `json:"playbook_fingerprint,omitempty"`
}

// DynamicHelp explains a dynamic parameter in base help.
type DynamicHelp struct {
	Param    string `json:"param"`
	Note     string `json:"note"`
	HelpCall any    `json:"help_call"`
}

// HelpError is the help member when the help request failed.
type HelpError struct {
	Error *ErrorObject `json:"error"`
}

// catalogSummaryMax bounds a catalog line's summary (in runes): the catalog
// must stay near 90 bytes a verb; help for the verb has the full summary.
const catalogSummaryMax = 60

const catalogNext = `{"help":"VERB"} gives a verb's schema and fingerprint`

func (s *Surface) help(ctx context.Context, rs *requestState, h *helpRequest) (any, bool) {
	if h.all {
		return s.catalog(ctx, rs), true
	}
	r := s.resolve(h.verb)
	if r.err != nil {
		return HelpError{r.err}, false
	}
	v := r.verb
	p := s.project(ctx, rs, v)
	if !p.ok() {
		return HelpError{s.unofferedError(v, p)}, false
	}
	fp, err := p.fingerprint()
	if err != nil {
		return HelpError{&ErrorObject{Code: CodeInternalError, Message: err.Error()}}, false
	}
	out := &VerbHelp{Verb: v.Name, Class: v.Class, Summary: s.summary(v, p), Schema: p.schema(), SchemaFingerprint: fp}
	if len(h.dynamic) == 0 {
		if v.Dynamic != nil {
			out.Dynamic = &DynamicHelp{Param: v.Dynamic.Param,
				Note:     fmt.Sprintf("each %s adds its own parameters; ask for help naming one to see them and get the fingerprint to run with", v.Dynamic.Param),
				HelpCall: map[string]any{"help": map[string]string{"verb": v.Name, v.Dynamic.Param: strings.ToUpper(v.Dynamic.Param)}}}
		}
		return out, true
	}
	if v.Dynamic == nil {
		return HelpError{argsError(v, p, nil, CodeInvalidArgs, unknownHelpKeys(h.dynamic, "",
			fmt.Sprintf("%s has no dynamic parameter: ask {\"help\": %q}", v.Name, v.Name)))}, false
	}
	value, ok := h.dynamic[v.Dynamic.Param]
	if !ok || len(h.dynamic) > 1 {
		return HelpError{argsError(v, p, nil, CodeInvalidArgs, unknownHelpKeys(h.dynamic, v.Dynamic.Param,
			fmt.Sprintf("the only dynamic parameter of %s is %q", v.Name, v.Dynamic.Param)))}, false
	}
	dp, eo := s.injectDynamic(ctx, rs, v, p, value)
	if eo != nil {
		return HelpError{eo}, false
	}
	dfp, err := dp.fingerprint()
	if err != nil {
		return HelpError{&ErrorObject{Code: CodeInternalError, Message: err.Error()}}, false
	}
	out.Schema, out.SchemaFingerprint, out.PlaybookFingerprint = dp.schema(), dfp, dp.playbookFP
	return out, true
}

func unknownHelpKeys(dynamic map[string]string, allowed, reason string) []Problem {
	var problems []Problem
	for _, k := range sortedKeys(dynamic) {
		if k != allowed {
			problems = append(problems, Problem{Param: k, Rule: RuleUnknownParameter, Reason: fmt.Sprintf("%s: %s", short(k), reason)})
		}
	}
	if len(problems) == 0 {
		problems = append(problems, Problem{Param: allowed, Rule: RuleMissingRequired, Reason: reason})
	}
	return problems
}

func (s *Surface) summary(v *Verb, p *projection) string {
	if v.Summary != "" || p == nil || p.cmd == nil {
		return v.Summary
	}
	return p.cmd.Summary
}

// catalog builds the {"help": true} answer in registration order.
func (s *Surface) catalog(ctx context.Context, rs *requestState) *Catalog {
	c := &Catalog{Verbs: []string{}, Next: catalogNext}
	for _, v := range s.reg.snapshot() {
		p := s.project(ctx, rs, v)
		switch {
		case p.fenced != "":
			// Never shown: a fenced command is not even named.
		case p.ok():
			c.Verbs = append(c.Verbs, v.Name+p.signature+" — "+clip(s.summary(v, p), catalogSummaryMax))
		case p.internal != nil:
			c.Unavailable = append(c.Unavailable, UnavailableVerb{Verb: v.Name, Reason: "internal error: " + p.internal.Error()})
		default:
			c.Unavailable = append(c.Unavailable, UnavailableVerb{Verb: v.Name, Param: p.unavailable.Param, Reason: p.unavailable.Reason})
		}
	}
	return c
}

// clip shortens s to at most n runes, at a word boundary when one is near,
// marking the cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)*2/3 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:-") + "…"
}
