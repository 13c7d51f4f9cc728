package playbook

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
)

// Annotations Inject sets on the play command, so its run executes the
// playbook content the flags were built from.
const (
	AnnotationName        = "limcp/playbook-name"
	AnnotationFingerprint = "limcp/playbook-fingerprint"
	AnnotationFile        = "limcp/playbook-file"
	AnnotationContent     = "limcp/playbook-content"
)

// PlayCommand is the name of the command Inject adds flags to.
const PlayCommand = "play"

// Inject loads the playbook name from home and adds each declared arg as
// the flag --ARG of root's `play` command: str → string, int → int64,
// float → float64, bool → bool, with the arg's default and help; a required
// arg is marked required (cobra's annotation); an arg with choices takes
// only those values. It returns the playbook's content fingerprint.
//
// Inject refuses, with invalid_playbook naming the field, an arg whose flag
// would collide with a flag or positional `play` already has. It refuses a
// second injection into the same tree: build a fresh tree per playbook.
func Inject(root *cobra.Command, home, name string) (string, error) {
	var play *cobra.Command
	for _, c := range root.Commands() {
		if c.Name() == PlayCommand {
			play = c
		}
	}
	if play == nil {
		return "", fmt.Errorf("playbook: the command tree has no %q command", PlayCommand)
	}
	if prev := play.Annotations[AnnotationName]; prev != "" {
		return "", fmt.Errorf("playbook: playbook %q is already injected into this command tree; build a fresh tree", prev)
	}
	pb, content, err := Load(home, name)
	if err != nil {
		return "", err
	}
	reserved := map[string]bool{}
	for _, w := range strings.Fields(play.Use)[1:] {
		reserved[strings.ToLower(strings.Trim(w, "[].<>"))] = true
	}
	for i, a := range pb.Args {
		field := fmt.Sprintf("args[%d].name", i)
		if play.Flags().Lookup(a.Name) != nil || play.InheritedFlags().Lookup(a.Name) != nil || a.Name == "help" {
			return "", invalid(pb.File, field, "arg %q collides with play's own flag --%s", a.Name, a.Name)
		}
		if reserved[strings.ReplaceAll(a.Name, "-", "_")] || reserved[a.Name] {
			return "", invalid(pb.File, field, "arg %q collides with play's positional %s", a.Name, strings.ToUpper(a.Name))
		}
	}
	fs := play.Flags()
	for _, a := range pb.Args {
		help := a.Help
		if len(a.Choices) > 0 {
			help = strings.TrimSpace(fmt.Sprintf("%s (one of %s)", help, choiceList(a.Choices)))
		}
		var v pflag.Value
		switch a.Type {
		case TypeStr:
			def, _ := a.Default.(string)
			v = newValue(a, def)
		case TypeInt:
			def, _ := a.Default.(int64)
			v = newValue(a, fmt.Sprint(def))
		case TypeFloat:
			def, _ := a.Default.(float64)
			v = newValue(a, fmt.Sprint(def))
		case TypeBool:
			def, _ := a.Default.(bool)
			v = newValue(a, fmt.Sprint(def))
		}
		f := fs.VarPF(v, a.Name, "", help)
		if a.Type == TypeBool {
			f.NoOptDefVal = "true"
		}
		if a.Required {
			if err := play.MarkFlagRequired(a.Name); err != nil {
				return "", err
			}
		}
	}
	fp := Fingerprint(content)
	if play.Annotations == nil {
		play.Annotations = map[string]string{}
	}
	play.Annotations[AnnotationName] = name
	play.Annotations[AnnotationFingerprint] = fp
	play.Annotations[AnnotationFile] = pb.File
	play.Annotations[AnnotationContent] = string(content)
	return fp, nil
}

func choiceList(cs []any) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprint(c)
	}
	return strings.Join(parts, ", ")
}

// Injected returns the playbook Inject pinned on the play command, its
// fingerprint, and the typed values of its args as parsed (defaults for
// flags not given). ok is false when nothing was injected.
func Injected(play *cobra.Command) (pb *Playbook, fingerprint string, values map[string]any, ok bool, err error) {
	name := play.Annotations[AnnotationName]
	if name == "" {
		return nil, "", nil, false, nil
	}
	pb, err = Parse(play.Annotations[AnnotationFile], []byte(play.Annotations[AnnotationContent]))
	if err != nil {
		return nil, "", nil, true, err
	}
	pb.Name = name
	values = map[string]any{}
	for _, a := range pb.Args {
		f := play.Flags().Lookup(a.Name)
		if f == nil {
			return nil, "", nil, true, machine.Errorf(machine.Internal, nil, "playbook %s: flag --%s was not injected", name, a.Name)
		}
		v, ok := f.Value.(*value)
		if !ok {
			return nil, "", nil, true, machine.Errorf(machine.Internal, nil, "playbook %s: flag --%s has an unexpected type", name, a.Name)
		}
		values[a.Name] = v.typed
	}
	return pb, play.Annotations[AnnotationFingerprint], values, true, nil
}

// value is a playbook arg's flag value: typed, and restricted to the
// declared choices when there are any.
type value struct {
	arg   Arg
	typed any
}

func newValue(a Arg, def string) *value {
	v := &value{arg: a}
	if a.Default != nil {
		v.typed = a.Default
	} else {
		v.typed, _ = parseValue(a.Type, def)
		if a.Type == TypeStr {
			v.typed = ""
		}
	}
	return v
}

func (v *value) String() string { return fmt.Sprint(v.typed) }

// Type is the pflag type name of the arg's kind, so that parser projection
// maps it like a plain flag of that kind.
func (v *value) Type() string {
	switch v.arg.Type {
	case TypeInt:
		return "int64"
	case TypeFloat:
		return "float64"
	case TypeBool:
		return "bool"
	}
	return "string"
}

func (v *value) Set(s string) error {
	x, err := parseValue(v.arg.Type, s)
	if err != nil {
		return fmt.Errorf("%q is not a %s", s, v.arg.Type)
	}
	if len(v.arg.Choices) > 0 && !contains(v.arg.Choices, x) {
		return fmt.Errorf("%q is not one of %s", s, choiceList(v.arg.Choices))
	}
	v.typed = x
	return nil
}

// Choices lists the allowed values as strings (empty when any value of the
// type is allowed). A projector that knows this method can offer them as
// an enum.
func (v *value) Choices() []string {
	out := make([]string, len(v.arg.Choices))
	for i, c := range v.arg.Choices {
		out[i] = fmt.Sprint(c)
	}
	return out
}
