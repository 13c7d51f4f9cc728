//go:build unix

package verbsurface

import (
	"strings"
	"testing"
)

// fencedSpellings are names that must all be recognised as the fenced
// "state migrate" (or another default fenced path), one row per route a
// spelling can take around the fence.
var fencedSpellings = []struct{ rule, name string }{
	{"dotted verb form", "state.migrate"},
	{"space-separated path", "state migrate"},
	{"slash path", "state/migrate"},
	{"underscore (v1 synonym style)", "state_migrate"},
	{"hyphenated", "state-migrate"},
	{"colon", "state:migrate"},
	{"backslash", `state\migrate`},
	{"upper case", "STATE.MIGRATE"},
	{"mixed case", "State.Migrate"},
	{"camel case without separator", "stateMigrate"},
	{"no separator", "statemigrate"},
	{"surrounding whitespace", "  state.migrate \t\n"},
	{"doubled separators", "state..//migrate"},
	{"fullwidth letters", "ｓｔａｔｅ.ｍｉｇｒａｔｅ"},
	{"fullwidth dot", "state．migrate"},
	{"one-dot leader", "state\u2024migrate"},
	{"middle dot", "state·migrate"},
	{"division slash", "state\u2215migrate"},
	{"fraction slash", "state\u2044migrate"},
	{"unicode hyphen", "state\u2010migrate"},
	{"minus sign", "state\u2212migrate"},
	{"em dash", "state\u2014migrate"},
	{"ideographic space", "state\u3000migrate"},
	{"no-break space", "state\u00a0migrate"},
	{"Cyrillic a", "st\u0430te.migrate"},
	{"Cyrillic e and s", "stat\u0435.migr\u0430te"},
	{"Cyrillic capital letters", "\u0405TATE.MIGRATE"},
	{"Greek omicron and alpha", "st\u03b1te.migr\u03b1te"},
	{"Greek capital iota", "state.m\u0399grate"},
	{"zero-width space", "state\u200b.migrate"},
	{"zero-width joiner inside a word", "st\u200date.mig\u200crate"},
	{"byte order mark", "\ufeffstate.migrate"},
	{"soft hyphen", "sta\u00adte.migrate"},
	{"combining mark", "sta\u0301te.migrate"},
	{"mathematical bold", "\U0001d42c\U0001d42d\U0001d41a\U0001d42d\U0001d41e.migrate"},
	{"long s", "\u017ftate.migrate"},
	{"subcommand of a fenced path", "state.migrate.now"},
	{"trailing option", "state migrate --force"},
	{"near miss: dropped letter", "state.migrat"},
	{"near miss: transposed letters", "state.mirgate"},
	{"near miss: extra letter", "states.migrate"},
	{"plugin trust", "plugin.trust"},
	{"hooks trust, slash and case", "Hooks/Trust"},
	{"hooks trust, near miss", "hook.trust"},
}

func TestFenceRecognisesEverySpelling(t *testing.T) {
	f, err := newFence(DefaultFence)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range fencedSpellings {
		t.Run(tt.rule, func(t *testing.T) {
			if _, ok := f.matchName(tt.name); !ok {
				t.Errorf("%q (%+q) passes the fence", tt.name, tt.name)
			}
		})
	}
}

func TestFenceLetsOrdinaryNamesThrough(t *testing.T) {
	f, err := newFence(DefaultFence)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"state.show", "state", "migrate", "job.status", "plugin.list", "hooks.list",
		"agent.submit", "schedule.migrate", "trust", "statement.migrate.x"} {
		if p, ok := f.matchName(name); ok {
			t.Errorf("%q is fenced as %q", name, p)
		}
	}
}

func TestRegisterRefusesFencedVerbs(t *testing.T) {
	tests := []struct {
		rule string
		verb Verb
	}{
		{"fenced path", Verb{Name: "store.migrate", Class: ClassControl, Path: []string{"state", "migrate"}}},
		{"fenced path in another case", Verb{Name: "store.migrate", Class: ClassControl, Path: []string{"State", "MIGRATE"}}},
		{"fenced path with whitespace", Verb{Name: "store.migrate", Class: ClassControl, Path: []string{" state", "migrate "}}},
		{"fenced path as one element", Verb{Name: "store.migrate", Class: ClassControl, Path: []string{"state/migrate"}}},
		{"fenced path without a separator", Verb{Name: "store.migrate", Class: ClassControl, Path: []string{"stateMigrate"}}},
		{"fenced path with look-alikes", Verb{Name: "store.migrate", Class: ClassControl, Path: []string{"ѕtate", "migrаte"}}},
		{"subcommand of a fenced path", Verb{Name: "store.migrate", Class: ClassControl, Path: []string{"state", "migrate", "now"}}},
		{"plugin trust", Verb{Name: "plugins.allow", Class: ClassControl, Path: []string{"plugin", "trust"}}},
		{"hooks trust", Verb{Name: "hooks.allow", Class: ClassControl, Path: []string{"hooks", "trust"}}},
		{"fenced verb name over a harmless path", Verb{Name: "state.migrate", Class: ClassObserve, Path: []string{"job", "list"}}},
		{"near-miss verb name", Verb{Name: "state.migrates", Class: ClassObserve, Path: []string{"job", "list"}}},
		{"fenced synonym", Verb{Name: "job.list", Class: ClassObserve, Path: []string{"job", "list"}, Synonyms: []string{"state_migrate"}}},
		{"fenced synonym without separator", Verb{Name: "job.list", Class: ClassObserve, Path: []string{"job", "list"}, Synonyms: []string{"plugintrust"}}},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			reg, err := NewRegistry(nil)
			if err != nil {
				t.Fatal(err)
			}
			err = reg.Register(tt.verb)
			if err == nil || !strings.Contains(err.Error(), "fenced") {
				t.Errorf("Register(%+v) = %v, want a fenced refusal", tt.verb, err)
			}
			if len(reg.Verbs()) != 0 {
				t.Errorf("a refused verb was registered: %v", reg.Verbs())
			}
		})
	}
}

func TestFenceIsConfigurable(t *testing.T) {
	reg, err := NewRegistry(&RegistryOptions{Fence: [][]string{{"db", "drop"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.Register(Verb{Name: "db.wipe", Class: ClassControl, Path: []string{"db", "drop"}}); err == nil {
		t.Error("registered a verb on the configured fenced path")
	}
	if err := reg.Register(Verb{Name: "store.migrate", Class: ClassControl, Path: []string{"state", "migrate"}}); err != nil {
		t.Errorf("a custom fence still fenced the default paths: %v", err)
	}
	open, err := NewRegistry(&RegistryOptions{Fence: [][]string{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := open.Register(Verb{Name: "store.migrate", Class: ClassControl, Path: []string{"state", "migrate"}}); err != nil {
		t.Errorf("an empty fence refused: %v", err)
	}
	if _, err := NewRegistry(&RegistryOptions{Fence: [][]string{{" ", "\u200b"}}}); err == nil {
		t.Error("accepted a fence entry that folds to nothing")
	}
}

// TestFencedNamesAreNotAllowedOnEveryRoute sends each fenced spelling as an
// op, as help by name, and as help in object form: each answer is
// not_allowed with the human-at-a-terminal sentence, and the fixture CLI's
// migrate command never runs.
func TestFencedNamesAreNotAllowedOnEveryRoute(t *testing.T) {
	fx := newFixture(t)
	for _, tt := range fencedSpellings {
		t.Run(tt.rule, func(t *testing.T) {
			name := quote(tt.name)
			routes := map[string]map[string]any{}
			resp := fx.do(t, `{"ops":[{"op":`+name+`,"args":{}}]}`)
			r := result(t, resp, 0)
			if r["class"] != "none" || r["ok"] != false {
				t.Errorf("op result %v", r)
			}
			routes["op"] = r["error"].(map[string]any)
			routes["help by name"] = fx.do(t, `{"help":`+name+`}`)["help"].(map[string]any)["error"].(map[string]any)
			routes["help object"] = fx.do(t, `{"help":{"verb":`+name+`}}`)["help"].(map[string]any)["error"].(map[string]any)
			for route, e := range routes {
				if e["code"] != CodeNotAllowed {
					t.Errorf("%s: code %v, want not_allowed: %v", route, e["code"], e)
				}
				if msg, _ := e["message"].(string); !strings.Contains(msg, "human-at-a-terminal") {
					t.Errorf("%s: message does not say it is a human-at-a-terminal operation: %q", route, msg)
				}
			}
		})
	}
	if fileExists(fx.env.State+"/MIGRATED", 0) {
		t.Fatal("the fenced command ran")
	}
}

// TestFenceCatchesAliasedPaths registers a verb on an alias of the fenced
// command, which the registry cannot know: the live tree resolves it to
// the fenced path, so ops and help are not_allowed and the catalog never
// names it.
func TestFenceCatchesAliasedPaths(t *testing.T) {
	fx := newFixture(t, func(c *fixtureConfig) {
		c.verbs = func(fx *fixture) []Verb {
			return append(fixtureVerbs(fx), Verb{Name: "store.upgrade", Class: ClassControl, Path: []string{"state", "upgrade"}, Summary: "upgrade"})
		}
	})
	r := result(t, fx.do(t, `{"ops":[{"op":"store.upgrade"}]}`), 0)
	if errCode(r) != CodeNotAllowed {
		t.Errorf("op on an aliased fenced path: %v", r)
	}
	h := fx.do(t, `{"help":"store.upgrade"}`)["help"].(map[string]any)
	if h["error"].(map[string]any)["code"] != CodeNotAllowed {
		t.Errorf("help on an aliased fenced path: %v", h)
	}
	cat := mustJSON(t, fx.do(t, `{"help":true}`)["help"])
	if strings.Contains(cat, "store.upgrade") || strings.Contains(cat, "migrate") {
		t.Errorf("catalog names the fenced command: %s", cat)
	}
	if fileExists(fx.env.State+"/MIGRATED", 0) {
		t.Fatal("the fenced command ran")
	}
}
