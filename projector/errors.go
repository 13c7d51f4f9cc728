package projector

import (
	"fmt"
	"strings"
)

// UnavailableError says why a command cannot be offered, naming the command
// path, the parameter (if one is to blame) and the offending action or type.
//
// It is returned by [Project] and [RenderArgv] for a command whose parser the
// model cannot express. It is not a validation failure of the caller's
// arguments (that is an [*ArgError]): nothing the caller sends can make the
// command available.
type UnavailableError struct {
	Path   []string
	Param  string
	Action string
	Type   string
	Reason string
}

func (e *UnavailableError) Error() string {
	var b strings.Builder
	b.WriteString("projector: ")
	b.WriteString(commandName(e.Path))
	if e.Param != "" {
		fmt.Fprintf(&b, ": parameter %q", e.Param)
	}
	switch {
	case e.Action != "" && e.Type != "":
		fmt.Fprintf(&b, " (action %s, type %s)", e.Action, e.Type)
	case e.Action != "":
		fmt.Fprintf(&b, " (action %s)", e.Action)
	case e.Type != "":
		fmt.Fprintf(&b, " (type %s)", e.Type)
	}
	fmt.Fprintf(&b, ": %s; command unavailable", e.Reason)
	return b.String()
}

// commandName names a command path in messages; the root has an empty path.
func commandName(path []string) string {
	if len(path) == 0 {
		return "the root command"
	}
	return fmt.Sprintf("command %q", strings.Join(path, " "))
}

func unavailable(cmd *Command, p *Param, u *Unrepresentable) *UnavailableError {
	e := &UnavailableError{Path: append([]string(nil), cmd.Path...), Action: u.Action, Type: u.Type, Reason: u.Reason}
	if p != nil {
		e.Param = p.Name
	}
	return e
}

// ArgError reports an argument that cannot be rendered: an unknown or
// missing parameter, a wrong type, a value outside the parameter's
// constraints. Validation against the projected schema rejects every such
// value first; RenderArgv checks again so that a validator bug can never put
// a caller value where the parser would misread it.
type ArgError struct {
	Path   []string // the command path
	Param  string   // the parameter, as the caller named it; "" for a whole-args problem
	Reason string   // one sentence
}

func (e *ArgError) Error() string {
	if e.Param == "" {
		return fmt.Sprintf("projector: %s: %s", commandName(e.Path), e.Reason)
	}
	return fmt.Sprintf("projector: %s: parameter %q: %s", commandName(e.Path), e.Param, e.Reason)
}

// modelError is returned when the model itself is inconsistent (a group names
// an unknown parameter, two parameters share a name): a bug in the adapter
// that built it, not a property of the CLI.
func modelError(cmd *Command, format string, args ...any) error {
	return fmt.Errorf("projector: %s: invalid parser model: %s", commandName(cmd.Path), fmt.Sprintf(format, args...))
}

// InjectionRefusedError is a dynamic parameter's value that the CLI's own
// injection refused (a playbook that does not exist, or does not parse).
// Err is the CLI's reason, written for the CLI's user; a surface shows it
// to its caller as is, without this package's prefix, since the caller
// named the value and not the code that resolved it.
type InjectionRefusedError struct {
	Value string   // the value as given
	Path  []string // the command the value was to be injected into
	Err   error    // the CLI's reason
}

func (e *InjectionRefusedError) Error() string {
	return fmt.Sprintf("projector: injecting %q into %q: %v", e.Value, strings.Join(e.Path, " "), e.Err)
}

// Unwrap returns the CLI's reason.
func (e *InjectionRefusedError) Unwrap() error { return e.Err }
