package verbsurface

import (
	"errors"
	"fmt"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
)

// MachineAt is where the machine-mode arguments go on the command line.
type MachineAt string

const (
	// MachineAtLeaf puts them after the command path: `cli job list --json`.
	// The zero value means leaf.
	MachineAtLeaf MachineAt = "leaf"
	// MachineAtRoot puts them before the command path, on the root
	// parser: `cli --json job list` (argparse's usual top-level --json).
	MachineAtRoot MachineAt = "root"
)

// Machine says how the surface puts the CLI into machine mode: the
// arguments, and where they go. See Options.Machine.
type Machine struct {
	// Args are rendered as given on every dispatch. Args[0] must be an
	// option ("--json", "--format=json", "-o"); what follows it is its
	// value, if any.
	Args []string
	// At is leaf (default) or root.
	At MachineAt
}

func (m Machine) check() error {
	switch m.At {
	case "", MachineAtLeaf, MachineAtRoot:
	default:
		return fmt.Errorf("verbsurface: New: Options.Machine.At %q is not %q or %q", m.At, MachineAtLeaf, MachineAtRoot)
	}
	if len(m.Args) > 0 && !strings.HasPrefix(m.Args[0], "-") {
		return fmt.Errorf("verbsurface: New: Options.Machine.Args[0] %q is not an option (it must start with -)", m.Args[0])
	}
	return nil
}

// option is the option string the seam check looks for: Args[0] without
// an attached "=value". "" when there are no machine arguments (the
// runner arranges machine output itself).
func (m Machine) option() string {
	if len(m.Args) == 0 {
		return ""
	}
	opt, _, _ := strings.Cut(m.Args[0], "=")
	return opt
}

// Seam reports whether cmd of t can print the machine result with these
// arguments: nil when it accepts the machine option where At puts it (or
// there are no arguments), else an error whose text says why and which
// setting fixes it, the reason Surface.Check and help give for such a
// verb. An inventory passes it as projector.InventoryOptions.Offerable,
// so a command without the seam is not counted clean.
func (m Machine) Seam(t *projector.Tree, cmd *projector.Command) error {
	if _, bad := m.seam(t, cmd); bad != nil {
		return errors.New(bad.Reason)
	}
	return nil
}

// seam checks that the machine option reaches cmd where the surface puts
// it, and returns cmd without it (it is the surface's channel, never a
// caller's parameter). On failure it says which option fixes it.
func (m Machine) seam(t *projector.Tree, cmd *projector.Command) (*projector.Command, *unavailableReason) {
	opt := m.option()
	if opt == "" {
		return cmd, nil
	}
	path := strings.Join(cmd.Path, " ")
	if path == "" {
		path = t.Program // the root command: a program of one command
	}
	root := t.Find()
	rootHas := root != nil && hasOption(root, opt)
	if m.At == MachineAtRoot {
		if rootHas {
			return withoutOption(cmd, opt), nil
		}
		hint := ""
		if hasOption(cmd, opt) {
			hint = fmt.Sprintf("; %q accepts it after the command path: set the machine position to leaf (Options.Machine.At, config machine.at)", path)
		}
		return nil, &unavailableReason{Reason: fmt.Sprintf(
			"no machine-result seam: the root parser of %s does not accept %s, so %q cannot print the one JSON result the surface reads%s",
			t.Program, opt, path, hint)}
	}
	if hasOption(cmd, opt) {
		return withoutOption(cmd, opt), nil
	}
	hint := "; configure the arguments that select its machine mode (Options.Machine, config machine.args)"
	if rootHas {
		hint = "; the root parser accepts it: set the machine position to root (Options.Machine.At, config machine.at: root)"
	}
	return nil, &unavailableReason{Reason: fmt.Sprintf(
		"no machine-result seam: %q does not accept %s, so it cannot print the one JSON result the surface reads%s",
		path, opt, hint)}
}
