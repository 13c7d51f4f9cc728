//go:build unix

package kill

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestDecide(t *testing.T) {
	group := &Group{PGID: 4242, Leader: Identity{PID: 4242, StartTime: 987654}}
	refused := func(rule Rule, code string) Decision {
		return Decision{Action: ActionRefuse, Rule: rule, Refusal: &Refusal{Code: code}}
	}
	delegated := func(kind Kind, id string) Decision {
		return Decision{Action: ActionDelegate, Rule: RuleEntity, Entity: &Entity{Kind: kind, ID: id}}
	}
	// One row per rule, named by the rule; rows named rule/variant show
	// that an earlier rule wins over what a later one would do.
	for _, tc := range []struct {
		name string
		r    Record
		want Decision
	}{
		{"show_level", Record{Kind: KindShow, ID: "sh-1"},
			refused(RuleShowLevel, CodeShowKillUnsupported)},
		{"show_level/even with a server group", Record{Kind: KindShow, ID: "sh-1", Group: group, ServerCreatedGroup: true},
			refused(RuleShowLevel, CodeShowKillUnsupported)},
		{"show_level/even without an id", Record{Kind: KindShow},
			refused(RuleShowLevel, CodeShowKillUnsupported)},
		{"entity", Record{Kind: KindPlay, ID: "p-1"},
			delegated(KindPlay, "p-1")},
		{"entity/session", Record{Kind: KindSession, ID: "s-1"},
			delegated(KindSession, "s-1")},
		{"entity/invocation", Record{Kind: KindInvocation, ID: "-i-1"},
			delegated(KindInvocation, "-i-1")},
		{"entity/a server group beside the entity is not signalled", Record{Kind: KindPlay, ID: "p-1", Group: group, ServerCreatedGroup: true},
			delegated(KindPlay, "p-1")},
		{"undelegable_entity", Record{Kind: "schedule", ID: "sc-1"},
			refused(RuleUndelegableEntity, CodeNoKillTarget)},
		{"undelegable_entity/kind without id, even with a server group", Record{Kind: KindPlay, Group: group, ServerCreatedGroup: true},
			refused(RuleUndelegableEntity, CodeNoKillTarget)},
		{"undelegable_entity/id without kind, even with a server group", Record{ID: "p-1", Group: group, ServerCreatedGroup: true},
			refused(RuleUndelegableEntity, CodeNoKillTarget)},
		{"no_group", Record{},
			refused(RuleNoGroup, CodeNoKillTarget)},
		{"no_group/server flag without a group", Record{ServerCreatedGroup: true},
			refused(RuleNoGroup, CodeNoKillTarget)},
		{"foreign_group", Record{Group: group},
			refused(RuleForeignGroup, CodeNoKillTarget)},
		{"malformed_group/leader is not the group id", Record{Group: &Group{PGID: 4242, Leader: Identity{PID: 4243, StartTime: 1}}, ServerCreatedGroup: true},
			refused(RuleMalformedGroup, CodeNoKillTarget)},
		{"malformed_group/no start time", Record{Group: &Group{PGID: 4242, Leader: Identity{PID: 4242}}, ServerCreatedGroup: true},
			refused(RuleMalformedGroup, CodeNoKillTarget)},
		{"malformed_group/group 1", Record{Group: &Group{PGID: 1, Leader: Identity{PID: 1, StartTime: 1}}, ServerCreatedGroup: true},
			refused(RuleMalformedGroup, CodeNoKillTarget)},
		{"malformed_group/no group id", Record{Group: &Group{}, ServerCreatedGroup: true},
			refused(RuleMalformedGroup, CodeNoKillTarget)},
		{"server_group", Record{Group: group, ServerCreatedGroup: true},
			Decision{Action: ActionSignalGroup, Rule: RuleServerGroup, Group: group}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Decide(tc.r)
			ignoreText := cmp.Options{cmpopts.IgnoreFields(Decision{}, "Reason"), cmpopts.IgnoreFields(Refusal{}, "Message")}
			if diff := cmp.Diff(tc.want, got, ignoreText); diff != "" {
				t.Errorf("Decide(%+v) (-want +got):\n%s", tc.r, diff)
			}
			if got.Reason == "" || (got.Refusal != nil && got.Refusal.Message == "") {
				t.Errorf("Decide(%+v) gives no reason: %+v", tc.r, got)
			}
			set := 0
			for _, p := range []bool{got.Entity != nil, got.Group != nil, got.Refusal != nil} {
				if p {
					set++
				}
			}
			if set != 1 {
				t.Errorf("Decide(%+v) sets %d of entity, group, refusal; want exactly one", tc.r, set)
			}
		})
	}
}

// The decision must not alias the record: a caller mutating its record
// after deciding cannot change what will be signalled.
func TestDecideCopiesTheGroup(t *testing.T) {
	r := Record{Group: &Group{PGID: 4242, Leader: Identity{PID: 4242, StartTime: 9}}, ServerCreatedGroup: true}
	d := Decide(r)
	r.Group.PGID, r.Group.Leader.PID = 1, 1
	if d.Group.PGID != 4242 || d.Group.Leader.PID != 4242 {
		t.Fatalf("decision's group changed with the record: %+v", d.Group)
	}
}
