package verbsurface

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/verbsurface/verbsurface/projector"
)

// DefaultMaxOps is the batch cap when Options.MaxOps is zero.
const DefaultMaxOps = 16

// Options configures a [Surface]. Source is required; Runner is required
// unless every verb has a Handler. Every other zero value is right.
type Options struct {
	// Source supplies the CLI's parser tree, live.
	Source TreeSource
	// Runner runs rendered commands (dispatch.Runner satisfies it).
	Runner Runner
	// Machine is machine mode in any shape and position: the arguments
	// that select it (["--json"] for limcp,
	// ["--format=json"], ["-o", "json"]) and whether they go after the
	// command path (leaf, the default) or before it, on the root parser
	// (root: an argparse CLI whose --json belongs to the top-level parser).
	// The surface renders them on every dispatch, and the option is
	// removed from every projected command, so it is never a caller's
	// parameter (walk a cobra tree with the flag excluded, as
	// fromcobra.Options.ExcludeFlags allows, and it is never there to
	// begin with). The seam check applies either way: the command (leaf)
	// or the root command (root) must accept the option Args[0] spells,
	// as a parameter or an excluded flag, else the verb is unavailable,
	// saying which position would work. No Args: the runner arranges
	// machine output itself.
	Machine Machine
	// MaxOps caps a batch; zero means [DefaultMaxOps]. More ops is the
	// request-level error batch_too_large, never a truncation.
	MaxOps int
	// Policy, when set, may refuse any op after validation (policy_refused).
	Policy Policy
	// Decide, when set, decides each op allow, ask or deny after Policy
	// (a policy file: package policy's *Policy). ask runs the op only
	// once the person confirmed it through the MCP binding's elicitation;
	// see [Decider].
	Decide Decider
	// ConfirmWithin is how long a person has to answer an ask
	// ([DefaultConfirmWithin] when zero): an answer after it is expired.
	ConfirmWithin time.Duration
	// OnOp, when set, is called once for every op of every request when
	// it finished, refused ones included, on the request's goroutine (it
	// must be safe for concurrent use): an audit's hook.
	OnOp func(ctx context.Context, rec *OpRecord)
	// SynonymSunset is when v1 synonyms stop being accepted: from that
	// instant on they are rejected with retired_synonym naming the verb.
	// Zero means they never retire.
	SynonymSunset time.Time
	// Now is the clock the sunset is judged by; nil means time.Now.
	Now func() time.Time
	// Description replaces the tool description; keep it short, the whole
	// tools/list entry must stay under 1,024 bytes.
	Description string
	// Title is the tool's human-readable title in its MCP annotations;
	// empty means [DefaultTitle].
	Title string
	// ReadOnly admits only observe verbs (it runs [ReadOnly] before
	// Policy) and says so in the tool's annotations (readOnlyHint), so a
	// client can tell a read-only server from a full one before calling.
	ReadOnly bool
	// Roots are the directories (absolute; resolved to their real paths
	// by New, each must exist) under which a caller may name files through
	// path parameters ([Verb.PathParams], projector.Param.Path). Empty
	// means no file access at all: every path argument is refused with
	// rule outside_roots. See "Files and roots" in the package
	// documentation.
	Roots []string
	// AllowHardLinks admits, as a path argument, a regular file with more
	// than one name (a hard link). By default such a file is refused with
	// rule outside_roots: a hard link inside a root may be a file that
	// names outside every root also reach (a secret linked in by anyone
	// who can write in the root), and nothing tells where its other names
	// are. Allow them only for roots nobody untrusted can write in.
	AllowHardLinks bool
	// Private are directories the server keeps to itself: its state home
	// (a bearer token, the files configuring it, its stores), carved out
	// of every root: a path argument under one of them is refused
	// (outside_roots), and so is a directory argument that holds one (a
	// program handed a directory reads what is under it). New fails,
	// naming both, when a root is one of them or lies inside one. A
	// directory that does not exist yet is judged by where it would be.
	Private []string
	// NoRootsHint completes the refusal of a path argument when Roots is
	// empty, telling the caller how the operator enables file access
	// ("its operator can start it with --root DIR").
	NoRootsHint string

	// MaxResponseBytes caps the encoded size of one response
	// ([DefaultMaxResponseBytes], 4 MiB, when zero; negative: no cap),
	// failures included. A failure past it is cut to excerpts
	// (ErrorObject.Cut), then, like a success past it, replaced by
	// response_too_large; a spawn's result is kept first, the others in op
	// order (see "Limits" in the package documentation). Each refusal adds
	// its own small error object (a few hundred bytes at most), the one
	// excess the cap allows.
	MaxResponseBytes int
	// HelpBudget caps the text of one help answer, in bytes
	// ([DefaultHelpBudget], 8 KiB, when zero; negative: no budget, the
	// whole catalog in one answer however large). Past it, the catalog
	// answers by namespace and a long listing in pages, every one within
	// the budget, and each says how to reach the rest; a search answers
	// fewer lines; a verb's own schema larger than the budget is sent
	// whole, and its help says so.
	HelpBudget int
	// SearchResults is how many verbs a search returns at most
	// ([DefaultSearchResults] when zero).
	SearchResults int
	// MaxInFlight caps how many commands run at once through the surface,
	// across every request, session and JSON-RPC batch
	// ([DefaultMaxInFlight] when zero; negative: no cap). A command holds
	// a slot while it runs, whether an op renders it or a handler runs it
	// through Call.Runner; the rest wait in arrival order. An observe op
	// stops waiting when its request is cancelled (cancelled: it did not
	// run).
	MaxInFlight int
	// SpawnsPerMinute caps the spawn ops one client may start
	// ([DefaultSpawnsPerMinute] when zero; negative: no cap): each client
	// has a bucket of that many, refilled continuously over a minute. A
	// spawn op takes a token once it has passed validation, the policy and
	// the fingerprint check (a refusal before that costs nothing); one over
	// the rate is rate_limited with retry_after, and nothing is started.
	// Ops of a verb marked [Verb].Spawns draw on the same bucket.
	SpawnsPerMinute int
	// ClientKey names the client a request comes from, for
	// SpawnsPerMinute (the bearer token of an HTTP request, say). nil:
	// every request shares one bucket, which is right for a stdio server,
	// whose one client is the process that started it.
	ClientKey func(ctx context.Context) string
	// SubjectSpawnsPerMinute caps the spawn ops each verified subject
	// ([ClientInfo].Subject, from an OAuth token) may start a minute, in a
	// bucket of its own beside its ClientKey's (zero or negative: none).
	// A spawn op of such a caller takes a token from both buckets or from
	// neither, so one subject spending its own does not stop another,
	// and SpawnsPerMinute still holds for what ClientKey groups
	// (everyone, when ClientKey is nil). A caller without a subject
	// (stdio, the static token) draws on its ClientKey's bucket only.
	SubjectSpawnsPerMinute int
	// ClassScopes are the scopes a caller's token must grant to run a
	// verb of each class (control and spawn needing "verbsurface:write",
	// say). An op whose caller lacks one is refused insufficient_scope,
	// naming the scopes, before its arguments are read; nothing runs. It
	// judges callers with a verified identity ([ClientInfo].Subject) only:
	// one without (stdio, the static token) is the operator's own. See
	// [Surface.OpScopes] for the HTTP face's answer.
	ClassScopes map[Class][]string
	// Identity passes the caller's verified identity to the commands the
	// surface renders, as the operator declares (nil: never). See
	// [RunIdentity].
	Identity *RunIdentity
	// Read, when set, reads commands the source listed but has not read
	// yet ([projector.Command].Unread): a source that reads a large
	// program on demand lists every command at start (its path and
	// summary) and reads a command's parameters when a request needs
	// them. The surface calls Read at the start of every request
	// ([Surface.Handle], [Surface.Confirmations]) before it asks Source
	// for the request's tree, with the command paths ([Verb].Path) of the
	// verbs the request will project fully: each op's verb (its name or
	// v1 synonym resolved; a name that resolves to no verb adds nothing),
	// the commands a [StoredCommand] op may store, and the verb a help
	// names ({"help": "VERB"}; the catalog, a listing and a search need
	// none). Paths come in registration order without duplicates; a
	// request that needs none does not call Read. The root command's path
	// is empty.
	//
	// Read returns once those commands are read: the tree Source returns
	// next holds them without Unread. Read should be cheap for a command
	// already read, as it is called on every such request. Its error is
	// kept for the request: each verb whose command is still Unread is
	// unavailable_verb saying its parameters could not be read, and why.
	// Without Read, a verb whose command is Unread stays pending: listed
	// in the catalog as "VERB(…)", never run. A policy parsed against
	// [Surface.PolicyVerbs] decides a verb read since as it would have
	// once read (package policy judges an Unread verb's arguments so), but
	// only a parse after the read checks the rules' parameters against
	// the verb's: a front parses it again once its verbs are read.
	Read func(ctx context.Context, paths [][]string) error
}

// DefaultTitle is the tool's title when Options.Title is empty.
const DefaultTitle = "CLI request"

// Surface answers the one tool's requests against a [Registry]. It is safe
// for concurrent use.
type Surface struct {
	reg   *Registry
	opts  Options
	cache projectionCache
	roots []string // Options.Roots, real and sorted
	// private are Options.Private, real: carved out of the roots.
	private []string
	spawns  *spawnLimiter // nil: no rate limit
	// subjectSpawns are the per-subject buckets; nil without
	// Options.SubjectSpawnsPerMinute.
	subjectSpawns *spawnLimiter
	slots         *fifoSlots // Options.MaxInFlight's; nil: no cap
	// confirmKey signs the requestState of a confirmation (HMAC-SHA256):
	// random per surface, so a state is good only where it was issued.
	confirmKey [32]byte
	// search is the ranking index {"help": {"search": ...}} reads.
	search searchIndex
}

// New returns a surface over reg. It fails when Source is missing, when a
// registered verb without Handler has no Runner to run it, or when MaxOps
// is negative.
func New(reg *Registry, options *Options) (*Surface, error) {
	var opts Options // a copy: New fills in defaults
	if options != nil {
		opts = *options
	}
	if reg == nil {
		return nil, errors.New("verbsurface: New: nil registry")
	}
	if opts.Source == nil {
		return nil, errors.New("verbsurface: New: Options.Source is required (the CLI's parser tree)")
	}
	if opts.MaxOps < 0 {
		return nil, fmt.Errorf("verbsurface: New: Options.MaxOps %d is negative", opts.MaxOps)
	}
	if opts.MaxOps == 0 {
		opts.MaxOps = DefaultMaxOps
	}
	if err := opts.Machine.check(); err != nil {
		return nil, err
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	roots, err := resolveRoots(opts.Roots)
	if err != nil {
		return nil, err
	}
	private, err := privateDirs(roots, opts.Private)
	if err != nil {
		return nil, err
	}
	if opts.Runner == nil {
		for _, v := range reg.snapshot() {
			if v.Handler == nil && v.Runner == nil {
				return nil, fmt.Errorf("verbsurface: New: verb %q runs its command but neither Verb.Runner nor Options.Runner is set", v.Name)
			}
		}
	}
	if opts.MaxResponseBytes == 0 {
		opts.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if opts.HelpBudget > 0 && opts.HelpBudget < minHelpBudget {
		return nil, fmt.Errorf("verbsurface: New: Options.HelpBudget %d is below the smallest useful budget, %d bytes", opts.HelpBudget, minHelpBudget)
	}
	if opts.MaxInFlight == 0 {
		opts.MaxInFlight = DefaultMaxInFlight()
	}
	var slots *fifoSlots
	if opts.MaxInFlight > 0 {
		slots = newFIFOSlots(opts.MaxInFlight)
		if opts.Runner != nil {
			opts.Runner = &limitedExec{inner: opts.Runner, slots: slots}
		}
	}
	if opts.SpawnsPerMinute == 0 {
		opts.SpawnsPerMinute = DefaultSpawnsPerMinute
	}
	if opts.ConfirmWithin < 0 {
		return nil, fmt.Errorf("verbsurface: New: Options.ConfirmWithin %v is negative", opts.ConfirmWithin)
	}
	if opts.ConfirmWithin == 0 {
		opts.ConfirmWithin = DefaultConfirmWithin
	}
	s := &Surface{reg: reg, opts: opts, roots: roots, private: private, slots: slots}
	if _, err := rand.Read(s.confirmKey[:]); err != nil {
		return nil, fmt.Errorf("verbsurface: New: a confirmation key: %w", err)
	}
	if opts.SpawnsPerMinute > 0 {
		s.spawns = &spawnLimiter{perMinute: opts.SpawnsPerMinute, now: opts.Now, buckets: map[string]*bucket{}}
	}
	if opts.SubjectSpawnsPerMinute > 0 {
		s.subjectSpawns = &spawnLimiter{perMinute: opts.SubjectSpawnsPerMinute, now: opts.Now, buckets: map[string]*bucket{}}
	}
	if err := opts.Identity.check(); err != nil {
		return nil, err
	}
	return s, nil
}

// Handle answers one request: arguments is the tool call's raw arguments
// (the envelope). progress may be nil. Handle never fails: every problem,
// including a malformed envelope, is in the response. Ops run in order and
// one failing does not stop the rest. Once ctx is cancelled, ops not yet
// started do not start (each reports cancelled); an observe op in flight
// stops; a spawn or control op in flight completes (it runs without ctx's
// cancellation, bounded by the runner's own timeout).
func (s *Surface) Handle(ctx context.Context, arguments json.RawMessage, progress ProgressFunc) *Response {
	if progress == nil {
		progress = noProgress
	}
	env, problems := parseEnvelope(arguments, s.opts.MaxOps)
	if env != nil && env.tooMany > 0 {
		return &Response{Status: StatusError, Error: &ErrorObject{Code: CodeBatchTooLarge, Limit: s.opts.MaxOps,
			Message: fmt.Sprintf("%d ops given; a request holds at most %d: split them across requests", env.tooMany, s.opts.MaxOps)}}
	}
	if len(problems) > 0 {
		return &Response{Status: StatusError, Error: &ErrorObject{Code: CodeMalformedEnvelope,
			Message: "the request is not a valid envelope: " + problems[0].Reason +
				plural(len(problems), "; see problems for the rest", "") + "; the schema shows its shape",
			Problems: problems, Schema: envelopeSchema(s.opts.MaxOps)}}
	}
	rs := &requestState{}
	s.readForRequest(ctx, rs, env)
	resp := &Response{}
	ctx = withRequestWait(ctx) // the total wait of the request's job.wait ops (WaitHandlerOptions.MaxRequestWait)
	var succeeded, failed int
	if env.hasOps {
		resp.Results = make([]*OpResult, 0, len(env.ops))
		budget := s.newResponseBudget()
		for i, op := range env.ops {
			r := s.runOp(ctx, rs, i, op, progress)
			portable(r)
			budget.add(r)
			resp.Results = append(resp.Results, r)
		}
		budget.finish(resp.Results)
		for _, r := range resp.Results {
			if r.OK {
				succeeded++
			} else {
				failed++
			}
		}
	}
	if env.help != nil {
		h, ok := s.help(ctx, rs, env.help)
		if ok {
			succeeded++
		} else {
			failed++
		}
		resp.Help = h
	}
	resp.Status = statusOf(succeeded, failed)
	return resp
}

// statusOf is a request's status from how many of its parts (each op, and
// the help when asked) succeeded and failed: success when none failed,
// error when none succeeded, partial otherwise. A request where nothing
// worked must not read as a half-success to a client that keys on status.
func statusOf(succeeded, failed int) string {
	switch {
	case failed == 0:
		return StatusSuccess
	case succeeded == 0:
		return StatusError
	}
	return StatusPartial
}

// responseOverhead is what a response holds besides its results:
// {"status":"partial","results":[…]} and the commas between them.
const responseOverhead = 64

// A successful result is measured without encoding it (encodedSize):
// execute leaves its data exactly as the response will carry it (compact,
// HTML-escaped, see encodedData), so its size is its length plus the few
// fields around it. Marshalling each result for the count and again for
// the response cost as much as the rest of an op's handling (18.7 us
// against 9.1 us for a job.status result). A failure is measured by
// encoding it; bound.go holds the rules of the cap.

// encodedSize is len(json.Marshal(r)), worked out without encoding the
// result of a successful op. It is called only on what runOp returned, and
// a successful op's Result comes from execute, always in its encoded form
// (encodedData).
func encodedSize(r *OpResult) (int, error) {
	if !r.OK {
		b, err := json.Marshal(r)
		return len(b), err
	}
	// {"ok":true,"op":OP,"class":CLASS,"result":RESULT[,"playbook_fingerprint":FP][,"playbook_changed":{...}][,INFO...]}
	result := len(r.Result)
	if result == 0 {
		result = len("null")
	}
	if r.PlaybookFingerprint != "" || r.PlaybookChanged != nil || len(r.Info) > 0 || r.DryRun {
		// The rare extras: encode everything but the result.
		rest := *r
		rest.Result = json.RawMessage("0")
		b, err := json.Marshal(&rest)
		return len(b) - 1 + result, err
	}
	n := len(`{"ok":true,"op":,"class":,"result":}`) + result
	for _, v := range []string{r.Op, string(r.Class)} {
		q, err := json.Marshal(v)
		if err != nil {
			return 0, err
		}
		n += len(q)
	}
	return n, nil
}

// encodedData returns data as a response carries it: compact JSON with
// <, >, & and U+2028/U+2029 escaped, which is what encoding/json makes of
// a json.RawMessage. Encoding it again gives the same bytes, so the
// response cap counts it by its length. It fails when data is not JSON.
func encodedData(data json.RawMessage) (json.RawMessage, error) {
	return json.Marshal(data)
}

func plural(n int, many, one string) string {
	if n > 1 {
		return many
	}
	return one
}

// resolved is a name looked up as a caller gave it.
type resolved struct {
	verb *Verb
	err  *ErrorObject
}

// resolve maps a name given in an op or help to a verb: exactly a
// registered verb; exactly a v1 synonym (until the sunset); a fenced
// command however spelled (not_allowed); otherwise unknown_verb with the
// closest registered names.
func (s *Surface) resolve(name string) resolved {
	if v := s.reg.lookup(name); v != nil {
		return resolved{verb: v}
	}
	if v := s.reg.synonym(name); v != nil {
		if s.synonymsRetired() {
			return resolved{err: &ErrorObject{Code: CodeRetiredSynonym, Use: v.Name,
				Message: fmt.Sprintf("%q was retired on %s: use %q (its schema: {\"help\": %q})",
					name, s.opts.SynonymSunset.UTC().Format(time.RFC3339), v.Name, v.Name)}}
		}
		return resolved{verb: v}
	}
	if p, ok := s.reg.fence.matchName(name); ok {
		return resolved{err: &ErrorObject{Code: CodeNotAllowed, Message: fencedMessage(name, p)}}
	}
	matches := s.pathMatches(name)
	for _, m := range closeMatches(name, s.reg.Verbs()) {
		if !slices.Contains(matches, m) && len(matches) < maxMatches {
			matches = append(matches, m)
		}
	}
	msg := fmt.Sprintf("%s is not a verb of this surface", short(name))
	if len(matches) > 0 {
		msg += "; did you mean " + quoteList(matches) + "?"
	} else {
		msg += `; {"help": true} lists the verbs`
	}
	return resolved{err: &ErrorObject{Code: CodeUnknownVerb, Message: msg, Matches: matches}}
}

// synonymsRetired reports whether the v1 synonyms are past their sunset.
func (s *Surface) synonymsRetired() bool {
	return !s.opts.SynonymSunset.IsZero() && !s.opts.Now().Before(s.opts.SynonymSunset)
}

// unofferedError is the error for a verb whose projection is not ok.
func (s *Surface) unofferedError(v *Verb, p *projection) *ErrorObject {
	switch {
	case p.fenced != "":
		return &ErrorObject{Code: CodeNotAllowed, Message: fencedMessage(v.Name, p.fenced)}
	case p.internal != nil:
		return &ErrorObject{Code: CodeInternalError, Message: p.internal.Error()}
	}
	msg := fmt.Sprintf("%s cannot be offered: %s", v.Name, p.unavailable.Reason)
	eo := &ErrorObject{Code: CodeUnavailableVerb, Param: p.unavailable.Param, Message: msg}
	if p.unread != nil {
		eo.HelpCall = helpCall(v, p) // asking again reads it (Options.Read)
	}
	return eo
}

// helpCall is the exact request that fetches what p describes.
func helpCall(v *Verb, p *projection) any {
	if v.Dynamic != nil && p != nil && p.dynValue != "" {
		return map[string]any{"help": map[string]string{"verb": v.Name, v.Dynamic.Param: p.dynValue}}
	}
	return map[string]any{"help": v.Name}
}

// argsError builds an error about an op's arguments or fingerprint: it
// always carries the schema, the current fingerprint and the help call,
// so the caller can repair the op without another discovery round trip.
func argsError(v *Verb, p *projection, op *envelopeOp, code string, problems []Problem) *ErrorObject {
	fp := p.fingerprintOrEmpty()
	eo := &ErrorObject{Code: code, Problems: boundProblems(problems, maxListedProblems), Schema: p.schema(), SchemaFingerprint: fp, HelpCall: helpCall(v, p)}
	boundSchema(eo)
	switch code {
	case CodeInvalidArgs:
		eo.Message = fmt.Sprintf("%d problem%s with the args of %s: %s", len(problems), plural(len(problems), "s", ""), v.Name, problems[0].Reason)
		if len(problems) > 1 {
			eo.Message += "; fix every problem listed and resend"
		} else {
			eo.Message += "; fix it and resend"
		}
		if v.needsFingerprint() && op != nil && op.Fingerprint != fp {
			eo.Message += fmt.Sprintf(" with \"fingerprint\": %q", fp)
		}
	case CodeMissingFingerprint:
		why := "starts work"
		if v.Class != ClassSpawn {
			why = "requires agreement on its schema"
		}
		eo.Message = fmt.Sprintf("%s %s, so the op must carry \"fingerprint\" (the schema_fingerprint from help): resend with \"fingerprint\": %q after checking the args against the schema", v.Name, why, fp)
	case CodeStaleFingerprint:
		// The server cannot tell why: the schema may have changed since it
		// was read, or been read from another server or environment (a
		// description listing what is on the server's PATH differs).
		eo.Message = fmt.Sprintf("the fingerprint %s does not match the schema of %s this server has (%s): the schema it was computed from differs from this one; check the args against the schema given here and resend with the new fingerprint", short(op.Fingerprint), v.Name, fp)
	}
	return eo
}

// gated is an op past the gates before the policy: resolved, projected,
// its dynamic value injected, its args validated.
type gated struct {
	verb       *Verb
	proj       *projection
	args       map[string]any // validated, as the caller sent them
	normalized map[string]any // what runs
	playbookFP string
	err        *ErrorObject
}

// gate takes an op through the gates that only read: resolve the name;
// project the verb (unavailable, fenced); resolve the dynamic parameter;
// validate args; read a stored command line ([StoredCommand]). Both a run ([Surface.runOp]) and [Surface.Confirmations]
// pass through it, so what is asked about is what would run.
func (s *Surface) gate(ctx context.Context, rs *requestState, op envelopeOp) gated {
	r := s.resolve(op.Op)
	if r.err != nil {
		return gated{err: r.err}
	}
	v := r.verb
	g := gated{verb: v}
	if ctx.Err() != nil {
		g.err = &ErrorObject{Code: CodeCancelled, Message: "the request was cancelled before this op started; it did not run"}
		return g
	}
	p := s.project(ctx, rs, v)
	if !p.ok() {
		g.err = s.unofferedError(v, p)
		return g
	}
	args := op.Args
	if args == nil {
		args = map[string]any{}
	}
	if v.Dynamic != nil {
		if value, ok := args[v.Dynamic.Param].(string); ok {
			dp, eo := s.injectDynamic(ctx, rs, v, p, value)
			if eo != nil {
				g.err = eo
				return g
			}
			p = dp
			g.playbookFP = dp.playbookFP
		}
	}
	g.proj = p
	val, err := p.validator()
	if err != nil {
		g.err = &ErrorObject{Code: CodeInternalError, Message: err.Error()}
		return g
	}
	if problems := val.Validate(args); len(problems) > 0 {
		g.err = argsError(v, p, &op, CodeInvalidArgs, problems)
		return g
	}
	g.args = args
	// What runs is this copy, taken before the policy sees the args: a
	// policy that wrongly writes to op.Args cannot slip an unvalidated
	// value past validation.
	g.normalized = val.normalizeArgs(args)
	if prob := s.guardStored(ctx, rs, v, g.normalized); prob != nil {
		g.err = argsError(v, p, &op, CodeInvalidArgs, []Problem{*prob})
	}
	return g
}

// policyError runs the read-only check and Options.Policy.
func (s *Surface) policyError(ctx context.Context, v *Verb, args map[string]any) *ErrorObject {
	if s.opts.ReadOnly {
		if err := ReadOnly(ctx, PolicyOp{Verb: v.Name, Class: v.Class, Args: args}); err != nil {
			return &ErrorObject{Code: CodePolicyRefused,
				Message: fmt.Sprintf("the surface's policy refused %s: %v", v.Name, err)}
		}
	}
	if s.opts.Policy != nil {
		if err := s.opts.Policy(ctx, PolicyOp{Verb: v.Name, Class: v.Class, Args: args}); err != nil {
			return &ErrorObject{Code: CodePolicyRefused,
				Message: fmt.Sprintf("the surface's policy refused %s: %v", v.Name, err)}
		}
	}
	return nil
}

// runOp runs op (the index-th of its request) through every gate and
// reports it to Options.OnOp when set.
func (s *Surface) runOp(ctx context.Context, rs *requestState, index int, op envelopeOp, progress ProgressFunc) *OpResult {
	if s.opts.OnOp == nil {
		return s.runGates(ctx, rs, index, op, progress, &OpRecord{})
	}
	start := time.Now()
	rec := &OpRecord{Index: index}
	res := s.runGates(ctx, rs, index, op, progress, rec)
	rec.Verb, rec.Class, rec.Duration = res.Op, res.Class, time.Since(start)
	if rec.Args != nil {
		rec.ArgsDigest = ArgsDigest(rec.Args)
	}
	if res.OK {
		rec.Code, rec.Result = "ok", res.Result
	} else if res.Error != nil {
		rec.Code = res.Error.Code
	}
	s.opts.OnOp(ctx, rec)
	return res
}

// runGates runs one op through every gate, in this order: resolve the
// name; project the verb (unavailable, fenced); resolve the dynamic
// parameter; validate args; guard a stored command; confine path
// arguments to the roots; ask the policy (Options.ReadOnly,
// Options.Policy, then Options.Decide) with the real paths in place of the
// caller's; check the fingerprint (spawn only); take a spawn token;
// prepare; execute (handler or rendered command). rec learns the args (as
// the policy saw them) and the decision.
func (s *Surface) runGates(ctx context.Context, rs *requestState, index int, op envelopeOp, progress ProgressFunc, rec *OpRecord) *OpResult {
	res := &OpResult{Op: op.Op, Class: classNone, DryRun: op.DryRun}
	rec.DryRun = op.DryRun
	fail := func(eo *ErrorObject) *OpResult {
		res.OK, res.Error = false, eo
		return res
	}
	g := s.gate(ctx, rs, op)
	if g.verb != nil {
		res.Op, res.Class = g.verb.Name, g.verb.Class
		// Before anything about the op's arguments: a caller who may not
		// run the verb learns only which scope it lacks.
		if eo := s.scopeError(ctx, g.verb); eo != nil {
			return fail(eo)
		}
	}
	res.PlaybookFingerprint = g.playbookFP
	if g.err != nil {
		return fail(g.err)
	}
	v, p := g.verb, g.proj
	rec.Args = g.args
	// Caller-named files: opened inside a root and checked before the
	// policy sees the op, so that every condition on a path is judged on
	// the real path that runs, not on the caller's spelling of it ("/./",
	// "/../", a symlink); what runs gets the real paths too, and a
	// preparer reads the opened file (OpenConfined).
	c, problems := s.confineOp(v, p, g)
	if len(problems) > 0 {
		return fail(argsError(v, p, &op, CodeInvalidArgs, problems))
	}
	defer closeConfined(c.files)
	args := c.policy
	rec.Args = args
	if eo := s.policyError(ctx, v, args); eo != nil {
		return fail(eo)
	}
	var plan DryRun
	if s.opts.Decide != nil {
		decide := s.decide
		if op.DryRun {
			decide = func(ctx context.Context, index int, v *Verb, args map[string]any, rec *OpRecord) *ErrorObject {
				return s.dryDecide(ctx, index, v, args, rec, &plan)
			}
		}
		if eo := decide(ctx, index, v, args, rec); eo != nil {
			return fail(eo)
		}
	}
	if v.needsFingerprint() {
		fp, err := p.fingerprint()
		if err != nil {
			return fail(&ErrorObject{Code: CodeInternalError, Message: err.Error()})
		}
		switch op.Fingerprint {
		case fp:
		case "":
			return fail(argsError(v, p, &op, CodeMissingFingerprint, nil))
		default:
			return fail(argsError(v, p, &op, CodeStaleFingerprint, nil))
		}
	}
	// Every route that starts runs counts: a spawn op, and an op of a verb
	// marked Spawns (one token here without a handler; a handler takes
	// one per run it starts through Call.Spawns).
	spawnKey := ""
	if s.opts.ClientKey != nil && (v.Class == ClassSpawn || v.Spawns) {
		spawnKey = s.opts.ClientKey(ctx)
	}
	buckets := s.spawnBucketsOf(ctx, spawnKey)
	if (v.Class == ClassSpawn || v.Spawns) && buckets.limited() && op.DryRun {
		// Counted, not taken: the answer a real op would get now (a
		// handler that spawns takes its tokens as it starts runs, and
		// defers what it cannot start rather than failing).
		tokens, retry, limit, subject := buckets.peek()
		if tokens < 1 && (v.Class == ClassSpawn || v.Handler == nil) {
			return fail(rateLimitedBy(v, limit, retry, subject))
		}
		plan.SpawnTokens = &tokens
	} else if (v.Class == ClassSpawn || v.Spawns && v.Handler == nil) && buckets.limited() {
		if took, retry, limit, subject := buckets.takeUpTo(1); took < 1 {
			return fail(rateLimitedBy(v, limit, retry, subject))
		}
	}
	var spawnTokens *SpawnTokens
	if v.Spawns && v.Class != ClassSpawn && v.Handler != nil {
		spawnTokens = &SpawnTokens{buckets: buckets, verb: v.Name}
	}
	if v.Dynamic != nil && op.PlaybookFingerprint != "" && op.PlaybookFingerprint != p.playbookFP {
		res.PlaybookChanged = &PlaybookChange{Discovered: op.PlaybookFingerprint, Executed: p.playbookFP}
	}
	// The caller's identity, where the operator passes it to the run:
	// checked for a dry run too, exchanged only for a real one.
	ident, eo := s.identityFor(ctx, v, !op.DryRun)
	if eo != nil {
		return fail(eo)
	}
	args = c.run
	if op.DryRun {
		data, eo := s.dryRunResult(v, p, args, &plan)
		if eo != nil {
			return fail(eo)
		}
		res.OK, res.Result = true, data
		return res
	}

	// Contract C6: only an observation may be cut short by the caller.
	// Spawn and control ops run detached from the request's cancellation
	// (bounded by the runner's own timeout), so a client cancel can never
	// half-submit or half-kill.
	if v.Class != ClassObserve {
		ctx = context.WithoutCancel(ctx)
	}
	if len(c.files) > 0 {
		ctx = context.WithValue(ctx, confinedKey{}, c.files)
	}
	if v.Prepare != nil {
		prepared, info, cleanup, err := v.Prepare(ctx, args)
		if cleanup != nil {
			defer cleanup()
		}
		if err != nil {
			param := ""
			var pe paramError
			if errors.As(err, &pe) {
				param = pe.Param()
			}
			return fail(argsError(v, p, &op, CodeInvalidArgs, []Problem{{Param: param, Rule: RulePrepare, Reason: err.Error()}}))
		}
		// Checked before anything runs: info that cannot be encoded would
		// otherwise fail the whole response after the command had run.
		if _, err := json.Marshal(info); err != nil {
			return fail(&ErrorObject{Code: CodeInternalError,
				Message: fmt.Sprintf("verbsurface: verb %q: the preparer's info cannot be encoded as JSON: %v; nothing ran", v.Name, err)})
		}
		res.Info = info
		if prepared != nil {
			args = prepared
		}
	}
	ctx = withIdentity(ctx, ident)
	data, eo := s.execute(ctx, v, p, args, ident, progress, spawnTokens)
	if eo != nil {
		if eo.Code == CodeInvalidArgs {
			// A handler, or the CLI itself, refused an argument the
			// schema could not rule out: it teaches like every other
			// argument error.
			return fail(argsError(v, p, &op, CodeInvalidArgs, eo.Problems))
		}
		return fail(eo)
	}
	res.OK, res.Result = true, data
	return res
}

// runnerOf is the runner v's commands run through: Verb.Runner under the
// surface's in-flight slots, else Options.Runner (nil when neither).
func (s *Surface) runnerOf(v *Verb) Runner {
	if v.Runner == nil {
		return s.opts.Runner
	}
	if s.slots == nil {
		return v.Runner
	}
	return &limitedExec{inner: v.Runner, slots: s.slots}
}

// execute runs the verb's handler or its rendered command: the machine
// arguments where they go (v.Machine, else Options.Machine), the command
// path, the verb's fixed arguments, the caller's identity arguments
// (Options.Identity), then the caller's rendered arguments.
func (s *Surface) execute(ctx context.Context, v *Verb, p *projection, args map[string]any, ident *identityRun, progress ProgressFunc, spawns *SpawnTokens) (json.RawMessage, *ErrorObject) {
	runner := s.runnerOf(v)
	if v.Handler != nil {
		out, err := v.Handler(ctx, &Call{Verb: v.Name, Class: v.Class, Args: args, Runner: runner, Progress: progress, Spawns: spawns})
		if err != nil {
			var pe paramError
			if errors.As(err, &pe) {
				return nil, &ErrorObject{Code: CodeInvalidArgs, Problems: []Problem{{Param: pe.Param(), Rule: RuleHandler, Reason: err.Error()}}}
			}
			var rl *rateLimitError
			if errors.As(err, &rl) {
				return nil, rateLimitedBy(v, rl.limit, rl.retry, rl.subject)
			}
			return nil, executionError(err, true)
		}
		data, err := json.Marshal(out) // compact and escaped: its encoded form
		if err != nil {
			return nil, &ErrorObject{Code: CodeInternalError,
				Message: fmt.Sprintf("verbsurface: verb %q: encoding the handler's result: %v", v.Name, err)}
		}
		return data, nil
	}
	if runner == nil {
		return nil, &ErrorObject{Code: CodeInternalError,
			Message: fmt.Sprintf("verbsurface: verb %q runs its command but has no runner (Verb.Runner, Options.Runner)", v.Name)}
	}
	var tail []string
	var err error
	if p.fixed != nil {
		tail, err = p.fixed.RenderArgv(p.dialect, args)
	} else {
		tail, err = projector.RenderArgv(p.dialect, p.cmd, args)
	}
	if err != nil {
		// Validation accepted these args, so the schema promised they
		// render (contract C1); this is a projector bug, not the caller's.
		return nil, &ErrorObject{Code: CodeInternalError,
			Message: fmt.Sprintf("verbsurface: verb %q: args validated but did not render: %v", v.Name, err)}
	}
	m := s.opts.Machine
	if v.Machine != nil {
		m = *v.Machine
	}
	argv := make([]string, 0, len(p.cmd.Path)+len(m.Args)+len(v.Args)+len(tail))
	if m.At == MachineAtRoot {
		argv = append(argv, m.Args...)
	}
	argv = append(argv, p.cmd.Path...)
	if m.At != MachineAtRoot {
		argv = append(argv, m.Args...)
	}
	argv = append(argv, v.Args...)
	if ident != nil {
		argv = append(argv, ident.args...)
	}
	argv = append(argv, tail...)
	data, err := runner.Run(ctx, argv)
	if err != nil {
		if pr := cliArgumentProblem(err, p.cmd); pr != nil {
			return nil, &ErrorObject{Code: CodeInvalidArgs, Problems: []Problem{*pr}}
		}
		return nil, executionError(err, false)
	}
	if len(data) == 0 {
		data = json.RawMessage("null")
	}
	enc, err := encodedData(data)
	if err != nil {
		// dispatch.Runner never returns this, but another Runner might;
		// caught here it fails this op alone rather than the encoding of
		// the whole response, which would hide the other ops' results.
		return nil, &ErrorObject{Code: CodeInvalidResult,
			Message: fmt.Sprintf("verbsurface: verb %q: the runner returned data that is not JSON (%s)", v.Name, short(string(data)))}
	}
	return enc, nil
}

// Tool name and default description of the one tool.
const (
	ToolName           = "request"
	defaultDescription = `Run this CLI's verbs. {"help":true} lists verbs; {"help":{"search":WORDS}} finds them; {"help":"VERB"}: its schema and fingerprint. ` +
		`{"ops":[{"op":VERB,"args":{...},"fingerprint":FP}]} runs ops in order ("dry_run":true: only judged); spawn verbs need the fingerprint. ` +
		`Errors say how to fix.`
)

func (s *Surface) description() string {
	if s.opts.Description != "" {
		return s.opts.Description
	}
	return defaultDescription
}

// EnvelopeSchema returns the JSON Schema of the request envelope (the
// tool's input schema) as compact JSON.
func (s *Surface) EnvelopeSchema() json.RawMessage {
	return json.RawMessage(envelopeSchemaJSON(s.opts.MaxOps))
}

// Unoffered is a registered verb the surface cannot offer, as [Surface.Check]
// reports it.
type Unoffered struct {
	Verb   string `json:"verb"`
	Code   string `json:"code"`            // unavailable_verb, not_allowed or internal_error
	Param  string `json:"param,omitempty"` // the parameter at fault, when one is
	Reason string `json:"reason"`
}

// Check projects every registered verb now and returns those that cannot
// be offered, and why: the parser could not be read, the command path does
// not exist, the command has no machine-result seam or an unrepresentable
// parameter, or it resolves to a fenced command. An empty result means
// every verb would be offered. A server should call it at start and refuse
// to start on any problem (a configuration mistake otherwise surfaces only
// to the agent, as a catalog whose status is success) unless its operator
// said to tolerate unavailable verbs.
//
// Check leaves every verb's projection cached, so the first catalog after
// it costs no projection. It settles what can be offered without building
// a schema (projector.Representable): a verb's validator is compiled from
// its schema by the verb's first op, its fingerprint by its first help or
// spawn op, so a 5,000-verb server starts without 5,000 schemas. A large
// registry is checked on every CPU at once (verbs are independent and
// projection is pure).
func (s *Surface) Check(ctx context.Context) []Unoffered {
	rs := &requestState{}
	verbs := s.reg.snapshot()
	projs := make([]*projection, len(verbs))
	workers := min(runtime.GOMAXPROCS(0), len(verbs)/checkChunk)
	if workers < 2 {
		for i, v := range verbs {
			projs[i] = s.project(ctx, rs, v)
		}
	} else {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for {
					i := int(next.Add(1)) - 1
					if i >= len(verbs) {
						return
					}
					projs[i] = s.project(ctx, rs, verbs[i])
				}
			})
		}
		wg.Wait()
	}
	var out []Unoffered
	for i, v := range verbs {
		if p := projs[i]; !p.ok() && p.unread == nil { // a pending verb is neither offered nor unavailable yet
			eo := s.unofferedError(v, p)
			out = append(out, Unoffered{Verb: v.Name, Code: eo.Code, Param: eo.Param, Reason: eo.Message})
		}
	}
	return out
}

// checkChunk is how many verbs make it worth another goroutine in Check:
// below twice that, one goroutine projects them all (limcp's two dozen
// verbs take well under a millisecond).
const checkChunk = 64

// pathMatches returns the verbs whose command the caller named as the CLI
// spells it: its path ("note list", "note.list"), its last element alone
// ("list" for note.list) or an alias of it that the last projection of the
// verb recorded. A caller who knows the CLI types its words, not the verb
// names.
func (s *Surface) pathMatches(name string) []string {
	q := foldTokens(name)
	if len(q) == 0 {
		return nil
	}
	var out []string
	for _, v := range s.reg.snapshot() {
		if len(v.Path) == 0 {
			continue // a root verb: the caller names it by the verb's name
		}
		last := []string{v.Path[len(v.Path)-1]}
		if p := s.cache.lastProjection(v.Name); p != nil && p.cmd != nil {
			last = append(last, p.cmd.Aliases...)
		}
		hit := false
		for _, l := range last {
			full := append(slices.Clone(v.Path[:len(v.Path)-1]), l)
			if slices.Equal(q, foldTokens(strings.Join(full, " "))) || slices.Equal(q, foldTokens(l)) {
				hit = true
			}
		}
		if hit && len(out) < maxMatches {
			out = append(out, v.Name)
		}
	}
	return out
}
