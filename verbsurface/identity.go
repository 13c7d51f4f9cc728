package verbsurface

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/verbsurface/verbsurface/policy"
)

// TokenClaimsKey is the key, in a verified token's auth.TokenInfo Extra,
// of the claims the operator named (groups, roles): a
// map[string][]string, as package mcphttp/oauth's verifier gives it
// (oauth.ClaimsKey). The binding copies it into [ClientInfo].Claims.
const TokenClaimsKey = "claims"

// Who is the caller's verified identity as package policy judges it: nil
// when the request carries none (stdio, the static bearer token), whose
// caller is the operator's own.
func (ci ClientInfo) Who() *policy.Who {
	if ci.Subject == "" {
		return nil
	}
	return &policy.Who{Subject: ci.Subject, ClientID: ci.ClientID, Scopes: ci.Scopes, Claims: ci.Claims}
}

// IdentityDecider is a [Decider] that also judges who is calling:
// package policy's *Policy (its DecideAs method). A surface whose
// Options.Decide is one hands it the caller of each op ([ClientInfo.Who]:
// nil without a verified identity).
type IdentityDecider interface {
	Decider
	DecideAs(who *policy.Who, verb string, args map[string]any) (decision, rule, reason string)
}

// decideOp asks Options.Decide about one op, with its caller when the
// Decider judges callers.
func (s *Surface) decideOp(ctx context.Context, verb string, args map[string]any) (decision, rule, reason string) {
	if d, ok := s.opts.Decide.(IdentityDecider); ok {
		return d.DecideAs(RequestClient(ctx).Who(), verb, args)
	}
	return s.opts.Decide.Decide(verb, args)
}

// OpScopes returns the scopes a token must grant to run the op named name
// (a verb or a synonym), by its class ([Options].ClassScopes); nil for a
// name that resolves to no verb, or a class that needs none. An HTTP face
// reads it to refuse, before anything runs, a request none of whose ops
// its token may run (403 insufficient_scope).
func (s *Surface) OpScopes(name string) []string {
	r := s.resolve(name)
	if r.verb == nil {
		return nil
	}
	return slices.Clone(s.opts.ClassScopes[r.verb.Class])
}

// ScopesSupported returns every, then each scope a class needs
// ([Options].ClassScopes) not already in it: the scopes an HTTP face's
// metadata publishes.
func (s *Surface) ScopesSupported(every []string) []string {
	out := slices.Clone(every)
	for _, class := range []Class{ClassObserve, ClassControl, ClassSpawn} {
		for _, sc := range s.opts.ClassScopes[class] {
			if !slices.Contains(out, sc) {
				out = append(out, sc)
			}
		}
	}
	return out
}

// MissingScopes returns the scopes of want that granted lacks, in want's
// order.
func MissingScopes(want, granted []string) []string {
	var out []string
	for _, s := range want {
		if !slices.Contains(granted, s) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// scopeError is the insufficient_scope refusal of an op of v whose caller's
// token lacks a scope its class needs ([Options].ClassScopes); nil when it
// may go on. A caller without a verified identity is not judged: it is
// the operator's (stdio, the static token), and holds every scope.
func (s *Surface) scopeError(ctx context.Context, v *Verb) *ErrorObject {
	want := s.opts.ClassScopes[v.Class]
	if len(want) == 0 {
		return nil
	}
	ci := RequestClient(ctx)
	if ci.Subject == "" {
		return nil
	}
	missing := MissingScopes(want, ci.Scopes)
	if len(missing) == 0 {
		return nil
	}
	return &ErrorObject{Code: CodeInsufficientScope, Scopes: missing, Message: fmt.Sprintf(
		"%s is a %s verb, and running one needs a token granting %s, which the caller's token does not, so it did not run; a token with that scope, from the authorization server, runs it",
		v.Name, v.Class, strings.Join(missing, " "))}
}

// spawnBuckets are the buckets one spawn op draws on: its client's
// (Options.ClientKey, the whole server when that is nil) and, for a
// caller with a verified subject, the subject's own
// (Options.SubjectSpawnsPerMinute). An op takes a token from both or from
// neither.
type spawnBuckets struct {
	total      *spawnLimiter // nil: no limit
	key        string
	subject    *spawnLimiter // nil: no per-subject limit, or no subject
	subjectKey string
}

func (s *Surface) spawnBucketsOf(ctx context.Context, key string) spawnBuckets {
	b := spawnBuckets{total: s.spawns, key: key}
	if s.subjectSpawns != nil {
		if sub := RequestClient(ctx).Subject; sub != "" {
			b.subject, b.subjectKey = s.subjectSpawns, sub
		}
	}
	return b
}

// limited reports whether any bucket applies.
func (b spawnBuckets) limited() bool { return b.total != nil || b.subject != nil }

// takeUpTo takes up to n tokens from both buckets: as many as both hold
// now. When fewer than n, it returns the limit that fell short (per
// minute, and whether it is the subject's) and how long until it regains
// one.
func (b spawnBuckets) takeUpTo(n int) (took int, retryAfter time.Duration, limit int, perSubject bool) {
	took = n
	if b.subject != nil {
		took, retryAfter = b.subject.takeUpTo(b.subjectKey, n)
		if took < n {
			limit, perSubject = b.subject.perMinute, true
		}
	}
	if b.total != nil && took > 0 {
		got, retry := b.total.takeUpTo(b.key, took)
		if got < took {
			if b.subject != nil {
				b.subject.give(b.subjectKey, took-got)
			}
			took, retryAfter, limit, perSubject = got, retry, b.total.perMinute, false
		}
	}
	return took, retryAfter, limit, perSubject
}

// give returns n tokens to both buckets.
func (b spawnBuckets) give(n int) {
	if b.subject != nil {
		b.subject.give(b.subjectKey, n)
	}
	if b.total != nil {
		b.total.give(b.key, n)
	}
}

// peek is how many tokens both buckets hold now, and when fewer than one,
// the limit that is spent and how long until it regains one.
func (b spawnBuckets) peek() (tokens int, retryAfter time.Duration, limit int, perSubject bool) {
	tokens = -1
	if b.subject != nil {
		tokens, retryAfter = b.subject.peek(b.subjectKey)
		limit, perSubject = b.subject.perMinute, true
	}
	if b.total != nil {
		t, retry := b.total.peek(b.key)
		if tokens < 0 || t < tokens {
			tokens, retryAfter, limit, perSubject = t, retry, b.total.perMinute, false
		}
	}
	return tokens, retryAfter, limit, perSubject
}
