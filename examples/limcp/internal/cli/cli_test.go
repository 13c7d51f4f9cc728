//go:build unix

package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/guard"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/notify"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/playbook"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/server"
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
		if got := guard.FirstPositional(play, tt.args); got != tt.want {
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
	tree, err := fromcobra.Walk(NewRoot(Options{}), &fromcobra.Options{ExcludeFlags: server.ExcludedFlags})
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
// notify flags the MCP server excludes by name (notify.Flags), and
// excluding those names leaves no notify parameter in any command an MCP
// caller can reach. Renaming a flag, or adding
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
	tree, err := fromcobra.Walk(root, &fromcobra.Options{ExcludeFlags: append([]string{"json", "home"}, notify.Flags...)})
	if err != nil {
		t.Fatal(err)
	}
	// Every command an MCP caller can reach (mcp's own --no-notify is not
	// one: `limcp mcp` is no verb).
	for _, v := range server.Allowlist() {
		c := tree.Find(v.Path...)
		if c == nil {
			t.Fatalf("allowlisted %s has no command %q", v.Verb, v.Path)
		}
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

// TestReadToken: the bearer token is the first line of --token-file
// (trimmed), else $LIMCP_MCP_TOKEN; an empty, unreadable, shared (group or
// other bits) or non-regular file is an invalid_argument naming
// token-file, never an empty token (which would mean "no token").
func TestReadToken(t *testing.T) {
	dir := t.TempDir()
	fileMode := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // whatever the umask
			t.Fatal(err)
		}
		return p
	}
	file := func(name, content string) string { return fileMode(name, content, 0o600) }
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(tok string) func(string) string {
		return func(k string) string {
			if k == server.TokenEnv {
				return tok
			}
			return ""
		}
	}
	for _, c := range []struct {
		name, file, env, want, wantErr string
	}{
		{name: "first line of the file, trimmed", file: file("a", "  s3cret-token-0123456789  \nsecond line\n"), env: "from-env", want: "s3cret-token-0123456789"},
		{name: "the environment without a file", env: " from-env-0123456789 \n", want: "from-env-0123456789"},
		{name: "neither: no token", want: ""},
		{name: "an empty file", file: file("b", "\n\n"), wantErr: "first line is empty"},
		{name: "a missing file", file: filepath.Join(dir, "missing"), wantErr: "no such file"},
		{name: "a world-readable file", file: fileMode("c", "s3cret-token-0123456789\n", 0o644), wantErr: "chmod 600"},
		{name: "a group-readable file", file: fileMode("d", "s3cret-token-0123456789\n", 0o640), wantErr: "mode 0640"},
		{name: "a world-writable file", file: fileMode("e", "s3cret-token-0123456789\n", 0o602), wantErr: "chmod 600"},
		{name: "a FIFO is refused without waiting for a writer", file: fifo, wantErr: "not a regular file"},
		{name: "a directory", file: dir, wantErr: "not a regular file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := readToken(c.file, env(c.env))
			if c.wantErr != "" {
				me, ok := machine.As(err)
				if !ok || me.Code != machine.InvalidArgument || !strings.Contains(me.Message, c.wantErr) ||
					me.Details.(map[string]any)["argument"] != "token-file" {
					t.Fatalf("readToken = %q, %v; want invalid_argument on token-file saying %q", got, err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("readToken = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

// TestMCPFlagsRefusedBeforeServing: the HTTP flags without --http, and
// contradictory or meaningless HTTP flags, are refused before any server
// starts or any address is bound (a token file that is silently ignored
// would look like protection). Each refusal names the flag.
func TestMCPFlagsRefusedBeforeServing(t *testing.T) {
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte("0123456789abcdef0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Port 1 on loopback: were any of these to get as far as binding, the
	// test would see a different error (or a server).
	const addr = "127.0.0.1:1"
	for _, c := range []struct {
		args     []string
		env      string
		argument string
		says     string
	}{
		{args: []string{"--token-file", tok}, argument: "token-file", says: "--http only"},
		{args: []string{"--insecure-no-auth"}, argument: "insecure-no-auth", says: "--http only"},
		{args: []string{"--allow-origin", "https://a.example"}, argument: "allow-origin", says: "--http only"},
		{args: []string{"--session-timeout", "1m"}, argument: "session-timeout", says: "--http only"},
		{args: []string{"--max-sessions", "3"}, argument: "max-sessions", says: "--http only"},
		{args: []string{"--http", addr, "--insecure-no-auth", "--token-file", tok}, argument: "insecure-no-auth", says: "choose one"},
		{args: []string{"--http", addr, "--insecure-no-auth"}, env: "0123456789abcdef0123456789abcdef", argument: "insecure-no-auth", says: "choose one"},
		{args: []string{"--http", addr, "--session-timeout", "0s"}, argument: "session-timeout", says: "must be positive"},
		{args: []string{"--http", addr, "--max-sessions", "0"}, argument: "max-sessions", says: "at least 1"},
		{args: []string{"--http", addr, "--allow-origin", "*"}, argument: "allow-origin", says: "scheme://host"},
		{args: []string{"--http", addr, "--allow-origin", "https://a.example/path"}, argument: "allow-origin", says: "scheme, host and port only"},
		{args: []string{"--http", addr, "--allow-origin", "null"}, argument: "allow-origin", says: "scheme://host"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			getenv := func(k string) string {
				if k == server.TokenEnv {
					return c.env
				}
				return ""
			}
			code := Main(append([]string{"--home", t.TempDir(), "--json", "mcp"}, c.args...), Options{Stdout: &out, Stderr: &errb, Getenv: getenv})
			var r struct {
				OK    bool `json:"ok"`
				Error struct {
					Code    string         `json:"code"`
					Message string         `json:"message"`
					Details map[string]any `json:"details"`
				} `json:"error"`
			}
			if err := json.Unmarshal(out.Bytes(), &r); err != nil || code != 1 || r.OK || r.Error.Code != "invalid_argument" ||
				r.Error.Details["argument"] != c.argument || !strings.Contains(r.Error.Message, c.says) {
				t.Fatalf("limcp mcp %v: exit %d, %s (%v); want invalid_argument on %s saying %q", c.args, code, out.String(), err, c.argument, c.says)
			}
		})
	}
}

// TestReadCallRequest: the request is a JSON object, given as the argument
// or on stdin ("-"), at most MaxCallRequestBytes; anything else is
// invalid_argument naming the request, before a server starts.
func TestReadCallRequest(t *testing.T) {
	big := `{"help": "` + strings.Repeat("x", MaxCallRequestBytes) + `"}`
	for _, c := range []struct {
		name, arg, stdin, wantErr string
	}{
		{name: "an object argument", arg: `{"help": true}`},
		{name: "an object on stdin", arg: "-", stdin: ` {"ops": []} `},
		{name: "not JSON", arg: `{"help": tru`, wantErr: "not JSON"},
		{name: "an array", arg: `[{"help": true}]`, wantErr: "not an array"},
		{name: "null", arg: `null`, wantErr: "not null"},
		{name: "empty stdin", arg: "-", stdin: "", wantErr: "not JSON"},
		{name: "stdin over the cap", arg: "-", stdin: big, wantErr: "larger than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := readCallRequest(c.arg, strings.NewReader(c.stdin))
			if c.wantErr != "" {
				me, ok := machine.As(err)
				if !ok || me.Code != machine.InvalidArgument || !strings.Contains(me.Message, c.wantErr) {
					t.Fatalf("readCallRequest = %.60s, %v; want invalid_argument saying %q", got, err, c.wantErr)
				}
				return
			}
			if err != nil || !json.Valid(got) {
				t.Fatalf("readCallRequest = %s, %v", got, err)
			}
		})
	}
}
