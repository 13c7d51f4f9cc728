package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/notify"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/playbook"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromcobra"
)

func TestPrescan(t *testing.T) {
	tests := []struct {
		args []string
		json bool
		home string
	}{
		{[]string{"job", "list"}, false, ""},
		{[]string{"--json", "job", "list"}, true, ""},
		{[]string{"job", "list", "--json=true"}, true, ""},
		{[]string{"job", "list", "--json=false"}, false, ""},
		{[]string{"agent", "echo", "--", "--json"}, false, ""}, // after "--" it is a positional
		{[]string{"--home", "/h", "job"}, false, "/h"},
		{[]string{"job", "--home=/x", "--json"}, true, "/x"},
		{[]string{"agent", "--", "--home", "/y"}, false, ""},
	}
	for _, tt := range tests {
		if got := prescanJSON(tt.args); got != tt.json {
			t.Errorf("prescanJSON(%q) = %v", tt.args, got)
		}
		if got := prescanHome(tt.args); got != tt.home {
			t.Errorf("prescanHome(%q) = %q", tt.args, got)
		}
	}
}

func TestFirstPositionalFindsThePlaybookName(t *testing.T) {
	play, _, _ := NewRoot(Options{}).Find([]string{"play"})
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"audit", "go"}, "audit"},
		{[]string{"--cwd", "/tmp", "audit", "--depth", "3"}, "audit"},
		{[]string{"--timeout=5s", "--show", "nightly", "audit"}, "audit"},
		{[]string{"--json", "audit"}, "audit"},
		{[]string{"--home", "/h", "audit"}, "audit"},
		{[]string{"--label=x", "--", "audit", "prompt"}, "audit"},
		{[]string{"--help"}, ""},
		{[]string{}, ""},
	}
	for _, tt := range tests {
		if got := firstPositional(play, tt.args); got != tt.want {
			t.Errorf("firstPositional(%q) = %q; want %q", tt.args, got, tt.want)
		}
	}
}

func TestNewRootIsFreshEachCall(t *testing.T) {
	a, b := NewRoot(Options{}), NewRoot(Options{})
	if a == b {
		t.Fatal("same tree twice")
	}
	pa, _, _ := a.Find([]string{"play"})
	pb, _, _ := b.Find([]string{"play"})
	if pa == pb || pa.Flags() == pb.Flags() {
		t.Fatal("two trees share a command or flag set")
	}
	pa.Flags().String("added", "", "")
	if pb.Flags().Lookup("added") != nil {
		t.Fatal("a flag added to one tree appears in another")
	}
}

// TestTreeProjects walks NewRoot as the MCP server will (projector/fromcobra)
// and checks every runnable, visible command projects, with the parameter
// names the verbs need.
func TestTreeProjects(t *testing.T) {
	tree, err := fromcobra.WalkWith(NewRoot(Options{}), &fromcobra.Options{ExcludeFlags: append([]string{"json", "home"}, notify.Flags...)})
	if err != nil {
		t.Fatal(err)
	}
	params := map[string][]string{}
	for _, c := range tree.Commands {
		if !c.Runnable || c.Hidden {
			continue
		}
		path := strings.Join(c.Path, " ")
		if _, err := projector.Project(c); err != nil {
			t.Errorf("%s does not project: %v", path, err)
		}
		for _, p := range c.Params {
			params[path] = append(params[path], p.Name)
		}
	}
	// pflag lists flags sorted; positionals follow, in Use-line order.
	want := map[string][]string{
		"agent":    {"cwd", "label", "prompt_file", "team", "timeout", "model", "prompt"},
		"job wait": {"max_wait_seconds", "poll_interval_seconds", "ids"},
		"kill":     {"grace", "id"},
		"play":     {"cwd", "label", "prompt_file", "show", "team", "timeout", "playbook", "prompt"},
	}
	for path, w := range want {
		if d := cmp.Diff(w, params[path]); d != "" {
			t.Errorf("%s parameters (-want +got):\n%s", path, d)
		}
	}
}

// TestNotifyFlagsAreFencedByName: every spawn command has exactly the
// notify flags the MCP server excludes by name (notify.Flags), no other
// flag of the tree sets a notify target, and excluding those names leaves
// no notify parameter in any projected command. Renaming a flag, or adding
// a notify flag under another name, fails here before it reaches a caller.
func TestNotifyFlagsAreFencedByName(t *testing.T) {
	root := NewRoot(Options{})
	for _, name := range []string{"agent", "fanout", "flow", "play"} {
		c, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range notify.Flags {
			if c.Flags().Lookup(f) == nil {
				t.Errorf("%s has no --%s: the name the server excludes no longer exists (was it renamed?)", name, f)
			}
		}
	}
	tree, err := fromcobra.WalkWith(root, &fromcobra.Options{ExcludeFlags: append([]string{"json", "home"}, notify.Flags...)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range tree.Commands {
		for _, p := range c.Params {
			if strings.Contains(strings.ToLower(p.Name), "notify") {
				t.Errorf("%s still projects %q after excluding %v", strings.Join(c.Path, " "), p.Name, notify.Flags)
			}
		}
	}
}

// TestPlayInjectorProjectsPlaybookArgs drives the projector's dynamic
// parameter hook with playbook.Inject, as the server will.
func TestPlayInjectorProjectsPlaybookArgs(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, playbook.Dir), 0o700)
	os.WriteFile(playbook.Path(home, "audit"), []byte("args:\n  - {name: depth, type: int, default: 2}\n  - {name: target, type: str, required: true}\nflow: {steps: [{id: a, model: echo, prompt: x}]}\n"), 0o600)
	inj := fromcobra.NewInjector(func() *cobra.Command { return NewRoot(Options{}) }, []string{"play"},
		func(root *cobra.Command, name string) (string, error) { return playbook.Inject(root, home, name) },
		&fromcobra.Options{ExcludeFlags: []string{"json", "home"}})
	cmd, fp, err := inj("audit")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(fp, "pf1-") {
		t.Fatalf("fingerprint %q", fp)
	}
	schema, err := projector.Project(cmd)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(schema)
	for _, want := range []string{`"depth":{`, `"target":{`, `"required":["target","playbook"]`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("schema lacks %s:\n%s", want, b)
		}
	}
	if _, _, err := inj("absent"); err == nil {
		t.Fatal("injecting a missing playbook succeeded")
	}
}

func TestResolveHome(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name string
		flag string
		env  map[string]string
		want string
	}{
		{"the flag wins", "/flag", map[string]string{"LIMCP_HOME": "/env", "XDG_STATE_HOME": "/xdg", "HOME": "/u"}, "/flag"},
		{"then LIMCP_HOME", "", map[string]string{"LIMCP_HOME": "/env", "XDG_STATE_HOME": "/xdg", "HOME": "/u"}, "/env"},
		{"then XDG_STATE_HOME", "", map[string]string{"XDG_STATE_HOME": "/xdg", "HOME": "/u"}, "/xdg/limcp"},
		{"then ~/.local/state", "", map[string]string{"HOME": "/u"}, "/u/.local/state/limcp"},
	}
	for _, tt := range tests {
		if got, err := ResolveHome(tt.flag, env(tt.env)); err != nil || got != tt.want {
			t.Errorf("%s: ResolveHome = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

func TestMainInProcess(t *testing.T) {
	var out, errb bytes.Buffer
	code := Main([]string{"--home", t.TempDir(), "--json", "job", "list", "--kind", "robot"}, Options{Stdout: &out, Stderr: &errb})
	var r struct {
		OK    bool `json:"ok"`
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || r.OK || r.Error.Code != "invalid_argument" || code != 1 {
		t.Fatalf("Main = %d, %s (%v)", code, out.String(), err)
	}
	if !strings.Contains(errb.String(), `--kind "robot"`) {
		t.Fatalf("stderr = %q", errb.String())
	}
}
