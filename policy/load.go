package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// file is the YAML document, closed: an unknown key anywhere is a load
// error.
type file struct {
	Version int        `yaml:"version"`
	Default string     `yaml:"default"`
	Reason  string     `yaml:"reason"`
	Limits  Limits     `yaml:"limits"`
	Rules   []ruleSpec `yaml:"rules"`
}

type ruleSpec struct {
	Name     string              `yaml:"name"`
	Verbs    []string            `yaml:"verbs"`
	Who      map[string][]string `yaml:"who"`
	Scopes   []string            `yaml:"scopes"`
	When     map[string]condSpec `yaml:"when"`
	Decision string              `yaml:"decision"`
	Reason   string              `yaml:"reason"`
}

type condSpec struct {
	Min      *float64 `yaml:"min"`
	Max      *float64 `yaml:"max"`
	MinItems *int     `yaml:"min_items"`
	MaxItems *int     `yaml:"max_items"`
	In       []any    `yaml:"in"`
	NotIn    []any    `yaml:"not_in"`
	Pattern  *string  `yaml:"pattern"`
}

// MaxFileBytes bounds a policy file: a policy is a page of rules, and a
// larger file is a mistake to report rather than to parse.
const MaxFileBytes = 1 << 20

// Load reads the policy file at filename and checks it against verbs, the
// live surface's verbs. Every problem is an error naming the file, the
// line and the field; see [Parse].
func Load(filename string, verbs []Verb) (*Policy, error) {
	data, err := ReadFile(filename)
	if err != nil {
		return nil, err
	}
	return Parse(filename, data, verbs)
}

// ReadFile reads a policy file's text, at most [MaxFileBytes], for a
// caller that parses it more than once (a front that checks commands as
// it reads them parses the same text again, never a file edited since).
func ReadFile(filename string) ([]byte, error) {
	f, err := os.Open(filename)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	defer f.Close()
	return readBounded(f, filename)
}

func readBounded(f *os.File, filename string) ([]byte, error) {
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("policy: %s: %w", filename, err)
	}
	if n > MaxFileBytes {
		return nil, fmt.Errorf("policy: %s: larger than %d bytes", filename, MaxFileBytes)
	}
	return buf.Bytes(), nil
}

// Parse checks data, a policy file's text (name is used in errors), against
// verbs. The document is YAML, one document, every key known:
//
//	version: 1                 # required, 1
//	default: deny              # allow | ask | deny; deny when absent
//	reason: "..."              # optional: the default's reason
//	limits: {runs_per_minute: 30, live_runs: 8}
//	rules:                     # ordered; the first that matches decides
//	  - name: reads-are-free   # optional; "rules[N]" when absent
//	    verbs: ["job.*"]       # names, synonyms or globs; required
//	    who:                   # optional: who is calling (a verified
//	      groups: [oncall]     # token); subject, client_id or a claim
//	                           # the server keeps, each a list of values
//	    scopes: [ops:write]    # optional: scopes the token must grant
//	    when:                  # optional; every condition must hold
//	      count: {min: 9}      # min, max (numbers), min_items, max_items
//	                           # (array length), in, not_in, pattern (one
//	                           # value, or each element of an array)
//	    decision: allow        # allow | ask | deny; required
//	    reason: "..."          # shown to the caller and the person
//
// It fails, naming the file, the line and the field, on: malformed YAML or
// more than one document; an unknown key; a missing or wrong version; a
// decision not allow, ask or deny; a rule without verbs; a verb pattern
// that matches no verb of verbs (a name the surface no longer has); a
// condition on a parameter that one of the rule's verbs does not have, or
// of a kind its type cannot hold (min on a string, min_items on a number); a
// pattern that does not compile; negative limits. A policy that no longer
// matches the surface fails here, at start, not open later. A verb not
// read yet ([Verb].Unread) has its parameters checked only when the
// policy is parsed again after it is read.
func Parse(name string, data []byte, verbs []Verb) (*Policy, error) {
	where := func(line int, format string, args ...any) error {
		return fmt.Errorf("policy: %s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("policy: %s: %v", name, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, where(extra.Line, "more than one YAML document; a policy file holds exactly one")
	}
	var f file
	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	if err := strict.Decode(&f); err != nil {
		return nil, yamlError(name, err)
	}
	lines := nodeLines(&root)
	if f.Version != 1 {
		return nil, where(lines.key("version"), "version: must be 1, got %d", f.Version)
	}
	p := &Policy{File: name, Limits: f.Limits, defaultDecision: Deny, defaultReason: f.Reason,
		verbs: map[string]*Verb{}, byVerb: map[string][]int{}, elementwise: map[string][]string{}}
	if f.Default != "" {
		if !validDecision(f.Default) {
			return nil, where(lines.key("default"), "default: %q is not allow, ask or deny", f.Default)
		}
		p.defaultDecision = f.Default
	}
	if p.defaultReason == "" {
		p.defaultReason = "no rule of the policy matched, and its default is " + p.defaultDecision
	}
	if f.Limits.RunsPerMinute < 0 || f.Limits.LiveRuns < 0 || f.Limits.SubjectRunsPerMinute < 0 || f.Limits.SubjectLiveRuns < 0 {
		return nil, where(lines.key("limits"), "limits: runs_per_minute and live_runs must not be negative (nor their _per_subject forms)")
	}
	known := make([]*Verb, 0, len(verbs))
	for i := range verbs {
		v := &verbs[i]
		known = append(known, v)
		p.verbs[v.Name] = v
		for _, s := range v.Synonyms {
			if _, taken := p.verbs[s]; !taken {
				p.verbs[s] = v
			}
		}
	}
	for i, rs := range f.Rules {
		line := lines.rule(i)
		rname := rs.Name
		if rname == "" {
			rname = fmt.Sprintf("rules[%d]", i)
		}
		if !validDecision(rs.Decision) {
			return nil, where(line, "rule %s: decision: %q is not allow, ask or deny", rname, rs.Decision)
		}
		if len(rs.Verbs) == 0 {
			return nil, where(line, "rule %s: verbs: required (a name, a synonym or a glob such as job.*)", rname)
		}
		var matched []*Verb
		for _, pat := range rs.Verbs {
			if _, err := path.Match(pat, ""); err != nil {
				return nil, where(line, "rule %s: verbs: %q is not a valid glob: %v", rname, pat, err)
			}
			n := 0
			for _, v := range known {
				if matchVerb(pat, v) {
					n++
					if !slices.Contains(matched, v) {
						matched = append(matched, v)
					}
				}
			}
			if n == 0 {
				return nil, where(line, "rule %s: verbs: %q matches no verb of this surface (its verbs: %s)", rname, pat, verbList(known))
			}
		}
		r := rule{name: rname, line: line, decision: rs.Decision, reason: rs.Reason}
		var err error
		if r.who, r.scopes, err = compileWho(rs.Who, rs.Scopes); err != nil {
			return nil, where(line, "rule %s: %v", rname, err)
		}
		params := make([]string, 0, len(rs.When))
		for param := range rs.When {
			params = append(params, param)
		}
		sort.Strings(params)
		for _, param := range params {
			c, err := compileCond(param, rs.When[param], matched)
			if err != nil {
				return nil, where(line, "rule %s: when: %s: %v", rname, param, err)
			}
			r.conds = append(r.conds, c)
			if c.in != nil || c.notIn != nil || c.pattern != nil {
				for _, v := range matched {
					// An Unread verb's parameter may be an array:
					// judging it element by element is what its
					// type would ask for if it is one, and changes
					// nothing if it is not (a scalar is judged whole).
					if (v.Params[param] == "array" || v.Unread) && !slices.Contains(p.elementwise[v.Name], param) {
						p.elementwise[v.Name] = append(p.elementwise[v.Name], param)
						slices.Sort(p.elementwise[v.Name])
					}
				}
			}
		}
		p.rules = append(p.rules, r)
		for _, v := range matched {
			p.byVerb[v.Name] = append(p.byVerb[v.Name], len(p.rules)-1)
		}
	}
	return p, nil
}

func validDecision(d string) bool { return d == Allow || d == Ask || d == Deny }

func verbList(vs []*Verb) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.Name
	}
	sort.Strings(names)
	if len(names) > 12 {
		return strings.Join(names[:12], ", ") + fmt.Sprintf(", and %d more", len(names)-12)
	}
	return strings.Join(names, ", ")
}

// compileCond checks a condition against every verb the rule matches: the
// parameter must exist in each, with a type the condition can test.
func compileCond(param string, cs condSpec, verbs []*Verb) (cond, error) {
	c := cond{param: param, min: cs.Min, max: cs.Max, minItems: cs.MinItems, maxItems: cs.MaxItems}
	numeric := cs.Min != nil || cs.Max != nil
	items := cs.MinItems != nil || cs.MaxItems != nil
	scalar := cs.In != nil || cs.NotIn != nil || cs.Pattern != nil
	if !numeric && !items && !scalar {
		return c, errors.New("no condition given (min, max, min_items, max_items, in, not_in or pattern)")
	}
	for _, v := range verbs {
		if v.Unread {
			continue // its parameters are not known yet (Verb.Unread)
		}
		typ, ok := v.Params[param]
		if !ok {
			return c, fmt.Errorf("verb %s has no parameter %q (its parameters: %s)", v.Name, param, paramList(v))
		}
		switch {
		case numeric && typ != "integer" && typ != "number":
			return c, fmt.Errorf("min and max test numbers, but %s's %q is %s", v.Name, param, typ)
		case items && typ != "array":
			return c, fmt.Errorf("min_items and max_items test arrays, but %s's %q is %s", v.Name, param, typ)
		}
	}
	var err error
	if c.in, err = texts(cs.In); err != nil {
		return c, fmt.Errorf("in: %v", err)
	}
	if c.notIn, err = texts(cs.NotIn); err != nil {
		return c, fmt.Errorf("not_in: %v", err)
	}
	if cs.Pattern != nil {
		re, err := regexp.Compile(*cs.Pattern)
		if err != nil {
			return c, fmt.Errorf("pattern: %v", err)
		}
		c.pattern = re
		c.prefix, _ = re.LiteralPrefix()
	}
	return c, nil
}

func texts(vs []any) ([]string, error) {
	if vs == nil {
		return nil, nil
	}
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		if i, ok := v.(int); ok {
			v = float64(i)
		}
		s, ok := text(v)
		if !ok {
			return nil, fmt.Errorf("%v is not a string, number or boolean", v)
		}
		out = append(out, s)
	}
	return out, nil
}

func paramList(v *Verb) string {
	names := make([]string, 0, len(v.Params))
	for n := range v.Params {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// lineIndex finds the lines of the document's top-level keys and rules.
type lineIndex struct{ doc *yaml.Node }

func nodeLines(root *yaml.Node) lineIndex {
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		return lineIndex{doc: root.Content[0]}
	}
	return lineIndex{doc: root}
}

func (l lineIndex) value(key string) *yaml.Node {
	if l.doc == nil || l.doc.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(l.doc.Content); i += 2 {
		if l.doc.Content[i].Value == key {
			return l.doc.Content[i+1]
		}
	}
	return nil
}

func (l lineIndex) key(key string) int {
	if n := l.value(key); n != nil {
		return n.Line
	}
	if l.doc != nil {
		return l.doc.Line
	}
	return 1
}

func (l lineIndex) rule(i int) int {
	if n := l.value("rules"); n != nil && n.Kind == yaml.SequenceNode && i < len(n.Content) {
		return n.Content[i].Line
	}
	return l.key("rules")
}

// typeNames names the decoder's Go types as the file's reader knows them.
var typeNames = strings.NewReplacer("field ", "key ", " in type policy.file", " at the top level",
	" in type policy.ruleSpec", " in a rule", " in type policy.condSpec", " in a condition", " in type policy.Limits", " in limits")

// yamlError restates the decoder's errors ("line 4: field x not found in
// type policy.ruleSpec") as FILE:LINE: messages, one per problem.
func yamlError(name string, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return fmt.Errorf("policy: %s: %v", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	msgs := make([]string, len(te.Errors))
	for i, e := range te.Errors {
		var line int
		var rest string
		if n, _ := fmt.Sscanf(e, "line %d:", &line); n == 1 {
			_, rest, _ = strings.Cut(e, ": ")
			rest = typeNames.Replace(rest)
			msgs[i] = fmt.Sprintf("%s:%d: %s", name, line, rest)
		} else {
			msgs[i] = name + ": " + e
		}
	}
	return errors.New("policy: " + strings.Join(msgs, "; "))
}
