package projector

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// fingerprintChildEnv makes the test binary print fingerprints and exit
// (see TestMain): the cross-process determinism test runs it.
const fingerprintChildEnv = "PROJECTOR_FINGERPRINT_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(fingerprintChildEnv) == "1" {
		fps, err := baseFingerprints()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		_ = json.NewEncoder(os.Stdout).Encode(fps)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fingerprintBase has one parameter of every arity, a group and defaults of
// every kind, so any drift in canonical form shows.
func fingerprintBase() *Command {
	return &Command{
		Path: []string{"agent", "submit"}, Runnable: true, Summary: "start one <agent> & \"run\"",
		Params: []*Param{
			{Name: "model", Options: []string{"--model"}, Kind: KindString, Arity: ArityOne, Required: true, Help: "model name"},
			{Name: "effort", Options: []string{"--effort"}, Kind: KindString, Arity: ArityOne, Choices: []any{"low", "high"}, Default: "low"},
			{Name: "budget", Options: []string{"--budget"}, Kind: KindNumber, Arity: ArityOne, Default: 2.5},
			{Name: "retries", Options: []string{"--retries"}, Kind: KindInteger, Arity: ArityOne, Default: 3, Minimum: f64(0)},
			{Name: "dry_run", Options: []string{"--dry-run"}, Kind: KindBoolean, Arity: ArityNone, FlagValue: true, Default: false},
			{Name: "tags", Options: []string{"--tag"}, Kind: KindString, Arity: ArityRepeated},
			{Name: "files", Kind: KindString, Arity: ArityZeroOrMore},
		},
		Groups: []Group{{Params: []string{"effort", "budget"}}},
	}
}

func baseFingerprints() (map[string]string, error) {
	out := map[string]string{}
	for _, verb := range []string{"agent.submit", "job.list", "ünïcode.verb"} {
		s, err := Project(fingerprintBase())
		if err != nil {
			return nil, err
		}
		fp, err := Fingerprint(verb, s)
		if err != nil {
			return nil, err
		}
		out[verb] = fp
	}
	return out, nil
}

func mustFingerprint(t *testing.T, verb string, cmd *Command) string {
	t.Helper()
	s, err := Project(cmd)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := Fingerprint(verb, s)
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

// TestFingerprintFormat pins contract C2 by recomputing a fingerprint from
// canonical JSON written out by hand.
func TestFingerprintFormat(t *testing.T) {
	s := &jsonschema.Schema{Type: "object", Description: "a<b",
		Properties:    map[string]*jsonschema.Schema{"z": {Type: "string"}, "a": {Type: "integer"}},
		PropertyOrder: []string{"z", "a"}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	canon := `{"schema":{"additionalProperties":false,"description":"a<b","properties":{"a":{"type":"integer"},"z":{"type":"string"}},"type":"object"},"verb":"x.y"}`
	sum := sha256.Sum256([]byte(canon))
	want := "sf1-" + hex.EncodeToString(sum[:])[:16]
	got, err := Fingerprint("x.y", s)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("Fingerprint = %s, want %s (sha256 of %s)", got, want, canon)
	}
	if !regexp.MustCompile(`^sf1-[0-9a-f]{16}$`).MatchString(got) {
		t.Fatalf("format %q", got)
	}
	if _, err := Fingerprint("x", nil); err == nil {
		t.Error("nil schema fingerprinted")
	}
	if got := ContentFingerprint([]byte("abc")); got != "pf1-ba7816bf8f01cfea" {
		t.Errorf("ContentFingerprint = %s", got)
	}
}

// TestFingerprintChanges: any change to a parameter's name, type, default,
// choices, arity or requiredness — or to the verb or a group — changes the
// fingerprint; re-projecting the same parser gives the same one.
func TestFingerprintChanges(t *testing.T) {
	base := mustFingerprint(t, "agent.submit", fingerprintBase())
	if again := mustFingerprint(t, "agent.submit", fingerprintBase()); again != base {
		t.Fatalf("re-projecting changed the fingerprint: %s then %s", base, again)
	}
	reordered := fingerprintBase()
	reordered.Params[1], reordered.Params[2] = reordered.Params[2], reordered.Params[1]
	if got := mustFingerprint(t, "agent.submit", reordered); got != base {
		t.Errorf("reordering options (no change to the caller's view) changed the fingerprint")
	}
	mutations := []struct {
		rule   string
		verb   string
		mutate func(c *Command)
	}{
		{"verb renamed", "agent.start", func(*Command) {}},
		{"parameter renamed", "", func(c *Command) { c.Params[0].Name = "model_name" }},
		{"type changed", "", func(c *Command) { c.Params[2].Kind = KindInteger }},
		{"default changed", "", func(c *Command) { c.Params[1].Default = "high" }},
		{"default of a number changed", "", func(c *Command) { c.Params[2].Default = 2.25 }},
		{"default added", "", func(c *Command) { c.Params[0].Default = "x" }},
		{"choice added", "", func(c *Command) { c.Params[1].Choices = append(c.Params[1].Choices, "max") }},
		{"choices reordered", "", func(c *Command) { c.Params[1].Choices = []any{"high", "low"} }},
		{"arity one to repeated", "", func(c *Command) { c.Params[0].Arity = ArityRepeated }},
		{"arity zero-or-more to one-or-more", "", func(c *Command) { c.Params[6].Arity = ArityOneOrMore }},
		{"now required", "", func(c *Command) { c.Params[3].Required = true }},
		{"no longer required", "", func(c *Command) { c.Params[0].Required = false }},
		{"bound changed", "", func(c *Command) { c.Params[3].Minimum = f64(1) }},
		{"help changed", "", func(c *Command) { c.Params[0].Help = "the model" }},
		{"parameter added", "", func(c *Command) {
			c.Params = append(c.Params, &Param{Name: "x", Options: []string{"--x"}, Kind: KindString, Arity: ArityOne})
		}},
		{"parameter removed", "", func(c *Command) { c.Params = c.Params[1:] }},
		{"group dropped", "", func(c *Command) { c.Groups = nil }},
		{"group made required", "", func(c *Command) { c.Groups[0].Required = true }},
	}
	seen := map[string]string{base: "base"}
	for _, m := range mutations {
		t.Run(m.rule, func(t *testing.T) {
			c := fingerprintBase()
			m.mutate(c)
			verb := m.verb
			if verb == "" {
				verb = "agent.submit"
			}
			fp := mustFingerprint(t, verb, c)
			if prev, dup := seen[fp]; dup {
				t.Fatalf("fingerprint %s equals that of %q", fp, prev)
			}
			seen[fp] = m.rule
		})
	}
}

// TestFingerprintAcrossProcesses re-executes the test binary (a new process,
// with its own map iteration order and allocation) and requires the same
// fingerprints.
func TestFingerprintAcrossProcesses(t *testing.T) {
	want, err := baseFingerprints()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fingerprintChildEnv+"=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("child: %v", err)
		}
		var got map[string]string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("child output %q: %v", out, err)
		}
		for verb, fp := range want {
			if got[verb] != fp {
				t.Errorf("verb %s: this process %s, child %s", verb, fp, got[verb])
			}
		}
	}
	if len(want) != 3 || strings.HasPrefix(want["job.list"], want["agent.submit"]) {
		t.Fatalf("fingerprints %v", want)
	}
}
