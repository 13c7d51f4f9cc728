//go:build unix

package kill_test

import (
	"fmt"

	"github.com/verbsurface/verbsurface/kill"
)

func ExampleDecide() {
	group := &kill.Group{PGID: 4242, Leader: kill.Identity{PID: 4242, StartTime: 987654}}
	for _, r := range []kill.Record{
		{Kind: kill.KindPlay, ID: "p-7", Group: group, ServerCreatedGroup: true}, // the entity wins; the group is never signalled
		{Group: group, ServerCreatedGroup: true},                                 // no entity: the server's own group
		{Group: group},                                                           // a group the server did not create
		{Kind: kill.KindShow, ID: "sh-1"},
	} {
		d := kill.Decide(r)
		switch d.Action {
		case kill.ActionDelegate:
			fmt.Println(d.Rule, "->", d.Action, d.Entity.Kind, d.Entity.ID)
		case kill.ActionSignalGroup:
			fmt.Println(d.Rule, "->", d.Action, d.Group.PGID)
		case kill.ActionRefuse:
			fmt.Println(d.Rule, "->", d.Action, d.Refusal.Code)
		}
	}
	// Output:
	// entity -> delegate play p-7
	// server_group -> signal_group 4242
	// foreign_group -> refuse no_kill_target
	// show_level -> refuse show_kill_unsupported
}
