package policy

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Who is the caller an op comes from, as a verified access token says it:
// the token's subject, the client it was issued to, the scopes it grants
// and the claims the operator named (groups, roles), each a list of
// strings. It never holds the token. A caller without a verified identity
// (a stdio client, a holder of the static token, a client's hook) is a nil
// *Who.
type Who struct {
	Subject  string              `json:"subject"`
	ClientID string              `json:"client_id,omitempty"`
	Scopes   []string            `json:"scopes,omitempty"`
	Claims   map[string][]string `json:"claims,omitempty"`
}

// WhoSubject and WhoClientID are the keys of a rule's who: that name the
// token's subject and client id; every other key names a claim.
const (
	WhoSubject  = "subject"
	WhoClientID = "client_id"
)

// values are who's values of key: the subject, the client id, or a
// claim's values.
func (w *Who) values(key string) []string {
	switch key {
	case WhoSubject:
		return []string{w.Subject}
	case WhoClientID:
		if w.ClientID == "" {
			return nil
		}
		return []string{w.ClientID}
	}
	return w.Claims[key]
}

// whoCond is one key of a rule's who: it holds when one of the caller's
// values of key is one of values.
type whoCond struct {
	key    string
	values []string
}

// holdsFor reports whether the rule's who and scopes hold for w: every
// who key has a value the rule lists, and every scope the rule lists is
// granted. A rule with neither holds for everyone; a rule with either
// never holds for a caller without an identity (w nil), so a rule for
// named callers is never a rule for anonymous ones.
func (r *rule) holdsFor(w *Who) bool {
	if len(r.who) == 0 && len(r.scopes) == 0 {
		return true
	}
	if w == nil {
		return false
	}
	for _, c := range r.who {
		if !slices.ContainsFunc(w.values(c.key), func(v string) bool { return slices.Contains(c.values, v) }) {
			return false
		}
	}
	for _, s := range r.scopes {
		if !slices.Contains(w.Scopes, s) {
			return false
		}
	}
	return true
}

// claimName is what a who key that names a claim may look like.
var claimName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.:/-]*$`)

// compileWho checks a rule's who and scopes: each who key is subject,
// client_id or a claim's name, with at least one value; each scope is
// one word.
func compileWho(who map[string][]string, scopes []string) ([]whoCond, []string, error) {
	keys := make([]string, 0, len(who))
	for k := range who {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []whoCond
	for _, k := range keys {
		if !claimName.MatchString(k) {
			return nil, nil, fmt.Errorf("who: %q is not subject, client_id or a claim's name", k)
		}
		if len(who[k]) == 0 {
			return nil, nil, fmt.Errorf("who: %s: list at least one value (a rule for nobody is a mistake)", k)
		}
		out = append(out, whoCond{key: k, values: slices.Clone(who[k])})
	}
	if who != nil && len(who) == 0 {
		return nil, nil, errors.New("who: empty; name subject, client_id or a claim, or leave who out")
	}
	for _, s := range scopes {
		if s == "" || strings.ContainsAny(s, " \t\n\"\\") {
			return nil, nil, fmt.Errorf("scopes: %q is not a scope (one word, no quote or backslash)", s)
		}
	}
	return out, slices.Clone(scopes), nil
}

// Claims are the names of the claims the rules' who: conditions test
// (every key but subject and client_id), sorted. A server checks them
// against the claims its token verifier keeps: a rule on a claim the
// verifier drops would never hold.
func (p *Policy) Claims() []string {
	var out []string
	for i := range p.rules {
		for _, c := range p.rules[i].who {
			if c.key != WhoSubject && c.key != WhoClientID && !slices.Contains(out, c.key) {
				out = append(out, c.key)
			}
		}
	}
	sort.Strings(out)
	return out
}
