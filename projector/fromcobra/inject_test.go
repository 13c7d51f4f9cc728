package fromcobra

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromcobra/internal/fixture"
)

func TestInjector(t *testing.T) {
	defs := map[string]string{
		"audit":  "scope string what to audit\ndepth int how deep",
		"deploy": "target string where to",
	}
	inj := NewInjector(func() *cobra.Command { return fixture.New(nil) }, []string{"play"},
		fixture.InjectPlaybook(defs, projector.ContentFingerprint), fixtureOptions)

	schemaFP := func(value string) (cmd *projector.Command, content, schema string) {
		t.Helper()
		cmd, content, err := inj(value)
		if err != nil {
			t.Fatal(err)
		}
		s, err := projector.Project(cmd)
		if err != nil {
			t.Fatal(err)
		}
		fp, err := projector.Fingerprint("play.submit", s)
		if err != nil {
			t.Fatal(err)
		}
		return cmd, content, fp
	}
	base, err := projector.Project(mustFind(t, fixtureTree(t), "play"))
	if err != nil {
		t.Fatal(err)
	}
	baseFP, _ := projector.Fingerprint("play.submit", base)

	cmd, c1, s1 := schemaFP("audit")
	if param(t, cmd, "scope") == nil || param(t, cmd, "depth") == nil || param(t, cmd, "prompt") == nil {
		t.Fatalf("injected parameters missing: %+v", cmd.Params)
	}
	if c1 != projector.ContentFingerprint([]byte(defs["audit"])) || !strings.HasPrefix(c1, "pf1-") {
		t.Errorf("content fingerprint %q", c1)
	}
	if s1 == baseFP {
		t.Error("injection did not change the schema fingerprint")
	}
	if _, c1again, s1again := schemaFP("audit"); c1again != c1 || s1again != s1 {
		t.Error("same playbook, different fingerprints")
	}

	// A fresh tree per call: the next playbook does not carry the last one's flags.
	cmd, c2, s2 := schemaFP("deploy")
	if param(t, cmd, "scope") != nil || param(t, cmd, "target") == nil {
		t.Errorf("deploy carries audit's flags or lacks its own: %+v", cmd.Params)
	}
	if c2 == c1 || s2 == s1 {
		t.Error("different playbooks, same fingerprint")
	}

	// Changing the definition changes both fingerprints.
	defs["audit"] = "scope string what to audit\ndepth string how deep"
	_, c3, s3 := schemaFP("audit")
	if c3 == c1 || s3 == s1 {
		t.Errorf("changed definition: content %s→%s, schema %s→%s", c1, c3, s1, s3)
	}
	// Changing only help text changes the content and, through the
	// description, the schema.
	defs["audit"] = "scope string what to audit, now with more words\ndepth string how deep"
	if _, c4, s4 := schemaFP("audit"); c4 == c3 || s4 == s3 {
		t.Error("changed help text did not change the fingerprints")
	}

	if _, _, err := inj("missing"); err == nil || !strings.Contains(err.Error(), `no playbook "missing"`) {
		t.Errorf("unknown playbook: %v", err)
	}
	noFP := NewInjector(func() *cobra.Command { return fixture.New(nil) }, []string{"play"},
		func(*cobra.Command, string) (string, error) { return "", nil }, nil)
	if _, _, err := noFP("x"); err == nil {
		t.Error("an empty content fingerprint was accepted")
	}
	wrongPath := NewInjector(func() *cobra.Command { return fixture.New(nil) }, []string{"nope"},
		fixture.InjectPlaybook(defs, projector.ContentFingerprint), nil)
	if _, _, err := wrongPath("audit"); err == nil {
		t.Error("a missing command path was accepted")
	}
}
