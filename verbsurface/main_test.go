//go:build unix

package verbsurface

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/dispatch"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface/internal/testcli"
)

// fixtureBin is the fixture CLI and serverBin the stdio MCP server that
// embeds the surface over it, both built once by TestMain with go build.
var fixtureBin, serverBin string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "verbsurface-testcli-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fixtureBin, serverBin = filepath.Join(dir, "testcli"), filepath.Join(dir, "testserver")
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./internal/testcli/cmd/...")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the fixture binaries:", err)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fixtureEnv is one test's fixture directories.
type fixtureEnv struct{ testcli.Env }

func (e fixtureEnv) tree() (*projector.Tree, error) { return testcli.Tree(e.Env) }
func (e fixtureEnv) injector() projector.Injector   { return testcli.Injector(e.Env) }

// Playbooks the fixture ships: audit and deploy inject flags; broken
// injects a flag of an unsupported pflag type.
var fixturePlaybooks = map[string]string{
	"audit":  `{"args":[{"name":"target","kind":"string","required":true,"usage":"what to audit"},{"name":"depth","kind":"int"},{"name":"strict","kind":"bool"}]}`,
	"deploy": `{"args":[{"name":"region","kind":"string","required":true}]}`,
	"broken": `{"args":[{"name":"addr","kind":"ip"}]}`,
}

type fixture struct {
	env     fixtureEnv
	reg     *Registry
	surface *Surface
	runner  *dispatch.Runner
	waited  chan string // ids job.wait's handler was asked about
}

type fixtureConfig struct {
	env   []string // extra environment for the fixture binary
	opts  Options
	wrap  func(Runner) Runner // wraps the real runner when set
	verbs func(*fixture) []Verb
}

// newFixture builds the fixture: directories, a dispatch.Runner over the
// built fixture binary, the registry of fixture verbs, and a surface whose
// tree is walked live from the fixture's cobra tree on every request.
func newFixture(t testing.TB, configure ...func(*fixtureConfig)) *fixture {
	t.Helper()
	root := t.TempDir()
	env := fixtureEnv{testcli.Env{State: filepath.Join(root, "state"), Playbooks: filepath.Join(root, "playbooks")}}
	for _, d := range []string{env.State, env.Playbooks} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range fixturePlaybooks {
		if err := os.WriteFile(filepath.Join(env.Playbooks, name+".json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := &fixtureConfig{verbs: fixtureVerbs}
	for _, c := range configure {
		c(cfg)
	}
	runner, err := dispatch.NewRunner(fixtureBin, &dispatch.Options{
		Env:     append(append(os.Environ(), "TESTCLI_STATE="+env.State, "TESTCLI_PLAYBOOKS="+env.Playbooks), cfg.env...),
		Timeout: 20 * time.Second,
		Grace:   200 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	fx := &fixture{env: env, runner: runner, waited: make(chan string, 16)}
	fx.reg, err = NewRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range cfg.verbs(fx) {
		if err := fx.reg.Register(v); err != nil {
			t.Fatal(err)
		}
	}
	opts := cfg.opts
	if opts.Source == nil {
		opts.Source = func(context.Context) (*projector.Tree, error) { return env.tree() }
	}
	if opts.Runner == nil {
		opts.Runner = runner
		if cfg.wrap != nil {
			opts.Runner = cfg.wrap(runner)
		}
	}
	if len(opts.Machine.Args) == 0 {
		opts.Machine.Args = []string{"--json"}
	}
	fx.surface, err = New(fx.reg, &opts)
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

// fixtureVerbs registers the fixture CLI's commands as verbs.
func fixtureVerbs(fx *fixture) []Verb {
	prompts := dispatch.PromptSnapshots{Dir: fx.env.State}
	return []Verb{
		{Name: "agent.submit", Class: ClassSpawn, Path: []string{"agent", "submit"},
			Summary: "start one agent run in the background", Synonyms: []string{"submit_agent"}, Prepare: prompts.Prepare},
		{Name: "job.status", Class: ClassObserve, Path: []string{"job", "status"}, Summary: "show one job's status", Synonyms: []string{"job_status"}},
		{Name: "job.list", Class: ClassObserve, Path: []string{"job", "list"}, Summary: "list jobs", Synonyms: []string{"jobs_list"}},
		{Name: "job.output", Class: ClassObserve, Path: []string{"job", "output"}, Summary: "print a job's output", Synonyms: []string{"job_output"}},
		{Name: "job.wait", Class: ClassObserve, Path: []string{"job", "wait"}, Summary: "wait for a job to end", Handler: fx.waitHandler},
		{Name: "job.watch", Class: ClassObserve, Path: []string{"job", "watch"}, Summary: "watch a job for a while"},
		{Name: "job.tag", Class: ClassControl, Path: []string{"job", "tag"}, Summary: "tag a job"},
		{Name: "job.kill", Class: ClassControl, Path: []string{"kill"}, Summary: "stop a job", Synonyms: []string{"job_kill"}, Handler: killHandler},
		{Name: "mode.set", Class: ClassControl, Path: []string{"mode"}, Summary: "set the scheduling mode"},
		{Name: "net.allow", Class: ClassControl, Path: []string{"net", "allow"}, Summary: "allow a network range"},
		{Name: "job.group", Class: ClassObserve, Path: []string{"job"}, Summary: "the job group itself"},
		{Name: "play.submit", Class: ClassSpawn, Path: []string{"play"}, Summary: "run a playbook",
			Dynamic: &Dynamic{Param: "playbook", Inject: fx.env.injector()}},
	}
}

// waitHandler stands in for package wait: it reports progress, then asks
// the CLI for the job's status through the surface's runner.
func (fx *fixture) waitHandler(ctx context.Context, call *Call) (any, error) {
	id := call.Args["id"].(string)
	select {
	case fx.waited <- id:
	default:
	}
	for i := range 3 {
		call.Progress(ctx, float64(i+1), 3, "polling "+id)
	}
	data, err := call.Runner.Run(ctx, []string{"job", "status", "--json", "--", id})
	if err != nil {
		return nil, err
	}
	return map[string]any{"waited": id, "record": json.RawMessage(data)}, nil
}

// killHandler stands in for package kill: it runs the CLI's kill command.
func killHandler(ctx context.Context, call *Call) (any, error) {
	argv := []string{"kill", "--json"}
	if f, _ := call.Args["force"].(bool); f {
		argv = append(argv, "--force")
	}
	argv = append(argv, "--", call.Args["id"].(string))
	data, err := call.Runner.Run(ctx, argv)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(data), nil
}

// do sends one request (JSON text) and returns the decoded response.
func (fx *fixture) do(t testing.TB, req string) map[string]any {
	t.Helper()
	resp := fx.surface.Handle(context.Background(), json.RawMessage(req), nil)
	var m map[string]any
	if err := json.Unmarshal(resp.JSON(), &m); err != nil {
		t.Fatalf("response is not JSON: %v\n%s", err, resp.JSON())
	}
	return m
}

// fingerprint fetches a verb's current schema_fingerprint through help.
func (fx *fixture) fingerprint(t testing.TB, verb string) string {
	t.Helper()
	h := fx.do(t, `{"help":`+quote(verb)+`}`)["help"].(map[string]any)
	fp, _ := h["schema_fingerprint"].(string)
	if fp == "" {
		t.Fatalf("no fingerprint for %s: %v", verb, h)
	}
	return fp
}

// result returns the i-th op result of a response.
func result(t testing.TB, resp map[string]any, i int) map[string]any {
	t.Helper()
	rs, ok := resp["results"].([]any)
	if !ok || len(rs) <= i {
		t.Fatalf("no result %d in %v", i, resp)
	}
	return rs[i].(map[string]any)
}

// errCode returns an op result's error code ("" when ok).
func errCode(r map[string]any) string {
	if e, ok := r["error"].(map[string]any); ok {
		c, _ := e["code"].(string)
		return c
	}
	return ""
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fileExists waits up to d for path to appear.
func fileExists(path string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if _, err := os.Stat(path); err == nil {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// recordingExec wraps a runner and reports every call's outcome.
type recordingExec struct {
	inner Runner
	delay func(argv []string) time.Duration // extra time before running, per argv
	calls chan execCall
}

type execCall struct {
	argv    []string
	err     error
	elapsed time.Duration
	ctxErr  error // the context's error when the call returned
}

func (r *recordingExec) Run(ctx context.Context, argv []string) (json.RawMessage, error) {
	start := time.Now()
	if r.delay != nil {
		if d := r.delay(argv); d > 0 {
			time.Sleep(d)
		}
	}
	data, err := r.inner.Run(ctx, argv)
	select {
	case r.calls <- execCall{argv: argv, err: err, elapsed: time.Since(start), ctxErr: ctx.Err()}:
	default:
	}
	return data, err
}

func recordCalls(delay func([]string) time.Duration) (*recordingExec, func(*fixtureConfig)) {
	rec := &recordingExec{delay: delay, calls: make(chan execCall, 64)}
	return rec, func(c *fixtureConfig) {
		c.wrap = func(inner Runner) Runner { rec.inner = inner; return rec }
	}
}

func (r *recordingExec) next(t testing.TB, within time.Duration) execCall {
	t.Helper()
	select {
	case c := <-r.calls:
		return c
	case <-time.After(within):
		t.Fatalf("no runner call within %v", within)
		return execCall{}
	}
}
