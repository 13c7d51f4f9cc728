//go:build unix

package kill

import "fmt"

// Action is what a kill does to a record: exactly one per [Decision].
type Action string

const (
	// ActionDelegate runs the CLI's own kill of the record's entity.
	ActionDelegate Action = "delegate"
	// ActionSignalGroup signals the process group the server created.
	ActionSignalGroup Action = "signal_group"
	// ActionRefuse does nothing and says why.
	ActionRefuse Action = "refuse"
)

// Rule names the policy rule that decided, in the words of [Decide]'s doc.
type Rule string

// The rules of [Decide], in the order they are checked.
const (
	RuleShowLevel         Rule = "show_level"
	RuleEntity            Rule = "entity"
	RuleUndelegableEntity Rule = "undelegable_entity"
	RuleNoGroup           Rule = "no_group"
	RuleForeignGroup      Rule = "foreign_group"
	RuleMalformedGroup    Rule = "malformed_group"
	RuleServerGroup       Rule = "server_group"
)

// Refusal codes.
const (
	// CodeShowKillUnsupported: the record is show-level. A kill that
	// silently half-stops a tree is worse than none, so none is offered.
	CodeShowKillUnsupported = "show_kill_unsupported"
	// CodeNoKillTarget: nothing about the record can be killed safely.
	CodeNoKillTarget = "no_kill_target"
)

// Refusal is why a kill was refused.
type Refusal struct {
	Code    string `json:"code"` // CodeShowKillUnsupported or CodeNoKillTarget
	Message string `json:"message"`
}

// Decision is the kill policy's verdict on one record. Exactly one of
// Entity (delegate), Group (signal_group) or Refusal (refuse) is set.
type Decision struct {
	Action  Action   `json:"action"`
	Rule    Rule     `json:"rule"`   // the rule that decided
	Reason  string   `json:"reason"` // that rule, said about this record
	Entity  *Entity  `json:"entity,omitempty"`
	Group   *Group   `json:"group,omitempty"`
	Refusal *Refusal `json:"refusal,omitempty"`
}

// Decide chooses how to kill the run r describes. It is pure: it reads
// neither the process table nor the clock, and it signals nothing. The
// rules, in the order they are checked (the first that matches decides):
//
//  1. show_level: a show-level record (Kind "show") is refused with
//     [CodeShowKillUnsupported], whatever else it carries. Show-level kill
//     is not offered: one that silently half-stops a tree is worse than
//     none.
//  2. entity: a record with a durable entity identity (Kind play, session
//     or invocation, and a non-empty ID) is delegated to the CLI's kill of
//     that entity, so transitive reaping, lifecycle transitions, reason
//     codes and notification are the CLI's. A process group recorded beside
//     the entity is ignored, now and if the delegated kill fails.
//  3. undelegable_entity: a record naming an entity that cannot be
//     delegated (an unknown kind, a kind without an ID, an ID without a
//     kind) is refused with [CodeNoKillTarget]: its processes are governed
//     by lifecycle rows, so signalling them would stop processes while the
//     rows claim otherwise.
//  4. no_group: with no entity and no recorded group, refused with
//     [CodeNoKillTarget].
//  5. foreign_group: a group the server did not create itself is refused
//     with [CodeNoKillTarget]: the server cannot vouch for the identity it
//     would check.
//  6. malformed_group: a server-created group without a usable leader
//     identity (PGID <= 1, leader pid not equal to the PGID, no start time)
//     is refused with [CodeNoKillTarget]: without pid and start time a
//     reused pid could not be told apart.
//  7. server_group: otherwise the group is signalled (see [SignalGroup],
//     which checks the leader's identity before any signal).
func Decide(r Record) Decision {
	switch {
	case r.Kind == KindShow:
		return refuse(RuleShowLevel, CodeShowKillUnsupported,
			fmt.Sprintf("show %q: show-level kill is not offered; kill its plays one by one", r.ID))
	case r.Kind.delegable() && r.ID != "":
		return Decision{
			Action: ActionDelegate,
			Rule:   RuleEntity,
			Reason: fmt.Sprintf("%s %q has a durable identity: the CLI's kill reaps it and records why", r.Kind, r.ID),
			Entity: &Entity{Kind: r.Kind, ID: r.ID},
		}
	case r.Kind != "" || r.ID != "":
		return refuse(RuleUndelegableEntity, CodeNoKillTarget,
			fmt.Sprintf("record names an entity that cannot be delegated (kind %q, id %q); signalling its processes would bypass its lifecycle rows", r.Kind, r.ID))
	case r.Group == nil:
		return refuse(RuleNoGroup, CodeNoKillTarget,
			"record has no entity identity and no process group: nothing to kill")
	case !r.ServerCreatedGroup:
		return refuse(RuleForeignGroup, CodeNoKillTarget,
			fmt.Sprintf("process group %d was not created by the server, which therefore cannot vouch for its leader's identity", r.Group.PGID))
	}
	if err := r.Group.validate(); err != nil {
		return refuse(RuleMalformedGroup, CodeNoKillTarget, err.Error())
	}
	g := *r.Group
	return Decision{
		Action: ActionSignalGroup,
		Rule:   RuleServerGroup,
		Reason: fmt.Sprintf("no entity identity; the server created process group %d with leader pid %d (start time %d)", g.PGID, g.Leader.PID, g.Leader.StartTime),
		Group:  &g,
	}
}

func refuse(rule Rule, code, msg string) Decision {
	return Decision{Action: ActionRefuse, Rule: rule, Reason: msg, Refusal: &Refusal{Code: code, Message: msg}}
}
