//go:build unix

package playbook_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/cli"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/playbook"
)

const audit = `description: Audit
args:
  - {name: depth, type: int, default: 2, help: how deep, choices: [1, 2, 3]}
  - {name: target, type: str, required: true}
  - {name: ratio, type: float, default: 0.5}
  - {name: strict, type: bool}
flow:
  steps:
    - {id: scan, model: echo, prompt: "{{.args.target}}"}
`

func home(t *testing.T, files map[string]string) string {
	t.Helper()
	h := t.TempDir()
	for name, content := range files {
		p := playbook.Path(h, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func play(root *cobra.Command) *cobra.Command {
	for _, c := range root.Commands() {
		if c.Name() == "play" {
			return c
		}
	}
	return nil
}

func TestFingerprintIsPf1AndSixteenHex(t *testing.T) {
	sum := sha256.Sum256([]byte(audit))
	if got, want := playbook.Fingerprint([]byte(audit)), "pf1-"+hex.EncodeToString(sum[:])[:16]; got != want {
		t.Fatalf("Fingerprint = %s; want %s", got, want)
	}
	if playbook.Fingerprint([]byte(audit)) == playbook.Fingerprint([]byte(audit+" ")) {
		t.Fatal("a content change kept the fingerprint")
	}
}

func TestInjectAddsTypedFlags(t *testing.T) {
	h := home(t, map[string]string{"audit": audit})
	root := cli.NewRoot(cli.Options{})
	fp, err := playbook.Inject(root, h, "audit")
	if err != nil {
		t.Fatal(err)
	}
	if fp != playbook.Fingerprint([]byte(audit)) {
		t.Fatalf("fingerprint %s", fp)
	}
	p := play(root)
	types := map[string]string{}
	for _, n := range []string{"depth", "target", "ratio", "strict"} {
		f := p.Flags().Lookup(n)
		if f == nil {
			t.Fatalf("flag --%s not injected", n)
		}
		types[n] = f.Value.Type() + "=" + f.DefValue
	}
	want := map[string]string{"depth": "int64=2", "target": "string=", "ratio": "float64=0.5", "strict": "bool=false"}
	if d := cmp.Diff(want, types); d != "" {
		t.Fatalf("flag types and defaults (-want +got):\n%s", d)
	}
	if v := p.Flags().Lookup("target").Annotations[cobra.BashCompOneRequiredFlag]; len(v) != 1 || v[0] != "true" {
		t.Fatal("a required arg is not marked required")
	}
	if err := p.Flags().Set("depth", "5"); err == nil || !strings.Contains(err.Error(), "one of 1, 2, 3") {
		t.Fatalf("setting a value outside the choices: %v", err)
	}
	if err := p.Flags().Parse([]string{"--depth=3", "--strict", "--target", "repo"}); err != nil {
		t.Fatal(err)
	}
	pb, gotFP, values, ok, err := playbook.Injected(p)
	if err != nil || !ok || pb.Name != "audit" || gotFP != fp {
		t.Fatalf("Injected = %v, %s, %v, %v", pb, gotFP, ok, err)
	}
	if d := cmp.Diff(map[string]any{"depth": int64(3), "target": "repo", "ratio": 0.5, "strict": true}, values); d != "" {
		t.Fatalf("values (-want +got):\n%s", d)
	}
	if _, err := playbook.Inject(root, h, "audit"); err == nil {
		t.Fatal("a second injection into one tree succeeded")
	}
	if play(cli.NewRoot(cli.Options{})).Flags().Lookup("depth") != nil {
		t.Fatal("injection leaked into a fresh tree")
	}
}

func TestInjectPinsTheContentItRead(t *testing.T) {
	h := home(t, map[string]string{"audit": audit})
	root := cli.NewRoot(cli.Options{})
	fp, err := playbook.Inject(root, h, "audit")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(playbook.Path(h, "audit"), []byte("flow: {steps: [{id: x, model: echo, prompt: changed}]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pb, gotFP, _, _, err := playbook.Injected(play(root))
	if err != nil || gotFP != fp || pb.Flow.Steps[0].ID != "scan" {
		t.Fatalf("the injected playbook changed with the file: %v %s %v", err, gotFP, pb)
	}
}

func TestLoadErrors(t *testing.T) {
	h := home(t, map[string]string{
		"req-default": "args: [{name: a, type: str, required: true, default: x}]\nflow: {steps: [{id: s, model: echo, prompt: p}]}\n",
		"bool-choice": "args: [{name: a, type: bool, choices: [true]}]\nflow: {steps: [{id: s, model: echo, prompt: p}]}\n",
		"bad-name":    "args: [{name: Bad_Name, type: str}]\nflow: {steps: [{id: s, model: echo, prompt: p}]}\n",
		"dup":         "args: [{name: a, type: str}, {name: a, type: int}]\nflow: {steps: [{id: s, model: echo, prompt: p}]}\n",
		"empty":       "",
		"two-docs":    "flow: {steps: [{id: s, model: echo, prompt: p}]}\n---\nargs: [{name: a, type: str}]\n",
		"choice-zero": "args: [{name: mode, type: str, choices: [fast, slow]}]\nflow: {steps: [{id: s, model: echo, prompt: p}]}\n",
	})
	tests := []struct {
		name, playbook string
		code           machine.Code
		field          string
	}{
		{"a missing file", "absent", machine.PlaybookNotFound, ""},
		{"a path in the name", "../etc", machine.PlaybookNotFound, ""},
		{"required with a default", "req-default", machine.InvalidPlaybook, "args[0].default"},
		{"a bool with choices", "bool-choice", machine.InvalidPlaybook, "args[0].choices"},
		{"a name that is not a flag", "bad-name", machine.InvalidPlaybook, "args[0].name"},
		{"a duplicate arg", "dup", machine.InvalidPlaybook, "args[1].name"},
		{"an empty file", "empty", machine.InvalidPlaybook, ""},
		{"a second YAML document", "two-docs", machine.InvalidPlaybook, ""},
		{"choices without a default or required: the zero value is no choice", "choice-zero", machine.InvalidPlaybook, "args[0].default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := playbook.Load(h, tt.playbook)
			me, ok := machine.As(err)
			if !ok || me.Code != tt.code {
				t.Fatalf("Load = %v; want %s", err, tt.code)
			}
			if tt.code == machine.InvalidPlaybook && me.Details.(map[string]any)["field"] != tt.field {
				t.Fatalf("field = %v; want %q", me.Details, tt.field)
			}
		})
	}
}

// TestOmittedChoiceArgIsAChoice: whatever a playbook declares, an arg with
// choices whose flag is not given never reaches the run as a value outside
// its choices.
func TestOmittedChoiceArgIsAChoice(t *testing.T) {
	h := home(t, map[string]string{
		"defaulted": "args: [{name: mode, type: str, default: slow, choices: [fast, slow]}]\nflow: {steps: [{id: s, model: echo, prompt: p}]}\n",
		"required":  "args: [{name: mode, type: int, required: true, choices: [1, 2]}]\nflow: {steps: [{id: s, model: echo, prompt: p}]}\n",
	})
	root := cli.NewRoot(cli.Options{})
	if _, err := playbook.Inject(root, h, "defaulted"); err != nil {
		t.Fatal(err)
	}
	_, _, values, _, err := playbook.Injected(play(root))
	if err != nil || values["mode"] != "slow" {
		t.Fatalf("omitted --mode = %v, %v; want the default", values["mode"], err)
	}
	if _, _, err := playbook.Load(h, "required"); err != nil {
		t.Fatalf("a required arg with choices and no default was refused: %v", err)
	}
}
