package verbsurface

import (
	"context"
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
// parser declares it, its projected schema, fingerprint and compiled
// validator, or the reason it cannot be offered.
type projection struct {
	cmd         *projector.Command // as projected (the machine flag removed)
	dialect     projector.Dialect
	schema      *jsonschema.Schema
	fingerprint string
	validator   *Validator
	signature   string // the catalog's "(model, prompt, +11)"

	// Exactly one of these is set when the verb cannot be offered.
	unavailable *unavailableReason
	fenced      string // the fenced path the command resolved to
	internal    error  // a projector or validator bug: internal_error

	// Dynamic injection only.
	dynValue   string
	playbookFP string
}

type unavailableReason struct {
	Param  string
	Reason string
}

func (p *projection) ok() bool { return p.unavailable == nil && p.fenced == "" && p.internal == nil }

// projectionCache holds each verb's last projection keyed on the canonical
// content of the command it came from: a changed command (a rebuilt CLI, a
// new flag) has a different key, so nothing stale is ever served, and only
// the latest projection per verb (and per dynamic value) is kept.
type projectionCache struct {
	mu      sync.Mutex
	verbs   map[string]cacheEntry // verb name -> entry
	dynamic map[string]cacheEntry // verb name + "\x00" + dynamic value -> entry
}

type cacheEntry struct {
	key  string // command content
	proj *projection
}

// maxDynamicEntries bounds the dynamic slots: their values are chosen by
// callers, so they must not be able to pin unbounded memory.
const maxDynamicEntries = 256

func (c *projectionCache) slots(slot string) map[string]cacheEntry {
	if strings.Contains(slot, "\x00") {
		return c.dynamic
	}
	return c.verbs
}

func (c *projectionCache) get(slot, key string) *projection {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.slots(slot)[slot]; ok && e.key == key {
		return e.proj
	}
	return nil
}

// lastProjection returns the verb's last cached projection, whatever the
// command it came from (nil if none).
func (c *projectionCache) lastProjection(verb string) *projection {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.verbs[verb].proj
}

func (c *projectionCache) put(slot, key string, p *projection) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.verbs == nil {
		c.verbs, c.dynamic = map[string]cacheEntry{}, map[string]cacheEntry{}
	}
	if strings.Contains(slot, "\x00") && len(c.dynamic) >= maxDynamicEntries {
		clear(c.dynamic)
	}
	c.slots(slot)[slot] = cacheEntry{key: key, proj: p}
}

// requestState is per-request memo: the tree is fetched at most once per
// request, so every op of a batch sees the same CLI.
type requestState struct {
	once sync.Once
	tree *projector.Tree
	err  error
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
	return s.projectCommand(v, v.Name, t, cmd, "")
}

// projectCommand projects cmd for v, through the cache. slot names the
// cache slot (the verb, or verb and dynamic value).
func (s *Surface) projectCommand(v *Verb, slot string, t *projector.Tree, cmd *projector.Command, dynValue string) *projection {
	// Defence in depth: a registered path may reach a fenced command
	// through an alias the registry could not know about.
	if p, ok := s.reg.fence.matchPath(cmd.Path); ok {
		return &projection{fenced: p}
	}
	if !cmd.Runnable {
		return &projection{unavailable: &unavailableReason{
			Reason: fmt.Sprintf("%q is a group of commands, not a runnable command", strings.Join(cmd.Path, " "))}}
	}
	cmd, bad := s.verbCommand(v, t, cmd)
	if bad != nil {
		return &projection{unavailable: bad}
	}
	keyBytes, err := json.Marshal(cmd)
	if err != nil {
		return &projection{internal: fmt.Errorf("verbsurface: verb %q: encoding command: %w", v.Name, err)}
	}
	key := string(t.Dialect) + "\x00" + string(keyBytes)
	if p := s.cache.get(slot, key); p != nil {
		return p
	}
	p := &projection{cmd: cmd, dialect: t.Dialect, dynValue: dynValue}
	schema, err := projector.Project(cmd)
	if err != nil {
		var ue *projector.UnavailableError
		if errors.As(err, &ue) {
			p.unavailable = &unavailableReason{Param: ue.Param, Reason: ue.Error()}
		} else {
			p.unavailable = &unavailableReason{Reason: err.Error()}
		}
		s.cache.put(slot, key, p)
		return p
	}
	p.schema = schema
	if p.fingerprint, err = projector.Fingerprint(v.Name, schema); err != nil {
		p.internal = fmt.Errorf("verbsurface: verb %q: fingerprint: %w", v.Name, err)
	} else if p.validator, err = CompileValidator(schema); err != nil {
		p.internal = fmt.Errorf("verbsurface: verb %q: %w", v.Name, err)
	} else {
		p.signature = signature(p.validator, v.Dynamic)
	}
	s.cache.put(slot, key, p)
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
	p := s.projectCommand(v, v.Name+"\x00"+value, t, cmd, value)
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

// verbCommand is cmd as v offers it, or why it cannot, in this order: the
// verb's own exclusions (each must name a parameter of cmd); the machine
// seam (v.Machine, else Options.Machine), which withdraws the machine
// options; the fixed arguments, which withdraw what they set; then every
// parameter the verb names must be one the caller can still set (its
// PathParams, its StoredCommand's), so a misspelt name, or one the CLI
// renamed since, makes the verb unavailable instead of leaving a path
// unconfined or a stored command unguarded.
func (s *Surface) verbCommand(v *Verb, t *projector.Tree, cmd *projector.Command) (*projector.Command, *unavailableReason) {
	name := strings.Join(cmd.Path, " ")
	if name == "" {
		name = t.Program
	}
	if len(v.Exclude) > 0 {
		var unmatched []string
		cmd, unmatched = projector.ExcludeFromCommand(cmd, v.Exclude...)
		if len(unmatched) > 0 {
			return nil, &unavailableReason{Reason: fmt.Sprintf("the verb excludes %s, which %q does not have (Verb.Exclude, config exclude)", quoteList(unmatched), name)}
		}
	}
	m := s.opts.Machine
	if v.Machine != nil {
		m = *v.Machine
	}
	cmd, bad := m.seam(t, cmd)
	if bad != nil {
		return nil, bad
	}
	if cmd, bad = fixedArgs(cmd, v.Args); bad != nil {
		return nil, bad
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
		if param(n) == nil {
			return nil, &unavailableReason{Param: n, Reason: fmt.Sprintf(
				"the verb marks %q as a path (Verb.PathParams, config files), and %q has no such parameter a caller can set", n, name)}
		}
	}
	if sc := v.StoredCommand; sc != nil {
		p := param(sc.Param)
		if p == nil || p.Kind != projector.KindString || !slices.Contains([]projector.Arity{projector.ArityRepeated, projector.ArityZeroOrMore, projector.ArityOneOrMore}, p.Arity) {
			return nil, &unavailableReason{Param: sc.Param, Reason: fmt.Sprintf(
				"the verb guards %q as a stored command (Verb.StoredCommand, config stored_command), and %q has no such parameter taking a list of words", sc.Param, name)}
		}
	}
	return cmd, nil
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

// signature renders the catalog's parameter summary: required parameters
// in schema order, each required group as "a|b", then the count of
// optional ones; a dynamic verb adds that its value injects more.
func signature(v *Validator, dyn *Dynamic) string {
	var parts []string
	inGroup := map[string]bool{}
	for _, name := range v.order {
		if slices.Contains(v.required, name) {
			parts = append(parts, name)
		}
	}
	for _, r := range v.rules {
		if !r.exclusive {
			parts = append(parts, strings.Join(r.params, "|"))
			for _, p := range r.params {
				inGroup[p] = true
			}
		}
	}
	optional := 0
	for _, name := range v.order {
		if !slices.Contains(v.required, name) && !inGroup[name] {
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
