package verbsurface

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/verbsurface/verbsurface/projector"
)

// projection is a verb's live argument surface: the command as the CLI's
// parser declares it, its fingerprint and compiled validator, or the
// reason it cannot be offered. It does not keep the projected schema: the
// schema is a pure function of cmd (schema re-projects it), needed only
// by a help or an error that shows it, and kept for every verb it was
// most of what a cached verb cost in memory (about 11 KB of the 53 KB a
// verb of a 5,000-command CLI held; the compiled patterns were most of
// the rest, now shared across verbs).
type projection struct {
	cmd *projector.Command // as projected (the machine flag removed)
	// fixed, when the verb fixes values (Verb.Fixed), renders a run:
	// cmd is its Offered command.
	fixed     *projector.Fixed
	dialect   projector.Dialect
	verb      string // the verb the fingerprint is of
	signature string // the catalog's "(model, prompt, +11)"
	// val and fp are the compiled validator and the schema fingerprint,
	// worked out on first use (an op validates, a help or a spawn op
	// fingerprints): a server checking 5,000 verbs at start needs to know
	// only which it can offer. Shared by the copies injectDynamic makes.
	val *lazy[*Validator]
	fp  *lazy[string]

	// Exactly one of these is set when the verb cannot be offered.
	unavailable *unavailableReason
	// unread, with unavailable, marks a pending verb: its command (as
	// listed, without parameters) is not read yet (Options.Read). It is
	// never projected, never cached, and listed as "VERB(…)".
	unread   *projector.Command
	fenced   string // the fenced path the command resolved to
	internal error  // a projector or validator bug: internal_error

	// Dynamic injection only.
	dynValue   string
	playbookFP string
}

type unavailableReason struct {
	Param  string
	Reason string
}

func (p *projection) ok() bool { return p.unavailable == nil && p.fenced == "" && p.internal == nil }

// lazy is a value worked out once, on its first use, by whichever
// goroutine gets there first; the copies injectDynamic makes of a
// projection share it.
type lazy[T any] struct {
	once sync.Once
	v    T
	err  error
}

func (l *lazy[T]) get(work func() (T, error)) (T, error) {
	l.once.Do(func() { l.v, l.err = work() })
	return l.v, l.err
}

// validator is the compiled validator of an offered verb, compiled from
// schema() once. It fails only if the validator cannot read a schema the
// projector wrote, a bug that the op reports as an internal error.
func (p *projection) validator() (*Validator, error) {
	if p.val == nil {
		return nil, p.noSchema("validate against")
	}
	return p.val.get(func() (*Validator, error) {
		s := p.schema()
		if s == nil {
			return nil, p.noSchema("validate against")
		}
		v, err := CompileValidator(s)
		if err != nil {
			return nil, fmt.Errorf("verbsurface: verb %q: %w", p.verb, err)
		}
		return v, nil
	})
}

// fingerprint is the schema fingerprint of an offered verb: the
// fingerprint of schema(), computed once. It fails only if the schema
// cannot be written canonically, which a projected schema always can; a
// caller treats that as an internal error, never as an empty fingerprint
// an op could match by carrying none.
func (p *projection) fingerprint() (string, error) {
	if p.fp == nil {
		return "", p.noSchema("fingerprint")
	}
	return p.fp.get(func() (string, error) {
		s := p.schema()
		if s == nil {
			return "", p.noSchema("fingerprint")
		}
		fp, err := projector.Fingerprint(p.verb, s)
		if err != nil {
			return "", fmt.Errorf("verbsurface: verb %q: fingerprint: %w", p.verb, err)
		}
		return fp, nil
	})
}

// noSchema is the error of asking a projection that offers nothing for
// what only a schema gives.
func (p *projection) noSchema(what string) error {
	return fmt.Errorf("verbsurface: verb %q: no schema to %s", p.verb, what)
}

// fingerprintOrEmpty is fingerprint for a message or an error object,
// where a failure has already been reported another way.
func (p *projection) fingerprintOrEmpty() string {
	fp, _ := p.fingerprint()
	return fp
}

// schema is the projected schema of an offered verb: projected again from
// the command, which gives the very schema the fingerprint and the
// validator were made from (projection is pure). nil when p is not ok.
func (p *projection) schema() *jsonschema.Schema {
	if !p.ok() || p.cmd == nil {
		return nil
	}
	s, err := projector.Project(p.cmd)
	if err != nil {
		return nil // it projected once; a pure function does not fail the second time
	}
	return s
}

// projectionCache holds each verb's last projection, found first by the
// identity of the command it came from and then by a digest of that
// command's content.
//
// The identity is the fast path: a source that returns the same tree (a
// static or executable tree) or a new tree sharing unchanged commands (a
// live source that copies only what changed) hands back the same
// *projector.Command, and a TreeSource may not change a tree it returned,
// so the same command is the same projection: no encoding, no hashing,
// the cost of a map lookup however large the CLI. The digest is the
// content key for everything else (a reloaded tree, an injection walked
// afresh): a SHA-256 of the command's JSON, so a changed command (a
// rebuilt CLI, a new flag) never meets a stale projection, and a verb
// keeps 32 bytes of key rather than its command's whole JSON. It is
// worked out only when a command of another identity arrives for a slot
// that holds a projection (never while a server projects its verbs for
// the first time). Only the latest projection per verb (and per dynamic
// value) is kept.
type projectionCache struct {
	mu      sync.RWMutex
	verbs   map[string]*cacheEntry // verb name -> entry
	dynamic map[string]*cacheEntry // verb name + "\x00" + dynamic value -> entry
}

type cacheEntry struct {
	from  commandID // the command the projection was last found for
	key   contentKey
	keyed bool // key holds proj.cmd's digest
	proj  *projection
}

// commandID is a command by identity, with what else its projection
// reads from the tree: the root command (the machine seam may be the
// root's) and the dialect.
type commandID struct {
	cmd, root *projector.Command
	dialect   projector.Dialect
}

// contentKey digests a command (as projected: the machine flag removed)
// and its dialect.
type contentKey [sha256.Size]byte

func contentKeyOf(dialect projector.Dialect, cmd *projector.Command) (contentKey, error) {
	var key contentKey
	b, err := json.Marshal(cmd)
	if err != nil {
		return key, err
	}
	h := sha256.New()
	h.Write([]byte(dialect))
	h.Write([]byte{0})
	h.Write(b)
	h.Sum(key[:0])
	return key, nil
}

// maxDynamicEntries bounds the dynamic slots: their values are chosen by
// callers, so they must not be able to pin unbounded memory.
const maxDynamicEntries = 256

func (c *projectionCache) slots(slot string) map[string]*cacheEntry {
	if strings.Contains(slot, "\x00") {
		return c.dynamic
	}
	return c.verbs
}

// byIdentity returns the projection last found for exactly id, or nil.
func (c *projectionCache) byIdentity(slot string, id commandID) *projection {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if e := c.slots(slot)[slot]; e != nil && e.from == id {
		return e.proj
	}
	return nil
}

// byContent returns the slot's projection if it was made from a command
// with cmd's content (seamed: as projected) in id's dialect, and notes id
// as its command from now on; else nil. An empty slot costs nothing.
func (c *projectionCache) byContent(slot string, id commandID, cmd *projector.Command) (*projection, error) {
	c.mu.RLock()
	e := c.slots(slot)[slot]
	c.mu.RUnlock()
	if e == nil || e.proj.cmd == nil {
		return nil, nil
	}
	key, err := contentKeyOf(id.dialect, cmd)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.slots(slot)[slot] != e {
		return nil, nil // replaced meanwhile: project afresh
	}
	if !e.keyed {
		if e.key, err = contentKeyOf(e.proj.dialect, e.proj.cmd); err != nil {
			return nil, nil
		}
		e.keyed = true
	}
	if e.key != key {
		return nil, nil
	}
	e.from = id
	return e.proj, nil
}

// lastProjection returns the verb's last cached projection, whatever the
// command it came from (nil if none).
func (c *projectionCache) lastProjection(verb string) *projection {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if e := c.verbs[verb]; e != nil {
		return e.proj
	}
	return nil
}

func (c *projectionCache) put(slot string, id commandID, p *projection) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.verbs == nil {
		c.verbs, c.dynamic = map[string]*cacheEntry{}, map[string]*cacheEntry{}
	}
	if strings.Contains(slot, "\x00") && len(c.dynamic) >= maxDynamicEntries {
		clear(c.dynamic)
	}
	c.slots(slot)[slot] = &cacheEntry{from: id, proj: p}
}

// requestState is per-request memo: the tree is fetched at most once per
// request, so every op of a batch sees the same CLI.
type requestState struct {
	once sync.Once
	tree *projector.Tree
	err  error
	// readErr is Options.Read's error for this request's commands.
	readErr error
}

func (s *Surface) tree(ctx context.Context, rs *requestState) (*projector.Tree, error) {
	rs.once.Do(func() {
		rs.tree, rs.err = s.opts.Source(ctx)
		if rs.err == nil && rs.tree == nil {
			rs.err = errors.New("the tree source returned no tree")
		}
	})
	return rs.tree, rs.err
}

// project returns v's current projection.
func (s *Surface) project(ctx context.Context, rs *requestState, v *Verb) *projection {
	t, err := s.tree(ctx, rs)
	if err != nil {
		return &projection{unavailable: &unavailableReason{Reason: "the CLI's parser could not be read: " + err.Error()}}
	}
	cmd := t.Find(v.Path...)
	if cmd == nil {
		if len(v.Path) == 0 {
			return &projection{unavailable: &unavailableReason{Reason: "the CLI's tree has no root command"}}
		}
		return &projection{unavailable: &unavailableReason{
			Reason: fmt.Sprintf("the CLI has no command %q", strings.Join(v.Path, " "))}}
	}
	return s.projectCommand(rs, v, v.Name, t, cmd, "")
}

// projectCommand projects cmd for v, through the cache. slot names the
// cache slot (the verb, or verb and dynamic value).
func (s *Surface) projectCommand(rs *requestState, v *Verb, slot string, t *projector.Tree, cmd *projector.Command, dynValue string) *projection {
	id := commandID{cmd: cmd, root: t.Find(), dialect: t.Dialect}
	if p := s.cache.byIdentity(slot, id); p != nil {
		return p
	}
	// Defence in depth: a registered path may reach a fenced command
	// through an alias the registry could not know about. (The fence is
	// fixed, so what it says of a command is cached with it.)
	if p, ok := s.reg.fence.matchPath(cmd.Path); ok {
		fenced := &projection{fenced: p}
		s.cache.put(slot, id, fenced)
		return fenced
	}
	// Checked before anything reads the command's parameters: it has
	// none yet, and a verb projected from it would run with none. Not
	// cached: the tree that has it read brings a new command.
	if cmd.Unread {
		return s.pendingProjection(rs, v, cmd)
	}
	if !cmd.Runnable {
		return &projection{unavailable: &unavailableReason{
			Reason: fmt.Sprintf("%q is a group of commands, not a runnable command", strings.Join(cmd.Path, " "))}}
	}
	cmd, fixed, bad := s.verbCommand(v, t, cmd)
	if bad != nil {
		return &projection{unavailable: bad}
	}
	// A verb with fixed values renders a command its offered one does
	// not show all of: only the identity of the tree's command keys it.
	if fixed == nil {
		if p, err := s.cache.byContent(slot, id, cmd); err != nil {
			return &projection{internal: fmt.Errorf("verbsurface: verb %q: encoding command: %w", v.Name, err)}
		} else if p != nil {
			return p
		}
	}
	p := &projection{cmd: cmd, fixed: fixed, dialect: t.Dialect, dynValue: dynValue}
	if err := projector.Representable(cmd); err != nil {
		var ue *projector.UnavailableError
		if errors.As(err, &ue) {
			p.unavailable = &unavailableReason{Param: ue.Param, Reason: ue.Error()}
		} else {
			p.unavailable = &unavailableReason{Reason: err.Error()}
		}
		s.cache.put(slot, id, p)
		return p
	}
	p.verb, p.val, p.fp = v.Name, &lazy[*Validator]{}, &lazy[string]{}
	p.signature = signature(cmd, v.Dynamic)
	s.cache.put(slot, id, p)
	return p
}

// injectDynamic performs v's dynamic injection for value and projects the
// result. A failed injection (no such playbook) is the caller's problem on
// the dynamic parameter; an unrepresentable injected parameter makes the
// verb unavailable for that value.
func (s *Surface) injectDynamic(ctx context.Context, rs *requestState, v *Verb, base *projection, value string) (*projection, *ErrorObject) {
	t, err := s.tree(ctx, rs)
	if err != nil {
		return nil, &ErrorObject{Code: CodeUnavailableVerb, Message: "the CLI's parser could not be read: " + err.Error()}
	}
	cmd, pf, err := v.Dynamic.Inject(value)
	if err != nil {
		var ue *projector.UnavailableError
		if errors.As(err, &ue) {
			return nil, &ErrorObject{Code: CodeUnavailableVerb, Param: ue.Param,
				Message: fmt.Sprintf("%s with %s %s cannot be offered: %s", v.Name, v.Dynamic.Param, short(value), ue.Error())}
		}
		// The CLI's own refusal is shown as the CLI worded it, without
		// the Go packages that carried it: the caller named a value, not
		// the code that resolved it.
		reason := err
		var refused *projector.InjectionRefusedError
		if errors.As(err, &refused) {
			reason = refused.Err
		}
		eo := argsError(v, base, nil, CodeInvalidArgs, []Problem{{Param: v.Dynamic.Param, Rule: RuleInjection,
			Reason: fmt.Sprintf("%s could not be resolved: %v", short(value), reason)}})
		return nil, eo
	}
	if cmd == nil {
		return nil, &ErrorObject{Code: CodeInternalError,
			Message: fmt.Sprintf("verbsurface: verb %q: the injector returned no command for %q", v.Name, value)}
	}
	p := s.projectCommand(rs, v, v.Name+"\x00"+value, t, cmd, value)
	if !p.ok() {
		return nil, s.unofferedError(v, p)
	}
	if p.playbookFP != pf {
		// The cache slot holds the projection; the content fingerprint
		// comes from this injection, so a copy carries it.
		cp := *p
		cp.playbookFP = pf
		p = &cp
	}
	return p, nil
}

// verbCommand is cmd as v offers it (and, when v fixes values, how a run
// renders), or why it cannot, in this order: the stated positionals; the
// verb's own exclusions (each must name a parameter of cmd); the machine
// seam (v.Machine, else Options.Machine), which withdraws the machine
// options; the fixed arguments, which withdraw what they set; the
// constraints; the fixed values (checked against the constraints too),
// which withdraw their parameters; then every
// parameter the verb names must be one the caller can still set (its
// PathParams, its StoredCommand's), so a misspelt name, or one the CLI
// renamed since, makes the verb unavailable instead of leaving a path
// unconfined or a stored command unguarded.
func (s *Surface) verbCommand(v *Verb, t *projector.Tree, cmd *projector.Command) (*projector.Command, *projector.Fixed, *unavailableReason) {
	name := strings.Join(cmd.Path, " ")
	if name == "" {
		name = t.Program
	}
	operator := func(what string, err error) *unavailableReason {
		return &unavailableReason{Reason: fmt.Sprintf("%s on %q: %s", what, name, strings.TrimPrefix(err.Error(), "projector: "))}
	}
	if v.Positionals != nil {
		var err error
		if cmd, err = projector.StatePositionals(cmd, v.Positionals); err != nil {
			return nil, nil, operator("the stated positionals (Verb.Positionals, config positionals)", err)
		}
	}
	if len(v.Exclude) > 0 {
		var unmatched []string
		cmd, unmatched = projector.ExcludeFromCommand(cmd, v.Exclude...)
		if len(unmatched) > 0 {
			return nil, nil, &unavailableReason{Reason: fmt.Sprintf("the verb excludes %s, which %q does not have (Verb.Exclude, config exclude)", quoteList(unmatched), name)}
		}
	}
	m := s.opts.Machine
	if v.Machine != nil {
		m = *v.Machine
	}
	unseamed := cmd
	cmd, bad := m.seam(t, cmd, v.PathParams)
	if bad != nil {
		return nil, nil, bad
	}
	if cmd, bad = fixedArgs(cmd, v.Args); bad != nil {
		return nil, nil, bad
	}
	if len(v.Constraints) > 0 {
		var err error
		if cmd, err = projector.Constrain(cmd, v.Constraints...); err != nil {
			return nil, nil, operator("the constraints (Verb.Constraints, config constraints)", err)
		}
	}
	var fixed *projector.Fixed
	if len(v.Fixed) > 0 {
		var err error
		if fixed, err = projector.FixParams(cmd, v.Fixed); err != nil {
			return nil, nil, operator("the fixed values (Verb.Fixed, config fixed)", err)
		}
		cmd = fixed.Offered
	}
	param := func(n string) *projector.Param {
		for _, p := range cmd.Params {
			if p.Name == n {
				return p
			}
		}
		return nil
	}
	for _, n := range slices.Sorted(maps.Keys(v.PathParams)) {
		// Saying an option is no path is what lets it carry the
		// machine mode, which withdraws it from callers.
		machineNone := v.PathParams[n] == projector.PathUseNone &&
			slices.ContainsFunc(unseamed.Params, func(p *projector.Param) bool { return p.Name == n })
		if param(n) == nil && !machineNone {
			return nil, nil, &unavailableReason{Param: n, Reason: fmt.Sprintf(
				"the verb marks %q as a path (Verb.PathParams, config files), and %q has no such parameter a caller can set", n, name)}
		}
	}
	if sc := v.StoredCommand; sc != nil {
		p := param(sc.Param)
		if p == nil || p.Kind != projector.KindString || !slices.Contains([]projector.Arity{projector.ArityRepeated, projector.ArityZeroOrMore, projector.ArityOneOrMore}, p.Arity) {
			return nil, nil, &unavailableReason{Param: sc.Param, Reason: fmt.Sprintf(
				"the verb guards %q as a stored command (Verb.StoredCommand, config stored_command), and %q has no such parameter taking a list of words", sc.Param, name)}
		}
	}
	return cmd, fixed, nil
}

// hasOption reports whether cmd accepts option, as a parameter or as a flag
// its adapter excluded from the parameters. An empty option (the runner
// arranges machine output itself) is always there.
func hasOption(cmd *projector.Command, option string) bool {
	if option == "" || slices.Contains(cmd.Excluded, option) {
		return true
	}
	return slices.ContainsFunc(cmd.Params, func(p *projector.Param) bool { return slices.Contains(p.Options, option) })
}

// signature renders the catalog's parameter summary of a command that
// projects (projector.Representable): required parameters in schema
// order, each at-least-one set (a required group, then each of
// AnyRequired) as "a|b", then the count of optional ones; a dynamic verb
// adds that its value injects more. It reads the command, not the schema
// or the validator, so the catalog of a verb never needs either; the
// schema says the same (TestSignatureAgreesWithTheSchema).
func signature(cmd *projector.Command, dyn *Dynamic) string {
	var parts []string
	inGroup := map[string]bool{}
	for _, p := range cmd.Params {
		if p.Required {
			parts = append(parts, p.Name)
		}
	}
	atLeastOne := func(names []string) {
		parts = append(parts, strings.Join(names, "|"))
		for _, n := range names {
			inGroup[n] = true
		}
	}
	for _, g := range cmd.Groups {
		if g.Required {
			atLeastOne(g.Params)
		}
	}
	for _, set := range cmd.AnyRequired {
		atLeastOne(set)
	}
	optional := 0
	for _, p := range cmd.Params {
		if !p.Required && !inGroup[p.Name] {
			optional++
		}
	}
	if optional > 0 {
		parts = append(parts, fmt.Sprintf("+%d", optional))
	}
	if dyn != nil {
		parts = append(parts, "+"+dyn.Param+" args")
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// VerbFiles is what one offered verb does with files, as
// [Surface.FileParams] reports it.
type VerbFiles struct {
	Verb string
	// Paths are the parameters whose values are confined to the roots
	// (marked by the adapter or by Verb.PathParams), by schema name.
	Paths map[string]projector.PathUse
	// Unconfined are the string parameters a caller can set that look like
	// a path (projector.LooksLikePath) and that nothing marks: their values
	// reach the CLI unconfined. Verb.PathParams naming one with
	// projector.PathUseNone says it is not a path and leaves it out.
	Unconfined []*projector.Param
}

// FileParams reports, for every verb offered now (Check lists the rest),
// which parameters are confined to the roots and which look like paths
// but are not: a front warns about the second kind, since an unmarked
// path option (--write-output FILE) is a file the CLI opens wherever the
// caller says.
func (s *Surface) FileParams(ctx context.Context) []VerbFiles {
	rs := &requestState{}
	var out []VerbFiles
	for _, v := range s.reg.snapshot() {
		p := s.project(ctx, rs, v)
		if !p.ok() || p.cmd == nil {
			continue
		}
		vf := VerbFiles{Verb: v.Name, Paths: pathParams(v, p.cmd)}
		for _, param := range p.cmd.Params {
			if _, said := v.PathParams[param.Name]; !said && projector.LooksLikePath(param) {
				vf.Unconfined = append(vf.Unconfined, param)
			}
		}
		out = append(out, vf)
	}
	return out
}
