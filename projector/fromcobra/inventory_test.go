package fromcobra

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/verbsurface/verbsurface/projector"
)

// TestInventoryFixture: the cobra fixture's inventory, with a fenced command
// reported as present but fenced and left out of the offerable count.
func TestInventoryFixture(t *testing.T) {
	tree := fixtureTree(t)
	r := projector.Inventory(tree, &projector.InventoryOptions{Fenced: [][]string{{"sched", "ls"}, {"state", "migrate"}}})
	if diff := cmp.Diff([][]string{{"schedule", "list"}}, r.Fenced); diff != "" {
		t.Errorf("fenced (-want +got)\n%s", diff)
	}
	for _, c := range r.CleanCommands {
		if len(c) == 2 && c[0] == "schedule" {
			t.Error("a fenced command is counted as clean")
		}
	}
	clean, unavailable := 0, 0
	for _, c := range tree.Commands {
		if !c.Runnable || len(c.Path) == 2 && c.Path[0] == "schedule" {
			continue
		}
		if _, err := projector.Project(c); err == nil {
			clean++
		} else {
			unavailable++
		}
	}
	if r.Commands != len(tree.Commands) || r.Offerable != clean+unavailable || r.Clean != clean || len(r.Unavailable) != unavailable {
		t.Errorf("counts %+v (clean %d, unavailable %d)", r, clean, unavailable)
	}
	if r.Params.ByAction["pflag:ipNet"] != 1 || r.Params.ByType["array of string"] == 0 {
		t.Errorf("params %+v", r.Params)
	}
}
