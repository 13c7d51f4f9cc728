//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The second pass of issue 25 on what a policy and a person see of an op,
// and on files with two names, against the built binary: before it, a
// deny rule on cwd was bypassed by spelling the path another way, a label
// could make a terminal client show another op than the one asked about,
// and a hard link inside a root read a file outside it.

// pathsServer is what these tests ask of a server: one root, a policy
// file, hard links allowed or not.
type pathsServer struct {
	root, policy   string
	allowHardLinks bool
}

// pathsFronts are the servers these tests attack: limcp mcp over stdio
// and HTTP, and the YAML front serving examples/limcp/verbsurface.yaml
// with the same root and policy.
var pathsFronts = []struct {
	name string
	dial func(e *env, p pathsServer) *mcpClient
}{
	{"limcp mcp stdio", func(e *env, p pathsServer) *mcpClient { return e.dialStdio(nil, nil, p.limcpArgs()...) }},
	{"limcp mcp http", func(e *env, p pathsServer) *mcpClient { return securityHTTP(e, nil, p.limcpArgs()...) }},
	{"verbsurface serve", dialFrontPaths},
}

func (p pathsServer) limcpArgs() []string {
	args := []string{"--root", p.root, "--no-notify"}
	if p.policy != "" {
		args = append(args, "--policy", p.policy)
	}
	if p.allowHardLinks {
		args = append(args, "--allow-hard-links")
	}
	return args
}

// dialFrontPaths serves verbsurface.yaml with p's root, policy and hard
// link setting added, over stdio.
func dialFrontPaths(e *env, p pathsServer) *mcpClient {
	e.t.Helper()
	b, err := os.ReadFile("verbsurface.yaml")
	if err != nil {
		e.t.Fatal(err)
	}
	cfg := string(b) + "roots: [" + strconv.Quote(p.root) + "]\n"
	if p.policy != "" {
		cfg += "policy: " + strconv.Quote(p.policy) + "\n"
	}
	if p.allowHardLinks {
		cfg += "allow_hard_links: true\n"
	}
	file := filepath.Join(e.t.TempDir(), "verbsurface.yaml")
	if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
		e.t.Fatal(err)
	}
	cmd := exec.Command(verbsurfaceBin(e.t.(*testing.T)), "serve", "-c", file)
	cmd.Env = append(e.environ(), "PATH="+filepath.Dir(limcpBin)+string(os.PathListSeparator)+os.Getenv("PATH"), "LIMCP_HOME="+e.home)
	log := &serverLog{}
	cmd.Stderr = log
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "paths", Version: "v0"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		e.t.Fatalf("starting verbsurface serve: %v\n%s", err, log)
	}
	e.t.Cleanup(func() { cs.Close() })
	return &mcpClient{t: e.t, cs: cs, home: e.home}
}

// prodFixture is a root with prod and dev directories and a symlink to
// prod, all by real path.
func prodFixture(t *testing.T) (root string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"prod", "dev"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("prod", filepath.Join(root, "to-prod")); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestPolicyOnRealPaths: a deny rule on cwd matching ROOT/prod refuses
// ROOT/prod however it is spelt (/./, dev/../, a symlink, a doubled
// slash), on both fronts, and starts no run; ROOT/dev runs, with its real
// path in the run's spec.
func TestPolicyOnRealPaths(t *testing.T) {
	for _, tr := range pathsFronts {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			root := prodFixture(t)
			pol := e.writeFile("policy.yaml", `version: 1
default: allow
rules:
  - name: not-prod
    verbs: ["*.submit"]
    when: {cwd: {pattern: "^`+regexp.QuoteMeta(root)+`/prod"}}
    decision: deny
    reason: prod is off limits
`)
			c := tr.dial(e, pathsServer{root: root, policy: pol})
			fp := c.help("agent.submit").SchemaFingerprint
			for _, cwd := range []string{root + "/prod", root + "/./prod", root + "/dev/../prod", root + "/to-prod", root + "//prod"} {
				o := c.op("agent.submit", map[string]any{"model": "echo", "prompt": "hi", "cwd": cwd}, fp)
				if o.OK || o.Error == nil || o.Error.Code != "policy_refused" || !strings.Contains(o.Error.Message, "prod is off limits") {
					t.Errorf("cwd %s: %s; want policy_refused by not-prod", cwd, o.raw)
				}
			}
			if n := e.runCount(); n != 0 {
				t.Fatalf("%d runs started in prod", n)
			}
			var s submitted
			c.must(&s, "agent.submit", map[string]any{"model": "echo", "prompt": "hi", "cwd": root + "/prod/../dev"}, fp)
			var spec struct {
				Cwd string `json:"cwd"`
			}
			if err := json.Unmarshal(e.waitTerminal(s.ID).Spec, &spec); err != nil || spec.Cwd != root+"/dev" {
				t.Fatalf("the dev run's cwd %q (%v); want %s/dev", spec.Cwd, err, root)
			}
		})
	}
}

// TestConfirmationShowsTheOpAskedAbout: an ask about an op whose label
// moves the cursor, overrides the text direction, separates lines, backs
// up and tabs vertically reaches the person's client with every one of
// those escaped, and with the cwd as the real path that will run.
func TestConfirmationShowsTheOpAskedAbout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	root := prodFixture(t)
	pol := e.writeFile("policy.yaml", `version: 1
default: allow
rules:
  - name: spawns-need-my-ok
    verbs: ["*.submit"]
    decision: ask
`)
	p := &person{action: "decline"}
	c := e.dialPolicy("2025-11-25", &mcp.ClientOptions{ElicitationHandler: p.answer}, "--policy", pol, "--root", root, "--no-notify")
	label := "nightly\x1b[1A\x1b[2K\rjob.list\u202esevil\u2028\b\b\vok"
	o := c.op("agent.submit", map[string]any{"model": "echo", "prompt": "hi", "label": label, "cwd": root + "/to-prod"},
		c.help("agent.submit").SchemaFingerprint)
	if o.OK || o.Error == nil || o.Error.Code != "policy_refused" {
		t.Fatalf("declined: %s", o.raw)
	}
	q := p.questions()
	if len(q) != 1 {
		t.Fatalf("questions %q", q)
	}
	for _, want := range []string{
		`  label: "nightly\u001b[1A\u001b[2K\rjob.list\u202esevil\u2028\b\b\u000bok" (`,
		"  cwd: " + root + "/prod\n",
	} {
		if !strings.Contains(q[0], want) {
			t.Errorf("the question lacks %q:\n%s", want, q[0])
		}
	}
	for _, r := range q[0] {
		if r != '\n' && !unicode.IsGraphic(r) {
			t.Fatalf("%U reaches the person's client raw: %q", r, q[0])
		}
	}
}

// TestHardLinksRefusedInRoots: a prompt file or flow spec that is a hard
// link inside the root to a secret outside it is refused (outside_roots,
// saying why and how the operator allows it) on both fronts, and nothing
// of the secret comes back; with --allow-hard-links (allow_hard_links:
// true) the operator's word admits it.
func TestHardLinksRefusedInRoots(t *testing.T) {
	for _, tr := range pathsFronts {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			f := newFilesFixture(t)
			link := filepath.Join(f.root, "innocent.txt")
			if err := os.Link(f.secret, link); err != nil {
				t.Skipf("no hard links here: %v", err)
			}
			c := tr.dial(e, pathsServer{root: f.root})
			for verb, param := range map[string]string{"agent.submit": "prompt_file", "flow.submit": "spec"} {
				args := map[string]any{param: link}
				if verb == "agent.submit" {
					args["model"] = "echo"
				}
				o := c.op(verb, args, c.help(verb).SchemaFingerprint)
				refusedWith(t, o, param, "outside_roots")
				if msg := o.Error.Problems[0]["reason"]; !strings.Contains(msg.(string), "hard links") || !strings.Contains(msg.(string), "nothing was read") {
					t.Errorf("%s: the reason does not say why: %v", verb, msg)
				}
				if strings.Contains(string(o.raw), "secretline") {
					t.Errorf("%s: the answer leaks the secret: %s", verb, o.raw)
				}
			}
			if n := e.runCount(); n != 0 {
				t.Fatalf("%d runs started", n)
			}

			allowed := tr.dial(newEnv(t), pathsServer{root: f.root, allowHardLinks: true})
			var s submitted
			allowed.must(&s, "agent.submit", map[string]any{"model": "echo", "prompt_file": link}, allowed.help("agent.submit").SchemaFingerprint)
		})
	}
}
