package playbook

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/flow"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/textfile"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/yamldoc"
)

// Dir is the playbooks directory under the state home.
const Dir = "playbooks"

// Suffix ends every playbook file name.
const Suffix = ".playbook.yaml"

// MaxSize bounds a playbook file.
const MaxSize = 256 << 10

// Playbook is a parsed, validated playbook.
type Playbook struct {
	Name        string    `yaml:"-" json:"name"`
	File        string    `yaml:"-" json:"file"`
	Description string    `yaml:"description" json:"description"`
	Args        []Arg     `yaml:"args" json:"args"`
	Flow        flow.Spec `yaml:"flow" json:"flow"`
}

// Arg is one declared argument; it becomes the flag --NAME of `play`.
type Arg struct {
	Name     string `yaml:"name" json:"name"`
	Type     string `yaml:"type" json:"type"` // str, int, float, bool
	Default  any    `yaml:"default" json:"default,omitempty"`
	Help     string `yaml:"help" json:"help,omitempty"`
	Choices  []any  `yaml:"choices" json:"choices,omitempty"`
	Required bool   `yaml:"required" json:"required,omitempty"`
}

// Arg types.
const (
	TypeStr   = "str"
	TypeInt   = "int"
	TypeFloat = "float"
	TypeBool  = "bool"
)

var (
	nameRE    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	argNameRE = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)
)

// Path returns the file a playbook name refers to under home.
func Path(home, name string) string {
	return filepath.Join(home, Dir, name+Suffix)
}

// Fingerprint is the content fingerprint of a playbook file: "pf1-" and 16
// lowercase hex digits of SHA-256 over its bytes.
func Fingerprint(content []byte) string {
	sum := sha256.Sum256(content)
	return "pf1-" + hex.EncodeToString(sum[:])[:16]
}

// Load reads and validates the playbook name under home. Errors are
// *machine.Error with code playbook_not_found or invalid_playbook, naming
// the file and the field.
func Load(home, name string) (*Playbook, []byte, error) {
	if !nameRE.MatchString(name) {
		return nil, nil, machine.Errorf(machine.PlaybookNotFound, map[string]any{"playbook": name, "file": ""},
			"playbook name %q is not a valid name (letters, digits, '_', '.', '-'; no path separators)", name)
	}
	path := Path(home, name)
	// Messages name the file relative to the state home: they reach MCP
	// callers, who name playbooks, not the server's directories.
	shown := filepath.Join(Dir, name+Suffix)
	content, err := textfile.Read(path, MaxSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, machine.Errorf(machine.PlaybookNotFound, map[string]any{"playbook": name, "file": shown},
			"playbook %q not found: the state home has no %s (`state list` names the playbooks there)", name, shown)
	case errors.Is(err, textfile.ErrTooLarge):
		return nil, nil, invalid(shown, "", "file is larger than %d bytes", MaxSize)
	case err != nil:
		return nil, nil, invalid(shown, "", "cannot read: %v", pathless(err))
	}
	pb, err := Parse(shown, content)
	if err != nil {
		return nil, nil, err
	}
	pb.Name = name
	return pb, content, nil
}

func invalid(path, field, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	where := path
	if field != "" {
		where += ": field " + field
	}
	return machine.Errorf(machine.InvalidPlaybook, map[string]any{"file": path, "field": field}, "invalid playbook %s: %s", where, msg)
}

// Parse decodes and validates playbook content read from path.
func Parse(path string, content []byte) (*Playbook, error) {
	var pb Playbook
	switch err := yamldoc.Decode(content, &pb); {
	case errors.Is(err, yamldoc.ErrEmpty):
		return nil, invalid(path, "", "the file is empty")
	case err != nil:
		return nil, invalid(path, "", "%v", err)
	}
	pb.File = path
	seen := map[string]bool{}
	for i := range pb.Args {
		a := &pb.Args[i]
		f := fmt.Sprintf("args[%d]", i)
		if !argNameRE.MatchString(a.Name) {
			return nil, invalid(path, f+".name", "arg name %q must be lowercase words joined by '-' (it becomes the flag --%s)", a.Name, a.Name)
		}
		if seen[a.Name] {
			return nil, invalid(path, f+".name", "arg %q is declared twice", a.Name)
		}
		seen[a.Name] = true
		switch a.Type {
		case TypeStr, TypeInt, TypeFloat, TypeBool:
		case "":
			return nil, invalid(path, f+".type", "arg %q has no type (str, int, float or bool)", a.Name)
		default:
			return nil, invalid(path, f+".type", "arg %q has type %q; want str, int, float or bool", a.Name, a.Type)
		}
		if a.Type == TypeBool && len(a.Choices) > 0 {
			return nil, invalid(path, f+".choices", "bool arg %q cannot have choices", a.Name)
		}
		if a.Required && a.Default != nil {
			return nil, invalid(path, f+".default", "arg %q is required and so cannot have a default", a.Name)
		}
		for j, c := range a.Choices {
			v, err := normalize(a.Type, c)
			if err != nil {
				return nil, invalid(path, fmt.Sprintf("%s.choices[%d]", f, j), "%v", err)
			}
			a.Choices[j] = v
		}
		if a.Default != nil {
			v, err := normalize(a.Type, a.Default)
			if err != nil {
				return nil, invalid(path, f+".default", "%v", err)
			}
			a.Default = v
			if len(a.Choices) > 0 && !contains(a.Choices, v) {
				return nil, invalid(path, f+".default", "default %v is not one of the choices %v", v, a.Choices)
			}
		} else if len(a.Choices) > 0 && !a.Required {
			// Without a default an omitted flag would take its type's zero
			// value (0, ""), which is not a choice: the run would see a
			// value the parser refuses and the projected schema would
			// offer a default outside its own enum.
			return nil, invalid(path, f+".default", "arg %q has choices but no default: give a default (one of %s) or mark it required", a.Name, choiceList(a.Choices))
		}
	}
	if err := pb.Flow.Validate(); err != nil {
		var fe *flow.FieldError
		if errors.As(err, &fe) {
			return nil, invalid(path, "flow."+fe.Field, "%s", fe.Msg)
		}
		return nil, invalid(path, "flow", "%v", err)
	}
	return &pb, nil
}

// normalize converts a YAML scalar to the arg type's Go value (string,
// int64, float64, bool), refusing values of another type.
func normalize(typ string, v any) (any, error) {
	switch typ {
	case TypeStr:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case TypeInt:
		switch n := v.(type) {
		case int:
			return int64(n), nil
		case int64:
			return n, nil
		case uint64:
			if n <= 1<<63-1 {
				return int64(n), nil
			}
		}
	case TypeFloat:
		switch n := v.(type) {
		case int:
			return float64(n), nil
		case int64:
			return float64(n), nil
		case float64:
			return n, nil
		}
	case TypeBool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	}
	return nil, fmt.Errorf("value %v (%T) is not a %s", v, v, typ)
}

// parseValue parses a flag's text as the arg type's Go value.
func parseValue(typ, s string) (any, error) {
	switch typ {
	case TypeStr:
		return s, nil
	case TypeInt:
		return strconv.ParseInt(s, 0, 64)
	case TypeFloat:
		return strconv.ParseFloat(s, 64)
	case TypeBool:
		return strconv.ParseBool(s)
	}
	return nil, fmt.Errorf("unknown type %q", typ)
}

func contains(list []any, v any) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// pathless is err without the absolute path an *fs.PathError carries: the
// message names the file relative to the home already.
func pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
