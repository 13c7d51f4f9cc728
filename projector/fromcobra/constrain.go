package fromcobra

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/internal/pattern"
	"github.com/verbsurface/verbsurface/projector"
)

// Annotation keys of [Constrain], on cobra.Command.Annotations; each is
// followed by the parameter's schema name ("model", "ids", "dry_run").
const (
	AnnotationPattern     = "verbsurface.pattern:"      // an RE2 pattern
	AnnotationMaxItems    = "verbsurface.max_items:"    // a positive decimal
	AnnotationUniqueItems = "verbsurface.unique_items:" // "true"
	AnnotationDescription = "verbsurface.description:"  // the parameter's description, for a model
)

// Constraint narrows one parameter beyond what its pflag type or Use-line
// word says: limits the CLI's own parser does not enforce (it would take
// any model name, any number of ids) but a surface fronting untrusted
// callers must, stated in the schema so a refusal teaches.
type Constraint struct {
	// Pattern is an RE2 pattern a string value (each item of an array)
	// must match. It takes the place of the default pattern (no NUL byte),
	// so it must itself exclude what argv cannot carry; a parameter whose
	// type already has a pattern (duration, stringSlice, stringArray)
	// cannot take another.
	Pattern string
	// MaxItems caps an array parameter's length (0: no cap).
	MaxItems int
	// UniqueItems refuses an array parameter with a value twice.
	UniqueItems bool
	// Description replaces the parameter's description: what it is, its
	// format and range, an example where the format is not obvious. It is
	// how a positional gets one (cobra has no help text for the words of
	// a Use line), and how a flag's terminal-oriented usage line is
	// rewritten for a model. It is part of the schema, so of the
	// fingerprint.
	Description string
}

// Constrain records k for the parameter named param (its schema name) of
// c, as annotations the walk reads. The CLI's own parsing is unchanged:
// the constraint binds only what the surface accepts. A constraint the
// walk cannot apply (no such parameter, a pattern on a number, MaxItems on
// a scalar, a pattern that does not compile) makes the command
// unavailable with the reason, never silently dropped.
func Constrain(c *cobra.Command, param string, k Constraint) {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	if k.Pattern != "" {
		c.Annotations[AnnotationPattern+param] = k.Pattern
	}
	if k.MaxItems != 0 {
		c.Annotations[AnnotationMaxItems+param] = strconv.Itoa(k.MaxItems)
	}
	if k.UniqueItems {
		c.Annotations[AnnotationUniqueItems+param] = "true"
	}
	if k.Description != "" {
		c.Annotations[AnnotationDescription+param] = k.Description
	}
}

// applyConstraints applies c's constraint annotations to cmd's params and
// returns why it cannot, if so. Keys are visited sorted, so the reason is
// the same on every walk.
func applyConstraints(c *cobra.Command, cmd *projector.Command) *projector.Unrepresentable {
	var keys []string
	for k := range c.Annotations {
		if strings.HasPrefix(k, "verbsurface.") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := c.Annotations[k]
		bad := func(format string, args ...any) *projector.Unrepresentable {
			return &projector.Unrepresentable{Reason: fmt.Sprintf("annotation %s=%q: ", k, v) + fmt.Sprintf(format, args...)}
		}
		var kind, name string
		for _, prefix := range []string{AnnotationPattern, AnnotationMaxItems, AnnotationUniqueItems, AnnotationDescription} {
			if n, ok := strings.CutPrefix(k, prefix); ok {
				kind, name = prefix, n
			}
		}
		if kind == "" {
			return bad("unknown verbsurface annotation")
		}
		var p *projector.Param
		for _, q := range cmd.Params {
			if q.Name == name {
				p = q
			}
		}
		if p == nil {
			return bad("the command has no parameter %q", name)
		}
		array := p.Arity != projector.ArityOne && p.Arity != projector.ArityOptional && p.Arity != projector.ArityNone
		switch kind {
		case AnnotationPattern:
			if p.Kind != projector.KindString {
				return bad("parameter %q is of kind %s; a pattern needs strings", name, p.Kind)
			}
			if p.Pattern != "" {
				// The type's own pattern (a duration, a CSV-safe list item)
				// is what makes rendering round-trip; it is never replaced.
				return bad("parameter %q already has the pattern %s from its type", name, p.Pattern)
			}
			if _, err := pattern.Compile(v); err != nil { // compiled once for every command that shares it
				return bad("%v", err)
			}
			p.Pattern = v
		case AnnotationMaxItems:
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || !array {
				return bad("max_items needs an array parameter and a positive integer")
			}
			p.MaxItems = n
		case AnnotationUniqueItems:
			if v != "true" || !array {
				return bad(`unique_items needs an array parameter and the value "true"`)
			}
			p.UniqueItems = true
		case AnnotationDescription:
			if strings.TrimSpace(v) == "" {
				return bad("an empty description")
			}
			p.Help = v
		}
	}
	return nil
}
