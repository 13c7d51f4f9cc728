//go:build unix

package guard_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/cli"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/guard"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/notify"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/playbook"
)

// writePlaybook writes <home>/playbooks/NAME.playbook.yaml with one arg
// "mode" of the given type.
func writePlaybook(t *testing.T, home, name, modeType string) {
	t.Helper()
	dir := filepath.Join(home, "playbooks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	body := "description: test\nargs:\n  - {name: mode, type: " + modeType + ", help: how}\n  - {name: note, type: str, help: a note}\n" +
		"flow:\n  steps:\n    - {id: s, model: echo, prompt: \"{{.prompt}}\"}\n"
	if err := os.WriteFile(filepath.Join(dir, name+".playbook.yaml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func injector(home string) guard.Injector {
	return func(root *cobra.Command, name string) error {
		_, err := playbook.Inject(root, home, name)
		return err
	}
}

// TestCheck: one row per refusal rule, in the order Check documents, and
// the spellings a token scan misses.
func TestCheck(t *testing.T) {
	home := t.TempDir()
	writePlaybook(t, home, "audit", "str")
	tests := []struct {
		name   string
		argv   []string
		reason string // "" passes
	}{
		{"a plain spawn command passes", []string{"agent", "echo", "hi"}, ""},
		{"a forbidden word after -- is a positional, not a flag", []string{"agent", "echo", "--", "--notify-command=/bin/sh"}, ""},
		{"not a spawn command", []string{"kill", "abcdefgh"}, "must start with agent, fanout, flow, play"},
		{"nothing at all", nil, "must start with"},
		{"a flag that does not parse", []string{"agent", "--bogus", "echo"}, "do not parse"},
		{"--notify-command=", []string{"agent", "--notify-command=/bin/sh", "echo", "x"}, "--notify-command"},
		{"--notify-command VALUE", []string{"agent", "--notify-command", "/bin/sh", "echo", "x"}, "--notify-command"},
		{"--notify-url", []string{"fanout", "-n", "2", "--notify-url", "http://127.0.0.1:1/x", "echo", "x"}, "--notify-url"},
		{"--home", []string{"agent", "--home=/elsewhere", "echo", "x"}, "--home"},
		{"--json", []string{"agent", "--json", "echo", "x"}, "--json"},
		{"after a flag whose value is the literal --, where a scan stops", []string{"play", "audit", "--note", "--", "--notify-command=/bin/sh", "x"}, "--notify-command"},
		{"a playbook flag in --flag=value form before the name parses as the binary parses it", []string{"play", "--mode=x", "audit"}, ""},
		{"an unknown playbook", []string{"play", "nosuch", "x"}, "playbook \"nosuch\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := guard.Check(cli.NewRoot(cli.Options{}), tt.argv, injector(home))
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("Check(%q) = %v; want it to pass", tt.argv, err)
				}
				return
			}
			var r *guard.Refusal
			if !errors.As(err, &r) || !strings.Contains(r.Reason, tt.reason) {
				t.Fatalf("Check(%q) = %v; want a refusal containing %q", tt.argv, err, tt.reason)
			}
		})
	}
}

// TestCheckAfterPlaybookChangedType is the attack: stored while
// the playbook's "mode" took a value (so the notify flag was that value),
// the same words set --notify-command once "mode" became a bool. The
// guard, run again with the playbook as it is now, refuses.
func TestCheckAfterPlaybookChangedType(t *testing.T) {
	home := t.TempDir()
	writePlaybook(t, home, "audit", "str")
	// "--note --" hides the rest from a scan that stops at the first "--".
	argv := []string{"play", "audit", "--note", "--", "--mode", "--notify-command=/bin/sh", "go"}
	if err := guard.Check(cli.NewRoot(cli.Options{}), argv, injector(home)); err != nil {
		t.Fatalf("while mode is a string the command is harmless: %v", err)
	}
	writePlaybook(t, home, "audit", "bool")
	err := guard.Check(cli.NewRoot(cli.Options{}), argv, injector(home))
	var r *guard.Refusal
	if !errors.As(err, &r) || r.Forbidden != "notify-command" || !strings.Contains(r.Reason, "--notify-command") {
		t.Fatalf("after mode became a bool: %v; want the notify command refused", err)
	}
}

// TestNamesStayTheCLIs: the names the guard keeps instead of importing the
// CLI's packages are theirs.
func TestNamesStayTheCLIs(t *testing.T) {
	if guard.PlayCommand != playbook.PlayCommand {
		t.Errorf("guard.PlayCommand = %q; playbook has %q", guard.PlayCommand, playbook.PlayCommand)
	}
	for _, f := range notify.Flags {
		found := false
		for _, g := range guard.Forbidden {
			found = found || f == g
		}
		if !found {
			t.Errorf("notify flag --%s is not forbidden in stored commands", f)
		}
	}
}

// TestPrompts: one row per place a stored command carries its prompt, and
// the conservative answer when the command does not parse.
func TestPrompts(t *testing.T) {
	home := t.TempDir()
	writePlaybook(t, home, "audit", "str")
	for _, tt := range []struct {
		name string
		argv []string
		want []string
	}{
		{"agent's PROMPT positional", []string{"agent", "echo", "the secret plan"}, []string{"the secret plan"}},
		{"after --", []string{"agent", "echo", "--", "--looks-like-a-flag"}, []string{"--looks-like-a-flag"}},
		{"after flags with values", []string{"fanout", "-n", "3", "--label", "nightly", "echo", "fan me"}, []string{"fan me"}},
		{"flow's only positional", []string{"flow", "--spec=x.yaml", "flow words"}, []string{"flow words"}},
		{"a play, its playbook's flags injected", []string{"play", "audit", "--note", "n", "play words"}, []string{"play words"}},
		{"a prompt flag's value", []string{"agent", "--prompt-file=/p.md", "echo"}, []string{"/p.md"}},
		{"no prompt at all", []string{"agent", "echo"}, nil},
		{"flags that do not parse: every word", []string{"agent", "--bogus", "echo", "hidden"}, []string{"--bogus", "echo", "hidden"}},
		{"not a spawn command: every word", []string{"team", "post", "t", "words"}, []string{"post", "t", "words"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := guard.Prompts(cli.NewRoot(cli.Options{}), tt.argv, injector(home))
			if strings.Join(got, "\x00") != strings.Join(tt.want, "\x00") {
				t.Fatalf("Prompts(%q) = %q; want %q", tt.argv, got, tt.want)
			}
		})
	}
}
