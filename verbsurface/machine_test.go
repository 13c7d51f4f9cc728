package verbsurface

import (
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
)

// Seam says what the surface's own seam check says: a command that takes
// the machine option where it goes passes; one that does not fails with the
// setting that fixes it.
func TestMachineSeam(t *testing.T) {
	jsonFlag := &projector.Param{Name: "json", Options: []string{"--json"}, Kind: projector.KindBoolean, Arity: projector.ArityNone, FlagValue: true}
	tree := &projector.Tree{Program: "notes", Commands: []*projector.Command{
		{Path: []string{}, Params: []*projector.Param{jsonFlag}},
		{Path: []string{"list"}, Runnable: true},
		{Path: []string{"show"}, Runnable: true, Params: []*projector.Param{jsonFlag}},
	}}
	list, show := tree.Find("list"), tree.Find("show")
	for _, tc := range []struct {
		m    Machine
		cmd  *projector.Command
		want string // "" passes
	}{
		{Machine{}, list, ""},
		{Machine{Args: []string{"--json"}, At: MachineAtRoot}, list, ""},
		{Machine{Args: []string{"--json"}}, show, ""},
		{Machine{Args: []string{"--json"}}, list, "machine.at: root"},
		{Machine{Args: []string{"--format=json"}, At: MachineAtRoot}, list, "does not accept --format"},
	} {
		err := tc.m.Seam(tree, tc.cmd)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v on %v: %v", tc.m, tc.cmd.Path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v on %v: %v, want an error containing %q", tc.m, tc.cmd.Path, err, tc.want)
		}
	}
}
