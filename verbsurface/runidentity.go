package verbsurface

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/verbsurface/verbsurface/internal/ctxenv"
)

// DefaultIdentityPattern is what every identity value handed to a run must
// match when [RunIdentity].Pattern is nil: a word of letters, digits and
// @ . _ : + -, not beginning with a dash.
var DefaultIdentityPattern = regexp.MustCompile(`^[A-Za-z0-9_@.][A-Za-z0-9_@.:+-]*$`)

// Identity fields a [RunIdentity] may name; any other name is a claim's
// (ClientInfo.Claims), whose values are joined with commas.
const (
	FieldSubject  = "subject"
	FieldClientID = "client_id"
)

// RunIdentity is what of a caller's verified identity reaches the commands
// the surface renders, exactly as the operator declares it, and nothing
// else: never the caller's token. A caller without a verified identity
// (stdio, the static token) runs commands with none of it, as the operator
// itself would.
//
// Values are checked before anything runs, in this order: each field's
// value must exist (a claim the token lacks refuses the op) and match
// Pattern in full; a value that fails refuses the op (policy_refused, rule
// "identity"), naming the field, never running the command.
type RunIdentity struct {
	// Env maps an environment variable of the command to the field it
	// carries: "subject", "client_id", or a claim's name.
	Env map[string]string
	// Args are words the command gets after the verb's fixed arguments
	// and before the caller's, each an option and its value in one word,
	// "--as={subject}": the value part holds literal text and {field}
	// references. In one word an option's value cannot be read as another
	// option or a positional, and no value may begin with a dash: the
	// rules every rendered value follows.
	Args []string
	// Pattern is what every field's value must match (nil:
	// [DefaultIdentityPattern]). A value beginning with a dash is refused
	// whatever the pattern admits.
	Pattern *regexp.Regexp
	// Exchange, when set, returns more environment entries ("NAME=value")
	// for each command an op runs, given the caller and the request's
	// HTTP header: the seam through which a token exchange (RFC 8693)
	// hands a run a token for the program's own backend. The header holds
	// the caller's bearer token, which Exchange may present to the issuer
	// but must never return as is, log or keep; what it returns is passed
	// to the command only, never written to a log, an audit line or an
	// answer. It is not called for a dry run, nor for a caller without an
	// identity. An error refuses the op.
	Exchange func(ctx context.Context, who ClientInfo, header http.Header) ([]string, error)
}

var (
	envName  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	fieldRef = regexp.MustCompile(`\{([^{}]*)\}`)
	argForm  = regexp.MustCompile(`^--?[A-Za-z0-9][A-Za-z0-9_-]*=`)
)

// check refuses a RunIdentity whose names, templates or pattern do not
// keep to the rules above.
func (ri *RunIdentity) check() error {
	if ri == nil {
		return nil
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("verbsurface: New: Options.Identity: %s", fmt.Sprintf(format, a...))
	}
	for name, field := range ri.Env {
		if !envName.MatchString(name) {
			return bad("env: %q is not an environment variable's name", name)
		}
		if field == "" {
			return bad("env: %s: name the field it carries (subject, client_id or a claim)", name)
		}
	}
	for _, a := range ri.Args {
		if !argForm.MatchString(a) {
			return bad("args: %q is not an option and its value in one word (--as={subject})", a)
		}
		_, value, _ := strings.Cut(a, "=")
		refs := fieldRef.FindAllStringSubmatch(value, -1)
		if len(refs) == 0 {
			return bad("args: %q refers to no field ({subject}, {client_id} or {CLAIM})", a)
		}
		if strings.ContainsAny(fieldRef.ReplaceAllString(value, ""), "{}") {
			return bad("args: %q has an unbalanced brace", a)
		}
		for _, r := range refs {
			if r[1] == "" {
				return bad("args: %q refers to an empty field", a)
			}
		}
	}
	return nil
}

// Fields are the fields ri refers to, sorted: a front checks that each
// claim among them is one its token verifier keeps.
func (ri *RunIdentity) Fields() []string {
	var out []string
	add := func(f string) {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	for _, f := range ri.Env {
		add(f)
	}
	for _, a := range ri.Args {
		for _, r := range fieldRef.FindAllStringSubmatch(a, -1) {
			add(r[1])
		}
	}
	slices.Sort(out)
	return out
}

// identityRun is what an op's commands get of its caller: words after the
// verb's fixed arguments, and environment entries.
type identityRun struct {
	args []string
	env  []string
}

// identityFor renders ri for the caller in ctx, checking every value;
// exchange says whether to call Exchange (not for a dry run). The error
// is the op's refusal.
func (s *Surface) identityFor(ctx context.Context, v *Verb, exchange bool) (*identityRun, *ErrorObject) {
	ri := s.opts.Identity
	if ri == nil {
		return nil, nil
	}
	ci := RequestClient(ctx)
	if ci.Subject == "" {
		return nil, nil
	}
	pattern := ri.Pattern
	if pattern == nil {
		pattern = DefaultIdentityPattern
	}
	refuse := func(format string, a ...any) *ErrorObject {
		return &ErrorObject{Code: CodePolicyRefused, Rule: "identity", Message: fmt.Sprintf(
			"%s did not run, since the operator passes the caller's identity to the program and %s", v.Name, fmt.Sprintf(format, a...))}
	}
	value := func(field string) (string, *ErrorObject) {
		var vals []string
		switch field {
		case FieldSubject:
			vals = []string{ci.Subject}
		case FieldClientID:
			if ci.ClientID != "" {
				vals = []string{ci.ClientID}
			}
		default:
			vals = ci.Claims[field]
		}
		if len(vals) == 0 {
			return "", refuse("the caller's token has no %s", field)
		}
		for _, val := range vals {
			if strings.HasPrefix(val, "-") {
				return "", refuse("the caller's %s %s begins with a dash, which the program could read as an option", field, short(val))
			}
			if !pattern.MatchString(val) {
				return "", refuse("the caller's %s %s does not match the operator's pattern %q", field, short(val), pattern)
			}
		}
		return strings.Join(vals, ","), nil
	}
	run := &identityRun{}
	for _, name := range sortedKeys(ri.Env) {
		val, eo := value(ri.Env[name])
		if eo != nil {
			return nil, eo
		}
		run.env = append(run.env, name+"="+val)
	}
	for _, a := range ri.Args {
		var eo *ErrorObject
		word := fieldRef.ReplaceAllStringFunc(a, func(ref string) string {
			val, e := value(ref[1 : len(ref)-1])
			if e != nil && eo == nil {
				eo = e
			}
			return val
		})
		if eo != nil {
			return nil, eo
		}
		run.args = append(run.args, word)
	}
	if exchange && ri.Exchange != nil {
		header, _ := ctx.Value(requestHeaderKey{}).(http.Header)
		more, err := ri.Exchange(ctx, ci, header)
		if err != nil {
			// The error is the exchanger's, which must not quote a token;
			// only its kind is named, never its text, to be safe.
			return nil, refuse("exchanging the caller's token for the program failed (%s)", errorKind(err))
		}
		for _, kv := range more {
			if name, _, ok := strings.Cut(kv, "="); !ok || !envName.MatchString(name) {
				return nil, refuse("the token exchange returned an environment entry that is not NAME=value")
			}
		}
		run.env = append(run.env, more...)
	}
	return run, nil
}

// errorKind names err without its text: its type, or "an error".
func errorKind(err error) string {
	var k interface{ ErrorCode() string }
	if errors.As(err, &k) {
		return k.ErrorCode()
	}
	return fmt.Sprintf("%T", err)
}

// requestHeaderKey holds, in a tool call's context, its HTTP request's
// header (for RunIdentity.Exchange only).
type requestHeaderKey struct{}

// withIdentity is ctx carrying run's environment for the runner
// ([IdentityEnv]).
func withIdentity(ctx context.Context, run *identityRun) context.Context {
	if run == nil {
		return ctx
	}
	return ctxenv.With(ctx, run.env)
}

// IdentityEnv returns the environment entries a command run with ctx must
// add to its own: the caller's identity as [Options].Identity declares it.
// package dispatch's Runner adds them itself; a Runner of an embedder's
// own adds them to the command it starts. Nil when there are none.
func IdentityEnv(ctx context.Context) []string { return ctxenv.From(ctx) }
