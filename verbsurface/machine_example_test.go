package verbsurface_test

import (
	"fmt"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// An argparse CLI whose --json belongs to the top-level parser: machine
// mode at the root reaches every command; after the command path it
// reaches none, and the reason says which setting fixes it. The same check
// makes an inventory count only what a front could really offer.
func ExampleMachine_Seam() {
	jsonFlag := &projector.Param{Name: "json", Options: []string{"--json"}, Kind: projector.KindBoolean,
		Arity: projector.ArityNone, FlagValue: true}
	tree := &projector.Tree{Program: "notes", Dialect: projector.DialectArgparse, Commands: []*projector.Command{
		{Path: []string{}, Params: []*projector.Param{jsonFlag}},
		{Path: []string{"list"}, Runnable: true},
	}}
	list := tree.Find("list")
	fmt.Println(verbsurface.Machine{Args: []string{"--json"}, At: verbsurface.MachineAtRoot}.Seam(tree, list))
	fmt.Println(verbsurface.Machine{Args: []string{"--json"}}.Seam(tree, list))

	rep := projector.Inventory(tree, &projector.InventoryOptions{Offerable: verbsurface.Machine{Args: []string{"--json"}}.Seam})
	fmt.Printf("clean %d of %d\n", rep.Clean, rep.Offerable)
	// Output:
	// <nil>
	// no machine-result seam: "list" does not accept --json, so it cannot print the one JSON result the surface reads; the root parser accepts it: set the machine position to root (Options.Machine.At, config machine.at: root)
	// clean 0 of 1
}
