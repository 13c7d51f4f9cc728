package policy

import (
	"encoding/json"
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Decisions a rule (or the default) makes. Ordered from the least to the
// most restrictive; [Most] picks the more restrictive of two.
const (
	Allow = "allow" // the op runs
	Ask   = "ask"   // the op runs only once the person confirms it
	Deny  = "deny"  // the op is refused (policy_refused)
)

// RuleDefault is the rule name a decision reports when no rule matched
// and the file's default decided.
const RuleDefault = "default"

// restrictiveness orders decisions for [Most].
func restrictiveness(d string) int {
	switch d {
	case Allow:
		return 0
	case Ask:
		return 1
	}
	return 2 // deny, and anything unknown: never less restrictive than deny
}

// Most returns the more restrictive of two decisions: deny over ask over
// allow. A batch of ops is decided by its most restrictive op.
func Most(a, b string) string {
	if restrictiveness(b) > restrictiveness(a) {
		return b
	}
	return a
}

// Verb is what the loader knows of one verb of the live surface: its name,
// its class (spawn, observe, control), the v1 names it also answers to, and
// its parameters (schema name to JSON type: "string", "integer", "number",
// "boolean", "array"). A rule may name only verbs and parameters listed
// here.
type Verb struct {
	Name     string
	Class    string
	Synonyms []string
	Params   map[string]string
	// Unread says the verb's parameters are not known yet: its command
	// was listed but not read (a server that reads a large program's
	// commands on demand). Params is then empty, and [Parse] accepts any
	// condition on the verb without checking that the parameter exists or
	// that its type fits; everything else about the verb (its name, class
	// and synonyms) is checked as usual. A condition on an Unread verb
	// that tests with in, not_in or pattern judges an array argument
	// element by element, as it would once the parameter is known to be
	// an array, so a policy parsed with the verb Unread decides its ops as
	// one parsed once it is read. Parse the policy again once the verb is
	// read all the same: only then is a misspelt parameter an error, not a
	// condition that never holds.
	Unread bool
}

// Decision is what the policy decided for one op.
type Decision struct {
	// Decision is [Allow], [Ask] or [Deny].
	Decision string `json:"decision"`
	// Rule names the rule that decided ([RuleDefault] when none matched).
	Rule string `json:"rule"`
	// Reason is the rule's reason, shown to the caller and the person.
	Reason string `json:"reason,omitempty"`
}

// Limits are the file's limits beside its rules; zero means not set.
type Limits struct {
	// RunsPerMinute caps the spawn ops one client may start in a minute.
	RunsPerMinute int `yaml:"runs_per_minute" json:"runs_per_minute,omitempty"`
	// LiveRuns caps how many runs may be live at once, counted through the
	// CLI when a spawn op arrives: a spawn op while that many runs are live
	// is refused.
	LiveRuns int `yaml:"live_runs" json:"live_runs,omitempty"`
	// SubjectRunsPerMinute and SubjectLiveRuns are the same limits for
	// each verified subject ([Who]) on its own, beside the limits above.
	// A caller without an identity is held to the limits above only.
	SubjectRunsPerMinute int `yaml:"runs_per_minute_per_subject" json:"runs_per_minute_per_subject,omitempty"`
	SubjectLiveRuns      int `yaml:"live_runs_per_subject" json:"live_runs_per_subject,omitempty"`
}

// Policy is a loaded policy file: ordered rules, a default, limits. It is
// immutable once loaded and safe for concurrent use.
type Policy struct {
	// File is the path the policy was loaded from ("" for a built-in).
	File string
	// Limits are the file's limits.
	Limits Limits

	defaultDecision string
	defaultReason   string
	rules           []rule
	verbs           map[string]*Verb // by name and by synonym
	// byVerb holds, per verb name, the indexes of the rules whose patterns
	// match it, in file order: matching a name against globs is done once,
	// at load, so evaluation does no glob work at all.
	byVerb map[string][]int
	// elementwise holds, per verb name, its array parameters (sorted) that
	// some rule tests with in, not_in or pattern: those are judged element
	// by element (see [Policy.Evaluate]).
	elementwise map[string][]string
}

// MaxCombinations bounds the evaluations of one op whose rules test the
// elements of two or more array arguments: each combination of one
// element from each is judged, and an op with more combinations than
// this is denied, saying so. An op with one such array is judged once per
// distinct element, whatever its length.
const MaxCombinations = 4096

type rule struct {
	name     string
	line     int
	decision string
	reason   string
	conds    []cond
	who      []whoCond // who is calling; see holdsFor
	scopes   []string  // the scopes the caller's token must grant
}

// cond is one condition on a named, validated argument. A rule matches
// only when every condition holds; a condition on an absent argument does
// not hold (so a rule conditioned on a value never matches an op that
// leaves it to the CLI's default).
type cond struct {
	param     string
	min, max  *float64
	minItems  *int
	maxItems  *int
	in, notIn []string // canonical text of each value
	pattern   *regexp.Regexp
	// prefix is the literal every match of pattern begins with: a value
	// that does not contain it cannot match, which rejects most values
	// without running the regexp.
	prefix string
}

// Evaluate decides one op: the first rule whose verbs match and whose
// conditions all hold decides; when none does, the default. A verb the
// policy does not know (neither a verb nor a synonym it was loaded with)
// is always denied, whatever the default says: a policy never opens to a
// name it could not check.
//
// An array argument that a rule tests with in, not_in or pattern (a
// linter's list of files) is judged element by element: the op is judged
// once for each element, as if that element were the argument's only
// value (min_items and max_items still see the whole array), and the most
// restrictive of those decisions is the op's, the first rule to reach it
// naming it. So one element a deny rule matches denies the op, and an
// allow rule admits the op only if it admits every element. With two or
// more such arrays every combination of their elements is judged, at most
// [MaxCombinations] of them. An empty array is an absent argument: no
// condition on it holds.
//
// Evaluate judges an op of a caller without an identity: a rule with who
// or scopes never matches it. [Policy.EvaluateAs] judges a named caller.
func (p *Policy) Evaluate(verb string, args map[string]any) Decision {
	return p.EvaluateAs(nil, verb, args)
}

// EvaluateAs is [Policy.Evaluate] for an op of the caller who (nil: no
// verified identity): a rule's who and scopes conditions hold, beside its
// argument conditions, when who's subject, client id or named claims have
// a value the rule lists, and its token grants every scope the rule
// lists.
func (p *Policy) EvaluateAs(who *Who, verb string, args map[string]any) Decision {
	v := p.verbs[verb]
	if v == nil {
		return Decision{Decision: Deny, Rule: RuleDefault, Reason: fmt.Sprintf("%s is not a verb this policy was checked against", quoteShort(verb))}
	}
	var params []string
	var lists [][]any
	combos := 1
	for _, param := range p.elementwise[v.Name] {
		a, _ := args[param].([]any)
		if len(a) == 0 {
			continue
		}
		a = distinct(a)
		params, lists = append(params, param), append(lists, a)
		if combos *= len(a); len(lists) > 1 && combos > MaxCombinations {
			return Decision{Decision: Deny, Rule: RuleDefault, Reason: fmt.Sprintf(
				"the policy judges each combination of the elements of %s, and this op has more than %d; send fewer values per op",
				strings.Join(params, ", "), MaxCombinations)}
		}
	}
	if len(lists) == 0 {
		return p.evaluateOne(who, v, args, nil)
	}
	elems := make(map[string]any, len(lists))
	idx := make([]int, len(lists))
	var worst Decision
	for first := true; ; first = false {
		for i, param := range params {
			elems[param] = lists[i][idx[i]]
		}
		d := p.evaluateOne(who, v, args, elems)
		if first || restrictiveness(d.Decision) > restrictiveness(worst.Decision) {
			worst = d
		}
		if worst.Decision == Deny {
			return worst
		}
		// The next combination, the last array fastest.
		i := len(idx) - 1
		for ; i >= 0; i-- {
			if idx[i]++; idx[i] < len(lists[i]) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return worst
		}
	}
}

// evaluateOne is Evaluate for one op, elems holding the element each
// elementwise array argument is judged as.
func (p *Policy) evaluateOne(who *Who, v *Verb, args, elems map[string]any) Decision {
	for _, i := range p.byVerb[v.Name] {
		r := &p.rules[i]
		if r.holdsFor(who) && r.holds(args, elems) {
			return Decision{Decision: r.decision, Rule: r.name, Reason: r.reason}
		}
	}
	return Decision{Decision: p.defaultDecision, Rule: RuleDefault, Reason: p.defaultReason}
}

// distinct is a without repeated scalars (by their canonical text), so a
// long list of one value is judged once; anything else is kept.
func distinct(a []any) []any {
	seen := make(map[string]bool, len(a))
	out := make([]any, 0, len(a))
	for _, e := range a {
		if s, ok := text(e); ok {
			if seen[s] {
				continue
			}
			seen[s] = true
		}
		out = append(out, e)
	}
	return out
}

// Decide is [Policy.Evaluate] in the shape verbsurface.Options.Decide
// takes, so a surface enforces the file with Options{Decide: p.Decide}.
func (p *Policy) Decide(verb string, args map[string]any) (decision, rule, reason string) {
	return p.DecideAs(nil, verb, args)
}

// DecideAs is [Policy.EvaluateAs] in the shape verbsurface's
// IdentityDecider takes: a surface hands it the verified caller of each
// op.
func (p *Policy) DecideAs(who *Who, verb string, args map[string]any) (decision, rule, reason string) {
	d := p.EvaluateAs(who, verb, args)
	return d.Decision, d.Rule, d.Reason
}

// Canonical returns the verb name an op's name resolves to (a synonym
// resolves to its verb), and false for a name the policy does not know.
func (p *Policy) Canonical(name string) (string, bool) {
	if v := p.verbs[name]; v != nil {
		return v.Name, true
	}
	return "", false
}

func (r *rule) holds(args, elems map[string]any) bool {
	for i := range r.conds {
		if !r.conds[i].holds(args, elems) {
			return false
		}
	}
	return true
}

// holds reports whether the condition holds for args; in, not_in and
// pattern test elems[c.param] instead when it is set (one element of an
// array argument).
func (c *cond) holds(args, elems map[string]any) bool {
	v, ok := args[c.param]
	if !ok || v == nil {
		return false
	}
	if c.min != nil || c.max != nil {
		f, ok := number(v)
		if !ok {
			return false
		}
		if c.min != nil && f < *c.min || c.max != nil && f > *c.max {
			return false
		}
	}
	if c.minItems != nil || c.maxItems != nil {
		n, ok := length(v)
		if !ok {
			return false
		}
		if c.minItems != nil && n < *c.minItems || c.maxItems != nil && n > *c.maxItems {
			return false
		}
	}
	if c.in != nil || c.notIn != nil || c.pattern != nil {
		if e, ok := elems[c.param]; ok {
			v = e
		}
		s, ok := text(v)
		if !ok {
			return false
		}
		if c.in != nil && !slices.Contains(c.in, s) {
			return false
		}
		if c.notIn != nil && slices.Contains(c.notIn, s) {
			return false
		}
		if c.pattern != nil && (!strings.Contains(s, c.prefix) || !c.pattern.MatchString(s)) {
			return false
		}
	}
	return true
}

// number reads a numeric argument however it was decoded: json.Number
// from a validated envelope, float64 from a plain decode, or a Go integer.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil && !math.IsNaN(f)
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

func length(v any) (int, bool) {
	switch a := v.(type) {
	case []any:
		return len(a), true
	case []string:
		return len(a), true
	}
	return 0, false
}

// text is the canonical text of a scalar, which in, not_in and pattern
// compare: a string as itself, a number in its shortest decimal form, a
// boolean as true or false.
func text(v any) (string, bool) {
	switch s := v.(type) {
	case string:
		return s, true
	case bool:
		return strconv.FormatBool(s), true
	}
	if f, ok := number(v); ok {
		return strconv.FormatFloat(f, 'g', -1, 64), true
	}
	return "", false
}

// matchVerb reports whether a rule's verb pattern names v: an exact name,
// a synonym, or a glob (path.Match syntax, so "job.*" and "*.submit";
// the dot is an ordinary character).
func matchVerb(pattern string, v *Verb) bool {
	if pattern == v.Name || slices.Contains(v.Synonyms, pattern) {
		return true
	}
	ok, _ := path.Match(pattern, v.Name)
	return ok
}

func quoteShort(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strconv.Quote(s)
}

// ReadOnlyRule names the built-in read-only policy's rules.
const ReadOnlyRule = "read-only"

// ReadOnly is the built-in read-only policy over verbs: observe verbs
// allow, every other verb deny, the same judgement as the server's
// --read-only (verbsurface.Options.ReadOnly), so a client's hook can hold a
// read-only server to what it says.
func ReadOnly(verbs []Verb) *Policy {
	p := &Policy{defaultDecision: Deny, defaultReason: "this surface is read-only: only observe verbs may run",
		verbs: map[string]*Verb{}, byVerb: map[string][]int{},
		rules: []rule{{name: ReadOnlyRule, decision: Allow, reason: "observe verbs only read"}}}
	for i := range verbs {
		v := &verbs[i]
		p.verbs[v.Name] = v
		for _, s := range v.Synonyms {
			if _, taken := p.verbs[s]; !taken {
				p.verbs[s] = v
			}
		}
		if v.Class == "observe" {
			p.byVerb[v.Name] = []int{0}
		}
	}
	return p
}
