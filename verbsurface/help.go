package verbsurface

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

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
	// Oversize says so when this answer is larger than the help budget: a
	// schema is never cut, so it is sent whole, and said to be large.
	Oversize string `json:"oversize,omitempty"`
}

// markOversize notes on h when it is past the surface's help budget.
func (s *Surface) markOversize(h *VerbHelp) *VerbHelp {
	budget := s.helpBudget()
	if n := encodedLen(h); n > budget {
		h.Oversize = fmt.Sprintf("this answer is %d bytes, over the %d-byte help budget: the schema is sent whole, never cut", n, budget)
	}
	return h
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

func (s *Surface) help(ctx context.Context, rs *requestState, h *helpRequest) (any, bool) {
	switch {
	case len(h.bad) > 0:
		return HelpError{&ErrorObject{Code: CodeInvalidArgs, Problems: h.bad,
			Message: "the help request is not one help answers: " + h.bad[0].Reason}}, false
	case h.all:
		return s.catalog(ctx, rs), true
	case h.listing:
		return s.listing(ctx, rs, h.namespace, h.page)
	case h.searching:
		return s.searchHelp(ctx, rs, h.search)
	}
	r := s.resolve(h.verb)
	if r.err != nil {
		// A namespace named without ".*" is listed all the same: the
		// caller's intent is plain and no verb has that name.
		if r.err.Code == CodeUnknownVerb && s.hasNamespace(ctx, rs, h.verb) && len(h.dynamic) == 0 {
			return s.listing(ctx, rs, h.verb, 0)
		}
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
		return s.markOversize(out), true
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
	return s.markOversize(out), true
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
	switch {
	case v.Summary != "" || p == nil:
		return v.Summary
	case p.cmd != nil:
		return p.cmd.Summary
	case p.unread != nil:
		return p.unread.Summary // as its parent's listing gave it
	}
	return v.Summary
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
