package verbsurface

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// envelope is a parsed request: the one tool's arguments.
type envelope struct {
	ops     []envelopeOp
	hasOps  bool
	help    *helpRequest
	tooMany int // number of ops given when over the cap
	// dryRun is the request-level "dry_run": every op is judged, none runs.
	dryRun bool
}

// envelopeOp is one entry of "ops".
type envelopeOp struct {
	Op                  string
	Args                map[string]any // nil when absent
	Fingerprint         string
	PlaybookFingerprint string
	// DryRun asks for the op to be judged by every gate without running.
	DryRun bool
}

// HelpCatalogString is the one string "help" may be to mean true: older
// clients (MCP Inspector before its form learned booleans) send the
// checkbox's value as the string "true". Only that exact spelling is read
// so: "True", " true" or "yes" remain verb names and get unknown_verb with
// close matches, and [Registry.Register] refuses a verb or synonym named
// "true", so the string can never mean two things.
const HelpCatalogString = "true"

// helpRequest is the "help" member: the catalog (all), one verb, one
// verb with its dynamic parameter's value, a namespace's listing, or a
// search.
type helpRequest struct {
	all     bool
	verb    string
	dynamic map[string]string // other keys of the object form
	// namespace is set by "NS.*" (the listing of the verbs under NS), or
	// by {"list": "NS.*", "page": "N"}; "*" is the whole catalog.
	namespace string
	listing   bool
	page      int // 1-based; 0 when not given
	// search is {"search": "WORDS"}.
	search    string
	searching bool
	// bad holds what the object form's keys got wrong: the help answer
	// reports it (the envelope is well formed).
	bad []Problem
}

// envelopeSchemaJSON renders the envelope's JSON Schema for a
// batch cap. It is the tool's whole input schema: it describes only the
// envelope, never a verb, so its size does not depend on the registry.
func envelopeSchemaJSON(maxOps int) []byte {
	return []byte(`{"type":"object","properties":{` +
		`"ops":{"type":"array","minItems":1,"maxItems":` + strconv.Itoa(maxOps) + `,"items":{"type":"object","properties":{` +
		`"op":{"type":"string"},"args":{"type":"object"},"fingerprint":{"type":"string"},"playbook_fingerprint":{"type":"string"},"dry_run":{"type":"boolean"}},` +
		`"required":["op"],"additionalProperties":false}},` +
		`"help":{"anyOf":[{"const":true},{"type":"string"},{"type":"object","additionalProperties":{"type":"string"}}]},` +
		`"dry_run":{"type":"boolean"}},` +
		`"additionalProperties":false,"anyOf":[{"required":["ops"]},{"required":["help"]}]}`)
}

func envelopeSchema(maxOps int) *jsonschema.Schema {
	var s jsonschema.Schema
	if err := json.Unmarshal(envelopeSchemaJSON(maxOps), &s); err != nil {
		panic("verbsurface: envelope schema: " + err.Error()) // a constant; cannot fail
	}
	return &s
}

// parseEnvelope decodes and checks the tool's arguments. It returns every
// structural problem (the envelope is closed at every level it defines);
// tooMany is set instead when ops exceeds the cap, which is reported on its
// own as batch_too_large.
func parseEnvelope(raw json.RawMessage, maxOps int) (*envelope, []Problem) {
	var problems []Problem
	add := func(param, rule, format string, a ...any) {
		problems = append(problems, Problem{Param: param, Rule: rule, Reason: fmt.Sprintf(format, a...)})
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}") // a call with no arguments is an empty envelope
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var top any
	if err := dec.Decode(&top); err != nil {
		add("", RuleNotAnObject, "the request is not valid JSON: %v", err)
		return nil, problems
	}
	if dec.More() {
		add("", RuleNotAnObject, "the request holds more than one JSON value")
		return nil, problems
	}
	obj, ok := top.(map[string]any)
	if !ok {
		add("", RuleNotAnObject, "the request must be a JSON object with \"ops\" and/or \"help\", got %s", jsonTypeName(top))
		return nil, problems
	}
	env := &envelope{}
	for _, k := range sortedKeys(obj) {
		if k != "ops" && k != "help" && k != "dry_run" {
			add(k, RuleUnknownParameter, "unknown top-level key %s: the request holds only \"ops\", \"help\" and \"dry_run\"", short(k))
		}
	}
	if d, ok := obj["dry_run"]; ok {
		b, isBool := d.(bool)
		if !isBool {
			add("dry_run", RuleWrongType, "\"dry_run\" must be a boolean (true: judge every op, run none), got %s", jsonTypeName(d))
		}
		env.dryRun = b
	}
	if opsRaw, ok := obj["ops"]; ok {
		env.hasOps = true
		list, ok := opsRaw.([]any)
		switch {
		case !ok:
			add("ops", RuleWrongType, "\"ops\" must be an array of {op, args, fingerprint} objects, got %s", jsonTypeName(opsRaw))
		case len(list) > maxOps:
			env.tooMany = len(list)
			return env, nil
		case len(list) == 0:
			add("ops", RuleTooFewItems, "\"ops\" is empty: give 1 to %d ops, or omit it and ask for help", maxOps)
		default:
			for i, e := range list {
				op, ps := parseOp(i, e)
				problems = append(problems, ps...)
				// The request's dry_run covers every op: an op cannot opt
				// back into running.
				op.DryRun = op.DryRun || env.dryRun
				env.ops = append(env.ops, op)
			}
		}
	}
	if helpRaw, ok := obj["help"]; ok {
		h, ps := parseHelp(helpRaw)
		problems = append(problems, ps...)
		env.help = h
	}
	if _, ok := obj["ops"]; !ok {
		if _, ok := obj["help"]; !ok {
			problems = append(problems, Problem{Param: "ops", Params: []string{"ops", "help"}, Rule: RuleRequiredGroup,
				Reason: `the request needs "ops" or "help" (or both); start with {"help": true}`})
		}
	}
	return env, problems
}

func parseOp(i int, e any) (envelopeOp, []Problem) {
	var problems []Problem
	at := fmt.Sprintf("ops[%d]", i)
	add := func(param, rule, format string, a ...any) {
		problems = append(problems, Problem{Param: param, Rule: rule, Reason: fmt.Sprintf(format, a...)})
	}
	var op envelopeOp
	m, ok := e.(map[string]any)
	if !ok {
		add(at, RuleWrongType, "%s must be an object {op, args, fingerprint}, got %s", at, jsonTypeName(e))
		return op, problems
	}
	for _, k := range sortedKeys(m) {
		switch k {
		case "op", "args", "fingerprint", "playbook_fingerprint", "dry_run":
		default:
			add(at+"."+k, RuleUnknownParameter, "unknown key %s in %s: an op holds only op, args, fingerprint, playbook_fingerprint and dry_run; verb parameters go inside args", short(k), at)
		}
	}
	str := func(k string, required bool) string {
		x, ok := m[k]
		if !ok {
			if required {
				add(at+"."+k, RuleMissingRequired, "%s has no %q: name the verb to run", at, k)
			}
			return ""
		}
		s, ok := x.(string)
		if !ok {
			add(at+"."+k, RuleWrongType, "%s.%s must be a string, got %s", at, k, jsonTypeName(x))
		}
		return s
	}
	op.Op = str("op", true)
	op.Fingerprint = str("fingerprint", false)
	op.PlaybookFingerprint = str("playbook_fingerprint", false)
	if d, ok := m["dry_run"]; ok {
		b, isBool := d.(bool)
		if !isBool {
			add(at+".dry_run", RuleWrongType, "%s.dry_run must be a boolean (true: judge the op, do not run it), got %s", at, jsonTypeName(d))
		}
		op.DryRun = b
	}
	if a, ok := m["args"]; ok {
		args, ok := a.(map[string]any)
		if !ok {
			add(at+".args", RuleWrongType, "%s.args must be an object of the verb's parameters, got %s", at, jsonTypeName(a))
		}
		op.Args = args
	}
	return op, problems
}

func parseHelp(x any) (*helpRequest, []Problem) {
	bad := func(got string) []Problem {
		return []Problem{{Param: "help", Rule: RuleWrongType,
			Reason: `"help" must be true (the catalog), a verb name, "NS.*" (a namespace), {"search": WORDS}, or {"verb": NAME, <dynamic parameter>: VALUE}; got ` + got}}
	}
	switch h := x.(type) {
	case bool:
		if !h {
			return nil, bad("false")
		}
		return &helpRequest{all: true}, nil
	case string:
		if h == HelpCatalogString {
			return &helpRequest{all: true}, nil
		}
		if ns, ok := namespaceOf(h); ok {
			return &helpRequest{listing: true, namespace: ns}, nil
		}
		return &helpRequest{verb: h}, nil
	case map[string]any:
		// The envelope checks the object's shape only (string values; a
		// verb, a search or a listing), as its schema says; what a form's
		// other keys mean is the help answer's to judge.
		var problems []Problem
		for _, k := range sortedKeys(h) {
			if _, ok := h[k].(string); !ok {
				problems = append(problems, Problem{Param: "help." + k, Rule: RuleWrongType,
					Reason: fmt.Sprintf("%s must be a string, got %s", short("help."+k), jsonTypeName(h[k]))})
			}
		}
		if len(problems) > 0 {
			return nil, problems
		}
		_, hasVerb := h["verb"]
		_, hasSearch := h["search"]
		_, hasList := h["list"]
		switch {
		case hasVerb:
			req := &helpRequest{verb: h["verb"].(string)}
			for _, k := range sortedKeys(h) {
				if k != "verb" {
					if req.dynamic == nil {
						req.dynamic = map[string]string{}
					}
					req.dynamic[k] = h[k].(string)
				}
			}
			return req, nil
		case hasSearch:
			return helpSearch(h), nil
		case hasList:
			return helpList(h), nil
		}
		return &helpRequest{bad: []Problem{{Param: "help.verb", Rule: RuleMissingRequired,
			Reason: `the object form of "help" needs "verb" (a verb's schema), "search" (find verbs by words) or "list" (a namespace's page)`}}}, nil
	}
	return nil, bad(jsonTypeName(x))
}

// namespaceOf reads the listing form of help: "NS.*" names the namespace
// NS, and "*" the whole catalog. ok is false for anything else.
func namespaceOf(s string) (string, bool) {
	if s == "*" {
		return "", true
	}
	ns, ok := strings.CutSuffix(s, ".*")
	if !ok || ns == "" {
		return "", false
	}
	return ns, true
}

// helpSearch reads {"search": WORDS}: no other key.
func helpSearch(h map[string]any) *helpRequest {
	req := &helpRequest{searching: true, search: h["search"].(string)}
	for _, k := range sortedKeys(h) {
		if k != "search" {
			req.bad = append(req.bad, Problem{Param: "help." + k, Rule: RuleUnknownParameter,
				Reason: fmt.Sprintf("%s: a search holds only \"search\"", short("help."+k))})
		}
	}
	switch words := req.search; {
	case strings.TrimSpace(words) == "":
		req.bad = append(req.bad, Problem{Param: "help.search", Rule: RuleWrongType,
			Reason: `"help.search" is empty: give words describing the task`})
	case len(words) > maxSearchBytes:
		req.bad = append(req.bad, Problem{Param: "help.search", Rule: RuleWrongType,
			Reason: fmt.Sprintf(`"help.search" is %d bytes; a search takes at most %d`, len(words), maxSearchBytes)})
	}
	return req
}

// maxSearchBytes bounds a search's words: a task phrase, not a document.
const maxSearchBytes = 512

// helpList reads {"list": "NS.*", "page": "N"}: one page of a namespace
// too large for one answer.
func helpList(h map[string]any) *helpRequest {
	req := &helpRequest{listing: true, page: 1}
	for _, k := range sortedKeys(h) {
		if k != "list" && k != "page" {
			req.bad = append(req.bad, Problem{Param: "help." + k, Rule: RuleUnknownParameter,
				Reason: fmt.Sprintf("%s: a listing holds only \"list\" and \"page\"", short("help."+k))})
		}
	}
	ns, ok := namespaceOf(h["list"].(string))
	if !ok {
		req.bad = append(req.bad, Problem{Param: "help.list", Rule: RuleWrongType,
			Reason: `"help.list" must name a namespace as "NS.*" (or "*" for every verb)`})
	}
	req.namespace = ns
	if p, ok := h["page"].(string); ok {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			req.bad = append(req.bad, Problem{Param: "help.page", Rule: RuleWrongType,
				Reason: fmt.Sprintf(`"help.page" must be a whole number from 1, as a string ("2"), got %s`, short(p))})
		}
		req.page = n
	}
	return req
}

func jsonTypeName(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", x)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
