package verbsurface

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// RegistryOptions configures a [Registry]. The zero value (or nil) is right
// for a CLI whose privileged commands are the default ones.
type RegistryOptions struct {
	// Fence lists the fenced command paths. Nil means [DefaultFence]; a
	// non-nil empty slice fences nothing (for a CLI with no privileged
	// commands).
	Fence [][]string
}

// Registry is the allowlist: the verbs an embedding program registered,
// explicitly. Nothing unregistered is reachable, so adding a command to the
// CLI never widens the surface. A Registry is safe for concurrent use;
// registering while a [Surface] serves requests is allowed.
type Registry struct {
	fence *fence

	mu       sync.RWMutex
	verbs    map[string]*Verb
	order    []string          // registration order
	synonyms map[string]string // v1 name -> verb name
}

// NewRegistry returns an empty registry. It fails only when a fence entry
// is empty.
func NewRegistry(opts *RegistryOptions) (*Registry, error) {
	paths := DefaultFence
	if opts != nil && opts.Fence != nil {
		paths = opts.Fence
	}
	f, err := newFence(paths)
	if err != nil {
		return nil, err
	}
	return &Registry{fence: f, verbs: map[string]*Verb{}, synonyms: map[string]string{}}, nil
}

var (
	verbNamePattern    = regexp.MustCompile(`^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)*$`)
	synonymNamePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

// Register adds v. It refuses, with an error naming the verb and the rule:
// an invalid name or class; a path with an empty element (an empty path is
// the program's root command); a summary that is not one line; a name,
// synonym or path that denotes a fenced command (however spelled); a name
// or synonym already taken; a Dynamic without Param or Inject; a Machine
// whose At or first argument is wrong; an empty fixed argument or
// exclusion; a StoredCommand without Param or Allow, or allowing a fenced
// path.
// A verb without Handler needs the surface's Runner: [New] checks the
// verbs registered before it; an op of one registered later on a surface
// without an Runner fails with internal_error.
func (r *Registry) Register(v Verb) error {
	if !verbNamePattern.MatchString(v.Name) {
		return fmt.Errorf("verbsurface: register %q: verb name must be lowercase dot-separated segments such as \"agent.submit\"", v.Name)
	}
	if v.Name == HelpCatalogString || slices.Contains(v.Synonyms, HelpCatalogString) {
		return fmt.Errorf("verbsurface: register %q: the name %q is reserved: help %q asks for the catalog (older clients send true as a string)", v.Name, HelpCatalogString, HelpCatalogString)
	}
	if !v.Class.valid() {
		return fmt.Errorf("verbsurface: register %q: class %q is not spawn, observe or control", v.Name, v.Class)
	}
	for _, elem := range v.Path {
		if strings.TrimSpace(elem) == "" {
			return fmt.Errorf("verbsurface: register %q: command path %q has an empty element", v.Name, v.Path)
		}
	}
	if strings.ContainsAny(v.Summary, "\r\n") {
		return fmt.Errorf("verbsurface: register %q: summary must be one line", v.Name)
	}
	// Defence in depth: the fence is checked on every name a caller could
	// type, not only on the path the verb runs.
	if p, ok := r.fence.matchPath(v.Path); ok {
		return fmt.Errorf("verbsurface: register %q: command path %q is fenced (%s): a human-at-a-terminal operation is never a verb", v.Name, strings.Join(v.Path, " "), p)
	}
	if p, ok := r.fence.matchName(v.Name); ok {
		return fmt.Errorf("verbsurface: register %q: the verb name denotes the fenced command %q", v.Name, p)
	}
	for _, syn := range v.Synonyms {
		if !synonymNamePattern.MatchString(syn) {
			return fmt.Errorf("verbsurface: register %q: synonym %q must be a lowercase v1 tool name such as \"submit_agent\"", v.Name, syn)
		}
		if p, ok := r.fence.matchName(syn); ok {
			return fmt.Errorf("verbsurface: register %q: synonym %q denotes the fenced command %q", v.Name, syn, p)
		}
	}
	if v.Dynamic != nil && (v.Dynamic.Param == "" || v.Dynamic.Inject == nil) {
		return fmt.Errorf("verbsurface: register %q: Dynamic needs both Param and Inject", v.Name)
	}
	if v.Machine != nil {
		if err := v.Machine.check(); err != nil {
			return fmt.Errorf("verbsurface: register %q: %s", v.Name, strings.Replace(strings.TrimPrefix(err.Error(), "verbsurface: New: "), "Options.Machine", "Verb.Machine", 1))
		}
	}
	for _, list := range [][]string{v.Args, v.Exclude} {
		if slices.Contains(list, "") {
			return fmt.Errorf("verbsurface: register %q: an empty word in Args or Exclude", v.Name)
		}
	}
	if v.StoredCommand != nil {
		if err := v.StoredCommand.check(v.Name, r.fence); err != nil {
			return err
		}
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.verbs[v.Name]; dup {
		return fmt.Errorf("verbsurface: register %q: verb already registered", v.Name)
	}
	if owner, dup := r.synonyms[v.Name]; dup {
		return fmt.Errorf("verbsurface: register %q: name already taken as a synonym of %q", v.Name, owner)
	}
	seen := map[string]bool{}
	for _, syn := range v.Synonyms {
		if _, dup := r.verbs[syn]; dup || seen[syn] || syn == v.Name {
			return fmt.Errorf("verbsurface: register %q: synonym %q is already a verb name or listed twice", v.Name, syn)
		}
		if owner, dup := r.synonyms[syn]; dup {
			return fmt.Errorf("verbsurface: register %q: synonym %q already belongs to %q", v.Name, syn, owner)
		}
		seen[syn] = true
	}
	stored := v
	stored.Path = slices.Clone(v.Path)
	if stored.Path == nil {
		stored.Path = []string{}
	}
	stored.Synonyms = slices.Clone(v.Synonyms)
	stored.Args, stored.Exclude = slices.Clone(v.Args), slices.Clone(v.Exclude)
	stored.Positionals, stored.Fixed, stored.Constraints = slices.Clone(v.Positionals), maps.Clone(v.Fixed), slices.Clone(v.Constraints)
	if v.Machine != nil {
		m := *v.Machine
		m.Args = slices.Clone(m.Args)
		stored.Machine = &m
	}
	if v.StoredCommand != nil {
		sc := *v.StoredCommand
		sc.Allow = slices.Clone(sc.Allow)
		stored.StoredCommand = &sc
	}
	if v.Dynamic != nil {
		d := *v.Dynamic
		stored.Dynamic = &d
	}
	r.verbs[v.Name] = &stored
	r.order = append(r.order, v.Name)
	for _, syn := range v.Synonyms {
		r.synonyms[syn] = v.Name
	}
	return nil
}

// Verbs returns the registered verb names in registration order.
func (r *Registry) Verbs() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.order)
}

// lookup returns the verb registered under exactly name.
func (r *Registry) lookup(name string) *Verb {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.verbs[name]
}

// synonym returns the verb a v1 synonym maps to (exact match).
func (r *Registry) synonym(name string) *Verb {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if v, ok := r.synonyms[name]; ok {
		return r.verbs[v]
	}
	return nil
}

// snapshot returns the registered verbs in registration order.
func (r *Registry) snapshot() []*Verb {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*Verb, len(r.order))
	for i, n := range r.order {
		out[i] = r.verbs[n]
	}
	return out
}
