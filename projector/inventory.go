package projector

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// InventoryOptions adjusts an inventory. The zero value (or nil) fences
// nothing.
type InventoryOptions struct {
	// Fenced lists command paths that exist but are never offered
	// (privilege-granting commands: state-store schema migration, trusting
	// a plugin or hooks). A fenced command that is present in the tree is
	// reported under Fenced and left out of the offerable count; elements
	// may be aliases.
	Fenced [][]string
	// Offerable, when set, is asked about every runnable, unfenced command
	// that projects cleanly: a non-nil error makes the command unavailable
	// with the error as its reason. A front uses it for what only it
	// knows, such as whether the command accepts the machine-mode option
	// where the front puts it (verbsurface.Machine.Seam): a command that
	// cannot print the machine result is not clean, however clean its
	// parameters.
	Offerable func(t *Tree, c *Command) error
	// Offered, when set, gives each runnable, unfenced command as the front
	// would offer it (a verb's own exclusions applied, which may settle
	// what blocks it: see ExcludeFromCommand); a nil result means the
	// command as the tree has it. The projection, the reasons and
	// Offerable all see what it returns, so an inventory counts a command
	// clean exactly when the front could offer it.
	Offered func(t *Tree, c *Command) *Command
}

// InventoryReport says how much of a parser tree can be offered, and why not
// the rest. It is plain data and marshals to JSON as is.
type InventoryReport struct {
	Program string  `json:"program"`
	Dialect Dialect `json:"dialect"`
	// Commands counts every command path, the root included; Groups those
	// that only dispatch to subcommands; Runnable the rest; Hidden those
	// hidden from help (counted in the others too).
	Commands int `json:"commands"`
	Groups   int `json:"groups"`
	Runnable int `json:"runnable"`
	Hidden   int `json:"hidden"`
	// Fenced lists the fenced commands present in the tree.
	Fenced [][]string `json:"fenced"`
	// Offerable counts runnable commands that are not fenced; Clean those
	// of them that project cleanly; CleanShare is Clean/Offerable (0 when
	// nothing is offerable).
	Offerable  int     `json:"offerable"`
	Clean      int     `json:"clean"`
	CleanShare float64 `json:"clean_share"`
	// CleanCommands lists the command paths that project cleanly.
	CleanCommands [][]string `json:"clean_commands"`
	// Unavailable lists every offerable command that does not project,
	// with every reason (not just the first).
	Unavailable []UnavailableCommand `json:"unavailable"`
	Params      ParamInventory       `json:"params"`
}

// UnavailableCommand is an offerable command that cannot be offered.
type UnavailableCommand struct {
	Path    []string             `json:"path"`
	Reasons []*UnavailableReason `json:"reasons"`
}

// UnavailableReason is one blocker: the command's own (Param empty) or one
// parameter's, with the offending action class or type by name.
type UnavailableReason struct {
	Param  string `json:"param,omitempty"`
	Action string `json:"action,omitempty"`
	Type   string `json:"type,omitempty"`
	Reason string `json:"reason"`
}

// ParamInventory counts parameters over every command of the tree (a cobra
// persistent flag counts once per command that inherits it, since it is a
// parameter of each).
type ParamInventory struct {
	Total int `json:"total"`
	// ByAction counts by source action class ("store", "store_true",
	// "pflag:string", "mymod.CustomAction").
	ByAction map[string]int `json:"by_action"`
	// ByType counts by projected schema type ("string", "integer",
	// "array of string", …); unrepresentable parameters count under
	// "unrepresentable".
	ByType map[string]int `json:"by_type"`
	// BySourceType counts by the source's type name where it has one
	// ("int", "duration", "argparse.FileType").
	BySourceType map[string]int `json:"by_source_type"`
	// Unrepresentable lists every unrepresentable parameter, in tree order.
	Unrepresentable []UnrepresentableParam `json:"unrepresentable"`
}

// UnrepresentableParam is one parameter the model cannot express.
type UnrepresentableParam struct {
	Path   []string `json:"path"`
	Param  string   `json:"param"`
	Action string   `json:"action,omitempty"`
	Type   string   `json:"type,omitempty"`
	Reason string   `json:"reason"`
}

// Inventory reports, for the tree t: how many command paths it has, its
// parameters by source action class and by type, every unrepresentable
// parameter and every unavailable command with its exact reasons, and the
// share of offerable (runnable, unfenced) commands that project cleanly.
// It is what a team reads before fronting its CLI.
func Inventory(t *Tree, opts *InventoryOptions) *InventoryReport {
	if opts == nil {
		opts = &InventoryOptions{}
	}
	if t == nil {
		t = &Tree{}
	}
	r := &InventoryReport{
		Program: t.Program, Dialect: t.Dialect,
		Fenced: [][]string{}, CleanCommands: [][]string{}, Unavailable: []UnavailableCommand{},
		Params: ParamInventory{ByAction: map[string]int{}, ByType: map[string]int{}, BySourceType: map[string]int{}, Unrepresentable: []UnrepresentableParam{}},
	}
	fenced := map[*Command]bool{}
	for _, f := range opts.Fenced {
		c := t.Find(f...)
		if c == nil { // a tree that lists a command without its parents
			for _, cand := range t.Commands {
				if strings.Join(cand.Path, "\x00") == strings.Join(f, "\x00") {
					c = cand
				}
			}
		}
		if c != nil && !fenced[c] {
			fenced[c] = true
			r.Fenced = append(r.Fenced, append([]string{}, c.Path...))
		}
	}
	for _, c := range t.Commands {
		r.Commands++
		if c.Hidden {
			r.Hidden++
		}
		if c.Runnable {
			r.Runnable++
		} else {
			r.Groups++
		}
		for _, p := range c.Params {
			r.Params.Total++
			r.Params.ByAction[p.Action]++
			if p.Type != "" {
				r.Params.BySourceType[p.Type]++
			}
			if p.Unrepresentable != nil {
				r.Params.ByType["unrepresentable"]++
				r.Params.Unrepresentable = append(r.Params.Unrepresentable, UnrepresentableParam{
					Path: c.Path, Param: p.Name, Action: p.Unrepresentable.Action, Type: p.Unrepresentable.Type, Reason: p.Unrepresentable.Reason})
				continue
			}
			r.Params.ByType[schemaTypeName(c, p)]++
		}
		if !c.Runnable || fenced[c] {
			continue
		}
		r.Offerable++
		if opts.Offered != nil {
			if o := opts.Offered(t, c); o != nil {
				c = o
			}
		}
		_, err := Project(c)
		if err == nil && opts.Offerable != nil {
			if oerr := opts.Offerable(t, c); oerr != nil {
				r.Unavailable = append(r.Unavailable, UnavailableCommand{Path: c.Path, Reasons: []*UnavailableReason{{Reason: oerr.Error()}}})
				continue
			}
		}
		if err == nil {
			r.Clean++
			r.CleanCommands = append(r.CleanCommands, c.Path)
			continue
		}
		u := UnavailableCommand{Path: c.Path}
		if c.Unrepresentable != nil {
			u.Reasons = append(u.Reasons, &UnavailableReason{Action: c.Unrepresentable.Action, Type: c.Unrepresentable.Type, Reason: c.Unrepresentable.Reason})
		}
		for _, p := range c.Params {
			if p.Unrepresentable != nil {
				u.Reasons = append(u.Reasons, &UnavailableReason{Param: p.Name, Action: p.Unrepresentable.Action, Type: p.Unrepresentable.Type, Reason: p.Unrepresentable.Reason})
			}
		}
		if len(u.Reasons) == 0 {
			// Not the CLI's doing: an inconsistent model (a bug in the
			// adapter) still blocks the command, so it is reported.
			u.Reasons = append(u.Reasons, &UnavailableReason{Reason: err.Error()})
		}
		r.Unavailable = append(r.Unavailable, u)
	}
	if r.Offerable > 0 {
		r.CleanShare = float64(r.Clean) / float64(r.Offerable)
	}
	return r
}

// schemaTypeName names the type of the schema Project serves for p, read
// from that schema (the one rule both come from), not from the arity: a
// count (-vvv) is an integer, a repeated tuple an array of arrays, an
// option that may be given bare "boolean or string". A parameter whose
// rule cannot be built is counted as "invalid model" (its command is
// reported unavailable with the reason).
func schemaTypeName(c *Command, p *Param) string {
	r, err := ruleOf(c, p)
	if err != nil {
		return "invalid model"
	}
	s, err := r.schema()
	if err != nil {
		return "invalid model"
	}
	return schemaType(s)
}

// schemaType names a projected schema's type: "integer", "boolean or
// string", "array of string", "array of array of integer"; a tuple whose
// positions differ names them ("array of [string, integer]").
func schemaType(s *jsonschema.Schema) string {
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	if len(types) != 1 || types[0] != "array" {
		return strings.Join(types, " or ")
	}
	if s.Items != nil {
		return "array of " + schemaType(s.Items)
	}
	var each []string
	for _, item := range s.PrefixItems {
		each = append(each, schemaType(item))
	}
	return "array of [" + strings.Join(each, ", ") + "]"
}

// WriteText writes the report for a person: the headline numbers, then every
// unavailable command with its reasons, then the parameter counts.
func (r *InventoryReport) WriteText(w io.Writer) error {
	var b strings.Builder
	name := func(path []string) string {
		if len(path) == 0 {
			return "(root)"
		}
		return strings.Join(path, " ")
	}
	fmt.Fprintf(&b, "%s (%s): %d command paths, %d runnable, %d groups\n", r.Program, r.Dialect, r.Commands, r.Runnable, r.Groups)
	fmt.Fprintf(&b, "projects cleanly: %d of %d offerable commands (%.0f%%)\n", r.Clean, r.Offerable, 100*r.CleanShare)
	for _, f := range r.Fenced {
		fmt.Fprintf(&b, "fenced (present, never offered): %s\n", name(f))
	}
	for _, u := range r.Unavailable {
		fmt.Fprintf(&b, "unavailable: %s\n", name(u.Path))
		for _, why := range u.Reasons {
			b.WriteString("  - ")
			if why.Param != "" {
				fmt.Fprintf(&b, "parameter %s: ", why.Param)
			}
			b.WriteString(why.Reason)
			b.WriteByte('\n')
		}
	}
	fmt.Fprintf(&b, "parameters: %d\n", r.Params.Total)
	writeCounts := func(title string, m map[string]int) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(&b, "  %s:", title)
		for _, k := range keys {
			fmt.Fprintf(&b, " %s=%d", k, m[k])
		}
		b.WriteByte('\n')
	}
	writeCounts("by action", r.Params.ByAction)
	writeCounts("by type", r.Params.ByType)
	_, err := io.WriteString(w, b.String())
	return err
}
