package verbsurface

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/verbsurface/verbsurface/policy"
)

// Decider is a payload-aware policy that decides each op allow, ask or
// deny on its verb and validated args, naming the rule that decided and
// its reason. package policy's *Policy satisfies it (its Decide method).
// Decide must be safe for concurrent use and must not modify args.
//
// It is asked after validation, confinement (path arguments are real
// paths by then) and [Options.Policy], before the fingerprint gate: deny is policy_refused with the rule and reason; ask
// runs the op only once the person confirmed it (see "Confirmation" in
// the package documentation); allow runs it. Any other decision is deny.
type Decider interface {
	Decide(verb string, args map[string]any) (decision, rule, reason string)
}

// Decisions a [Decider] returns.
const (
	DecisionAllow = "allow"
	DecisionAsk   = "ask"
	DecisionDeny  = "deny"
)

// Answers a person gives to a confirmation, and what a retry that carries
// none the server can trust amounts to. The policy_refused error of an op
// that was asked names one of them in its "confirmation" field.
const (
	// AnswerAccept: the person confirmed; the op runs.
	AnswerAccept = "accept"
	// AnswerDeclined: the person said no.
	AnswerDeclined = "declined"
	// AnswerCancelled: the person dismissed the question without an answer.
	AnswerCancelled = "cancelled"
	// AnswerExpired: the answer came back after Options.ConfirmWithin.
	AnswerExpired = "expired"
	// AnswerInvalid: the retry's requestState was forged or altered, or
	// does not bind this op, its args and its rule.
	AnswerInvalid = "invalid"
	// AnswerUnavailable: the client cannot ask its person (it declared no
	// elicitation capability), so a confirmation could not be asked.
	AnswerUnavailable = "unavailable"
)

// DefaultConfirmWithin is how long a person has to answer a confirmation
// when Options.ConfirmWithin is zero.
const DefaultConfirmWithin = 5 * time.Minute

// Confirmation is an op that needs the person's confirmation (a
// [Decider] said ask): what the question shows and what the answer binds.
type Confirmation struct {
	// Index is the op's position in its request.
	Index int
	// Verb is the op's verb (a synonym resolved).
	Verb string
	// Args are the op's validated, normalized args, each path argument
	// replaced by the real path of what was opened inside a root.
	Args map[string]any
	// ArgsDigest is the [ArgsDigest] of the args as the Decider saw them
	// (validated, path arguments as real paths): the confirmation binds
	// the files that will be used, so a symlink re-pointed between the
	// question and the answer makes the retry's digest differ and the op
	// not run (confirmation invalid).
	ArgsDigest string
	// Rule and Reason are the rule that asked and its reason.
	Rule, Reason string
}

// confirmedKey carries the person's answers into Handle: op index to answer.
type confirmedKey struct{}

// answer is what a request's retry says about one asked op.
type answer struct {
	verb, digest, rule string
	answer             string // one of the Answer constants
}

// withAnswers returns ctx carrying answers for Handle's ask gate.
func withAnswers(ctx context.Context, answers map[int]answer) context.Context {
	return context.WithValue(ctx, confirmedKey{}, answers)
}

// ArgsDigest is the SHA-256 (hex) of args' canonical JSON: compact, object
// keys sorted (encoding/json sorts map keys), numbers as validated. The
// audit and a confirmation's requestState bind an op's args by it.
func ArgsDigest(args map[string]any) string {
	if args == nil {
		args = map[string]any{}
	}
	b, err := json.Marshal(args)
	if err != nil {
		b = []byte(fmt.Sprintf("%#v", args))
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// decide runs the Decider's gate for one op. It returns nil when the op
// may go on, and the policy_refused error otherwise.
func (s *Surface) decide(ctx context.Context, index int, v *Verb, args map[string]any, rec *OpRecord) *ErrorObject {
	decision, rule, reason := s.decideOp(ctx, v.Name, args)
	rec.Decision, rec.Rule = decision, rule
	switch decision {
	case DecisionAllow:
		return nil
	case DecisionAsk:
	default:
		msg := fmt.Sprintf("the surface's policy refused %s (rule %s)", v.Name, rule)
		if decision != DecisionDeny {
			msg += fmt.Sprintf("; its decision %q is not allow, ask or deny, so it counts as deny", decision)
		}
		if reason != "" {
			msg += ": " + reason
		}
		return &ErrorObject{Code: CodePolicyRefused, Rule: rule, Message: msg}
	}
	answers, _ := ctx.Value(confirmedKey{}).(map[int]answer)
	a, ok := answers[index]
	if ok && (a.verb != v.Name || a.rule != rule || a.digest != ArgsDigest(args)) {
		a.answer = AnswerInvalid
	}
	if !ok {
		a.answer = AnswerUnavailable
	}
	rec.Confirmed = a.answer
	if a.answer == AnswerAccept {
		return nil
	}
	why := reason
	if why != "" {
		why = ": " + why
	}
	var msg string
	switch a.answer {
	case AnswerDeclined:
		msg = fmt.Sprintf("%s needs the person's confirmation (rule %s%s) and they declined; it did not run", v.Name, rule, why)
	case AnswerCancelled:
		msg = fmt.Sprintf("%s needs the person's confirmation (rule %s%s) and they dismissed the question; it did not run", v.Name, rule, why)
	case AnswerExpired:
		msg = fmt.Sprintf("%s needs the person's confirmation (rule %s%s) and the answer came after it expired; it did not run; send the request again to ask again", v.Name, rule, why)
	case AnswerInvalid:
		msg = fmt.Sprintf("%s needs the person's confirmation (rule %s%s) and the retry's requestState does not confirm this op, its args and its rule; it did not run; send the request again without requestState to ask again", v.Name, rule, why)
	default:
		msg = fmt.Sprintf("%s needs the person's confirmation (rule %s%s), and this client cannot ask its person (it declared no elicitation capability); it did not run", v.Name, rule, why)
	}
	return &ErrorObject{Code: CodePolicyRefused, Rule: rule, Confirmation: a.answer, Message: msg}
}

// Confirmations returns the ops of a request that need the person's
// confirmation before the request may run: each op that resolves,
// projects and validates, that Options.ReadOnly admits, and that the
// Decider says ask about (Options.Policy is not called: it sees the op
// when the request runs). Nothing runs; an op that would fail earlier is not
// asked about (it fails when the request runs). nil when no Decider is
// set or no op asks.
func (s *Surface) Confirmations(ctx context.Context, arguments json.RawMessage) []Confirmation {
	if s.opts.Decide == nil {
		return nil
	}
	env, problems := parseEnvelope(arguments, s.opts.MaxOps)
	if env == nil || env.tooMany > 0 || len(problems) > 0 {
		return nil
	}
	rs := &requestState{}
	s.readForRequest(ctx, rs, env)
	var out []Confirmation
	for i, op := range env.ops {
		if op.DryRun {
			continue // judged, not run: its ask is its result, nobody is asked
		}
		g := s.gate(ctx, rs, op)
		if g.err != nil {
			continue
		}
		// Options.Policy is not asked here: it may count what it admits
		// (a live-run limit), and nothing runs in this pass. An op it
		// refuses is refused when the request runs, after the answer.
		if s.opts.ReadOnly && g.verb.Class != ClassObserve || s.scopeError(ctx, g.verb) != nil {
			continue
		}
		// Asked about with the real paths, as the run decides: the person
		// confirms the files that will be used, and the digest binds them.
		c, problems := s.confineOp(g.verb, g.proj, g)
		if len(problems) > 0 {
			continue
		}
		closeConfined(c.files)
		decision, rule, reason := s.decideOp(ctx, g.verb.Name, c.policy)
		if decision == DecisionAsk {
			out = append(out, Confirmation{Index: i, Verb: g.verb.Name, Args: c.run,
				ArgsDigest: ArgsDigest(c.policy), Rule: rule, Reason: reason})
		}
	}
	return out
}

// OpRecord is what [Options.OnOp] learns of each op once it finished: the
// audit's raw material.
type OpRecord struct {
	// Index is the op's position in its request.
	Index int
	// Verb is the resolved verb, or the name as sent when none resolved.
	Verb  string
	Class Class
	// Args are the validated args as the policy saw them: each path
	// argument the real path of what was opened inside a root, or, for an
	// op confinement refused, as the caller sent it (nil when the op
	// failed before validation passed); ArgsDigest is their [ArgsDigest]
	// ("" then too).
	Args       map[string]any
	ArgsDigest string
	// Decision and Rule are the Decider's ("" when it was not asked);
	// Confirmed is the person's answer when the decision was ask.
	Decision, Rule, Confirmed string
	// Code is "ok" or the op's error code.
	Code string
	// Duration is how long the op took, gates included.
	Duration time.Duration
	// Result is the op's data when it succeeded.
	Result json.RawMessage
	// DryRun is set for an op sent with "dry_run": true: judged by every
	// gate, not run (Result is then its [DryRun]).
	DryRun bool
}

// PolicyVerbs describes the surface's verbs as a policy file is checked
// against them ([policy.Load]): each registered verb's name, class, v1
// synonyms and parameters (schema name to JSON type), projected from the
// live tree now. A verb that cannot be offered is listed without
// parameters, so a rule may still refuse it by name; a dynamic verb lists
// its base parameters (what a value injects is not known in advance); a
// verb whose command is not read yet (see [Options.Read]) is listed
// Unread, without parameters: parse the policy again once it is read.
func (s *Surface) PolicyVerbs(ctx context.Context) []policy.Verb {
	rs := &requestState{}
	verbs := s.reg.snapshot()
	out := make([]policy.Verb, 0, len(verbs))
	for _, v := range verbs {
		pv := policy.Verb{Name: v.Name, Class: string(v.Class), Synonyms: slices.Clone(v.Synonyms), Params: map[string]string{}}
		p := s.project(ctx, rs, v)
		if p.unread != nil {
			pv.Unread, pv.Params = true, nil
		}
		if schema := p.schema(); schema != nil {
			for name, prop := range schema.Properties {
				typ := prop.Type
				if typ == "" && len(prop.Types) > 0 {
					typ = prop.Types[0]
				}
				pv.Params[name] = typ
			}
		}
		out = append(out, pv)
	}
	return out
}
