//go:build unix

package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/cli"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/notify"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/runenv"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/server"
	"github.com/verbsurface/verbsurface/projector/fromcobra"
)

// TestServerCannotWriteTheStore proves the one-writer rule by
// construction: nothing the server package links can open the store. Its
// transitive imports exclude limcp's store, run and cli packages, the
// SQLite driver and database/sql; every write is a CLI subprocess.
func TestServerCannotWriteTheStore(t *testing.T) {
	t.Parallel()
	const pkg = "github.com/verbsurface/verbsurface/examples/limcp/internal/server"
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/verbsurface/verbsurface/dispatch") {
		t.Fatalf("go list -deps %s does not list dispatch; the check below would prove nothing:\n%s", pkg, out)
	}
	for _, d := range deps {
		for _, bad := range []string{
			"github.com/verbsurface/verbsurface/examples/limcp/internal/store",
			"github.com/verbsurface/verbsurface/examples/limcp/internal/run",
			"github.com/verbsurface/verbsurface/examples/limcp/internal/cli",
			"modernc.org/sqlite",
			"database/sql",
		} {
			if d == bad || strings.HasPrefix(d, bad+"/") {
				t.Errorf("the server package depends on %s: it could open the store itself", d)
			}
		}
	}
	// The names it keeps instead of importing cli must stay cli's.
	if server.HomeEnv != cli.HomeEnv || server.StoreFile != cli.StoreFile {
		t.Errorf("server.HomeEnv/StoreFile = %q/%q; cli has %q/%q", server.HomeEnv, server.StoreFile, cli.HomeEnv, cli.StoreFile)
	}
	if server.CommandTimeoutEnv != cli.CommandTimeoutEnv || server.ParentPIDEnv != cli.ParentPIDEnv {
		t.Errorf("server.CommandTimeoutEnv = %q; cli has %q", server.CommandTimeoutEnv, cli.CommandTimeoutEnv)
	}
	if server.SpawnBudgetFlag != cli.SpawnBudgetFlag {
		t.Errorf("server.SpawnBudgetFlag = %q; cli has %q", server.SpawnBudgetFlag, cli.SpawnBudgetFlag)
	}
	// The token the environment rule withholds is the server's.
	if server.TokenEnv != runenv.Withheld {
		t.Errorf("server.TokenEnv = %q; runenv withholds %q", server.TokenEnv, runenv.Withheld)
	}
}

// rootWithNotifyFlags is limcp's tree with --notify-url and
// --notify-command on every spawn command (whether or not the CLI has them
// yet), so the exclusion is tested against flags that really exist.
func rootWithNotifyFlags() *cobra.Command {
	root := cli.NewRoot(cli.Options{})
	for _, name := range []string{"agent", "fanout", "flow", "play"} {
		c, _, err := root.Find([]string{name})
		if err != nil {
			panic(err)
		}
		for _, f := range []string{"notify-url", "notify-command"} {
			if c.Flags().Lookup(f) == nil {
				c.Flags().String(f, "", "test: "+f)
			}
		}
	}
	return root
}

// catalogVerbs lists the verbs of help: true.
func catalogVerbs(t *testing.T, f *fixture) []string {
	t.Helper()
	r := f.request(map[string]any{"help": true})
	var cat struct {
		Verbs       []string          `json:"verbs"`
		Unavailable []json.RawMessage `json:"unavailable"`
	}
	if err := json.Unmarshal(r.Help, &cat); err != nil || r.Status != "success" {
		t.Fatalf("catalog: %s", mustJSON(t, r))
	}
	if len(cat.Unavailable) != 0 {
		t.Errorf("verbs unavailable: %s", mustJSON(t, cat.Unavailable))
	}
	var verbs []string
	for _, line := range cat.Verbs {
		verbs = append(verbs, line[:strings.IndexByte(line, '(')])
	}
	return verbs
}

// TestNoVerbSchemaCarriesExcludedFlags: json, home, notify-url and
// notify-command are in no verb's schema — base or playbook-injected — even
// though the walked tree has them (the first check shows they are there to
// exclude).
func TestNoVerbSchemaCarriesExcludedFlags(t *testing.T) {
	t.Parallel()
	tree, err := fromcobra.Walk(rootWithNotifyFlags(), nil)
	if err != nil {
		t.Fatal(err)
	}
	agent := tree.Find("agent")
	var names []string
	for _, p := range agent.Params {
		names = append(names, p.Name)
	}
	for _, want := range []string{"json", "home", "notify_url", "notify_command"} {
		if !slices.Contains(names, want) {
			t.Fatalf("an unfiltered walk of agent lacks %s (%v): the test would prove nothing", want, names)
		}
	}

	// The CLI's own list of privileged notify flags is excluded too.
	for _, fl := range notify.Flags {
		if !slices.Contains(server.ExcludedFlags, fl) {
			t.Errorf("notify.Flags has %q, which server.ExcludedFlags lacks", fl)
		}
	}

	f := newFixture(t, func(o *server.Options) { o.NewRoot = rootWithNotifyFlags })
	writeFile(t, f.home, "playbooks/p.playbook.yaml", "args:\n  - {name: depth, type: int, default: 1}\nflow:\n  steps:\n    - {id: a, model: echo, prompt: \"{{.prompt}}\"}\n")
	verbs := catalogVerbs(t, f)
	if len(verbs) < 20 {
		t.Fatalf("catalog lists %d verbs: %v", len(verbs), verbs)
	}
	helps := []any{map[string]any{"verb": "play.submit", "playbook": "p"}}
	for _, v := range verbs {
		helps = append(helps, v)
	}
	for _, h := range helps {
		vh := f.help(h)
		for _, bad := range []string{"json", "home", "notify_url", "notify_command", "notify-url", "notify-command"} {
			if _, ok := vh.Schema.Properties[bad]; ok {
				t.Errorf("help %v: the schema has %q", h, bad)
			}
		}
	}
	if vh := f.help(map[string]any{"verb": "play.submit", "playbook": "p"}); vh.Schema.Properties["depth"] == nil {
		t.Errorf("the injected play.submit schema lacks the playbook's arg: %v", vh.Schema.Properties)
	}
}

// TestStoredCommandCannotSetExcludedFlags: schedule.add stores an argv a
// later tick runs, so its command may not set an excluded flag; after the
// stored command's own "--" the words are its positionals and pass.
func TestStoredCommandCannotSetExcludedFlags(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	writeFile(t, f.home, "playbooks/q.playbook.yaml", "args:\n  - {name: note, type: str}\nflow:\n  steps:\n    - {id: a, model: echo, prompt: \"{{.prompt}}\"}\n")
	for _, cmd := range [][]any{
		{"agent", "--notify-command=touch /tmp/pwned", "echo", "hi"},
		{"agent", "--notify-url", "http://example.com/", "echo", "hi"},
		{"agent", "--home=/elsewhere", "echo", "hi"},
		// The guard parses: a flag whose value is the literal "--" does not
		// end the flags, whatever a token scan would conclude.
		{"play", "q", "--note", "--", "--notify-command=/bin/sh", "go"},
	} {
		r := f.request(map[string]any{"ops": []any{map[string]any{"op": "schedule.add",
			"args": map[string]any{"name": "n", "cron": "0 3 * * *", "command": cmd}}}})
		if e := r.Results[0].Error; e == nil || e.Code != "policy_refused" {
			t.Errorf("schedule.add %v: %s; want policy_refused", cmd, mustJSON(t, r))
		}
	}
	var added struct {
		Schedule struct {
			Command []string `json:"command"`
		} `json:"schedule"`
	}
	f.op(&added, "schedule.add", map[string]any{"name": "ok", "cron": "0 3 * * *",
		"command": []any{"agent", "echo", "--", "--notify-command=is a prompt here"}}, "")
	if !slices.Contains(added.Schedule.Command, "--notify-command=is a prompt here") {
		t.Errorf("stored command = %v", added.Schedule.Command)
	}
}

func writeFile(t *testing.T, home, rel, content string) {
	t.Helper()
	p := filepath.Join(home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

type waitResult struct {
	Entries []struct {
		ID       string          `json:"id"`
		Status   string          `json:"status"`
		Terminal bool            `json:"terminal"`
		Outcome  string          `json:"outcome"`
		Error    json.RawMessage `json:"error"`
	} `json:"entries"`
	AllTerminal         bool    `json:"all_terminal"`
	TimedOut            bool    `json:"timed_out"`
	PollIntervalSeconds float64 `json:"poll_interval_seconds"`
}

// lateness submits an echo run that ends after delay, waits for it with
// a poll interval of poll, and returns how long after the run's recorded
// end the wait's answer arrived. during runs while the wait is pending.
func lateness(t *testing.T, f *fixture, delay string, poll float64, during func(id string)) time.Duration {
	t.Helper()
	s := f.submitEcho("echo:delay="+delay, "wake")
	done := make(chan struct{})
	if during != nil {
		go func() { defer close(done); during(s.ID) }()
	} else {
		close(done)
	}
	var res waitResult
	f.op(&res, "job.wait", map[string]any{"ids": []any{s.ID}, "max_wait_seconds": 20, "poll_interval_seconds": poll}, "")
	arrived := time.Now()
	<-done
	if !res.AllTerminal || res.PollIntervalSeconds != poll {
		t.Fatalf("job.wait = %+v", res)
	}
	ended, err := time.Parse(time.RFC3339Nano, f.cliStatus(s.ID).EndedAt)
	if err != nil {
		t.Fatal(err)
	}
	return arrived.Sub(ended)
}

// TestWaitWakesEarly: with a 5 s poll interval, each wake source on its own
// ends a job.wait well before the next poll; without either, the wait
// takes the poll interval (so the bound below can tell the difference).
func TestWaitWakesEarly(t *testing.T) {
	t.Parallel()
	// Polling alone returns at the next poll: with the run ending ~1.5 s
	// into a 5 s interval, that is ~3.5 s after the end. 1.5 s of slack for
	// a loaded machine still fails a poll-only server.
	const bound = 1500 * time.Millisecond
	t.Run("store signal, "+server.WatchEvents, func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, func(o *server.Options) { o.NoNotify = true })
		late := lateness(t, f, "1500ms", 5, nil)
		st := f.srv.WakeStats()
		t.Logf("answer %v after the end; %+v", late, st)
		if late > bound || st.StoreSignals == 0 || st.StoreWatch != server.WatchEvents {
			t.Fatalf("answer %v after the run's end (bound %v); wake stats %+v", late, bound, st)
		}
	})
	t.Run("store signal, polling fallback", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, func(o *server.Options) { o.NoNotify = true; o.StorePolling = true })
		late := lateness(t, f, "1500ms", 5, nil)
		st := f.srv.WakeStats()
		t.Logf("answer %v after the end; %+v", late, st)
		if late > bound || st.StoreSignals == 0 || st.StoreWatch != "polling" {
			t.Fatalf("answer %v after the run's end (bound %v); wake stats %+v", late, bound, st)
		}
	})
	t.Run("notification", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, func(o *server.Options) { o.NoStoreSignal = true })
		// Whether or not the CLI posts to LIMCP_NOTIFY_URL itself, post a
		// notification the moment the run is terminal, as the CLI's notify
		// does: the server's side (endpoint → wake → observe) is under test.
		late := lateness(t, f, "1500ms", 5, func(id string) {
			f.waitTerminal(id, 20*time.Second)
			if f.srv.WakeStats().Notifications == 0 {
				resp, err := http.Post(f.srv.NotifyURL(), "application/json", strings.NewReader(`{"id":"`+id+`"}`))
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
			}
		})
		st := f.srv.WakeStats()
		t.Logf("answer %v after the end; %+v", late, st)
		if late > bound || st.Notifications == 0 || st.StoreSignals != 0 {
			t.Fatalf("answer %v after the run's end (bound %v); wake stats %+v", late, bound, st)
		}
	})
	t.Run("neither: the poll interval", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, func(o *server.Options) { o.NoNotify = true; o.NoStoreSignal = true })
		late := lateness(t, f, "800ms", 2.5, nil)
		t.Logf("answer %v after the end", late)
		if late < time.Second {
			t.Fatalf("answer %v after the run's end without any wake source: the bound above would not tell polling from waking", late)
		}
	})
}

// TestCLINotifyWakesWait: the runs the server submits carry its
// LIMCP_NOTIFY_URL (the record's notify setting names the server's
// endpoint), the CLI's terminal notify reaches the endpoint, and it alone
// ends the wait well before the next poll. (Issue 9, server half: without
// the attachment this test fails; it never skips.)
func TestCLINotifyWakesWait(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(o *server.Options) { o.NoStoreSignal = true })
	s := f.submitEcho("echo:delay=200ms", "notify me")
	var st struct {
		Data struct {
			Records []struct {
				Notify *struct {
					URL *string `json:"url"`
				} `json:"notify"`
			} `json:"records"`
		} `json:"data"`
	}
	if err := json.Unmarshal(f.cli("job", "status", s.ID), &st); err != nil || len(st.Data.Records) != 1 {
		t.Fatalf("limcp job status %s: %v", s.ID, err)
	}
	if n := st.Data.Records[0].Notify; n == nil || n.URL == nil || *n.URL != f.srv.NotifyURL() {
		t.Fatalf("a run submitted through the server does not notify it: notify %s, server endpoint %s", mustJSON(t, st.Data.Records[0].Notify), f.srv.NotifyURL())
	}
	f.waitTerminal(s.ID, 20*time.Second)
	deadline := time.Now().Add(10 * time.Second)
	for f.srv.WakeStats().Notifications == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the run ended but its terminal notify never reached the server: %+v", f.srv.WakeStats())
		}
		time.Sleep(20 * time.Millisecond)
	}
	late := lateness(t, f, "1500ms", 5, nil)
	t.Logf("answer %v after the end; %+v", late, f.srv.WakeStats())
	if late > 1500*time.Millisecond {
		t.Fatalf("answer %v after the run's end with the CLI's notify as the only wake", late)
	}
}

// TestStoreSignalIgnoresReads: reading the store (what every poll of
// job.wait does: `job observe`, with its notify sweep) signals nothing, so
// a wait cannot wake itself; a write signals at once.
func TestStoreSignalIgnoresReads(t *testing.T) {
	t.Parallel()
	for _, polling := range []bool{false, true} {
		name := map[bool]string{false: server.WatchEvents, true: "polling"}[polling]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, func(o *server.Options) { o.StorePolling = polling })
			// A run submitted through the server, ended, its notify delivered:
			// the store now holds everything a poll reads.
			s := f.submitEcho("echo", "seed")
			f.waitTerminal(s.ID, 20*time.Second)
			deadline := time.Now().Add(5 * time.Second)
			for f.srv.WakeStats().Notifications == 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			// The delivery records its outcome, and the last process to
			// close the store checkpoints the WAL into the file: writes
			// that may land late on a loaded machine. Settle until the
			// signal has been quiet for a while rather than for a fixed time.
			before := f.srv.WakeStats().StoreSignals
			for quietSince, settleBy := time.Now(), time.Now().Add(15*time.Second); time.Since(quietSince) < 800*time.Millisecond; {
				if time.Now().After(settleBy) {
					t.Fatalf("the store never went quiet after the seed run: %+v", f.srv.WakeStats())
				}
				time.Sleep(50 * time.Millisecond)
				if n := f.srv.WakeStats().StoreSignals; n != before {
					before, quietSince = n, time.Now()
				}
			}
			for range 3 {
				f.cli("job", "observe", s.ID)
				f.cli("job", "list")
				f.cli("state", "doctor")
				f.op(nil, "job.wait", map[string]any{"ids": []any{s.ID}, "max_wait_seconds": 0}, "")
			}
			time.Sleep(400 * time.Millisecond)
			if st := f.srv.WakeStats(); st.StoreSignals != before || st.StoreWatch != name {
				t.Fatalf("reads signalled a change: %+v (was %d)", st, before)
			}
			f.cli("team", "create", "a-write")
			deadline = time.Now().Add(2 * time.Second)
			for f.srv.WakeStats().StoreSignals == before {
				if time.Now().After(deadline) {
					t.Fatalf("a write was not signalled: %+v", f.srv.WakeStats())
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// TestStoreSignalHomeCreatedLater: a home that does not exist yet is
// polled, and watched through kernel events once it appears.
func TestStoreSignalHomeCreatedLater(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	home := filepath.Join(base, "later")
	f := &fixture{t: t, home: home}
	t.Cleanup(f.reap)
	srv, err := server.New(server.Options{Home: home, Executable: limcpBin, Env: environ(home), NewRoot: freshRoot, NoNotify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.StartStoreWatch()
	if st := srv.WakeStats(); st.StoreWatch != "polling" {
		t.Fatalf("watching a missing home: %+v", st)
	}
	f.cli("team", "create", "t")
	deadline := time.Now().Add(5 * time.Second)
	for st := srv.WakeStats(); st.StoreWatch != server.WatchEvents || st.StoreSignals == 0; st = srv.WakeStats() {
		if time.Now().After(deadline) {
			t.Fatalf("the home was created and written, but: %+v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWaitProgress: with a progress token, job.wait notifies the count of
// terminal ids of the total, increasing, ending at the total.
func TestWaitProgress(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	cs := f.connect(&mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		got = append(got, r.Params)
		mu.Unlock()
	}})
	a := f.submitEcho("echo:delay=300ms", "a")
	b := f.submitEcho("echo:delay=1200ms", "b")
	params := &mcp.CallToolParams{Name: "request", Arguments: map[string]any{"ops": []any{map[string]any{
		"op": "job.wait", "args": map[string]any{"ids": []any{a.ID, b.ID}, "poll_interval_seconds": 0.1, "max_wait_seconds": 20}}}}}
	params.SetProgressToken("wait-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("job.wait: %v %+v", err, res)
	}
	// Notifications may trail the result by a moment.
	deadline := time.Now().Add(2 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		last := 0.0
		if n > 0 {
			last = got[n-1].Progress
		}
		mu.Unlock()
		if last == 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) < 2 {
		t.Fatalf("%d progress notifications: %s", len(got), mustJSON(t, got))
	}
	prev := -1.0
	for _, p := range got {
		if p.ProgressToken != "wait-1" || p.Total != 2 || p.Progress <= prev || p.Message == "" {
			t.Fatalf("progress notifications: %s", mustJSON(t, got))
		}
		prev = p.Progress
	}
	if prev != 2 {
		t.Fatalf("last progress %v of 2: %s", prev, mustJSON(t, got))
	}
}

// TestNotifyEndpoint: only a POST to the exact secret path counts.
func TestNotifyEndpoint(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(o *server.Options) { o.NoStoreSignal = true })
	u := f.srv.NotifyURL()
	if !strings.HasPrefix(u, "http://127.0.0.1:") || len(u[strings.LastIndexByte(u, '/')+1:]) != 32 {
		t.Fatalf("notify URL %q: want a loopback URL with a 128-bit secret path", u)
	}
	do := func(method, url string) int {
		req, _ := http.NewRequest(method, url, strings.NewReader("{}"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	base := u[:strings.LastIndexByte(u, '/')+1]
	for _, c := range []struct {
		method, url string
		want        int
	}{
		{"POST", base + strings.Repeat("0", 32), http.StatusNotFound},
		{"POST", base, http.StatusNotFound},
		{"GET", u, http.StatusMethodNotAllowed},
		{"POST", u, http.StatusNoContent},
	} {
		if got := do(c.method, c.url); got != c.want {
			t.Errorf("%s %s: %d, want %d", c.method, c.url, got, c.want)
		}
	}
	if n := f.srv.WakeStats().Notifications; n != 1 {
		t.Errorf("%d notifications counted; want 1", n)
	}
}

// TestExecutableChangedMakesVerbsUnavailable: the schemas describe the tree
// compiled into the server; once the binary it dispatches to changes on
// disk, nothing runs until a restart.
func TestExecutableChangedMakesVerbsUnavailable(t *testing.T) {
	t.Parallel()
	exe := filepath.Join(t.TempDir(), "limcp")
	b, err := os.ReadFile(limcpBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, func(o *server.Options) { o.Executable = exe })
	f.op(nil, "team.list", map[string]any{}, "")
	if err := os.WriteFile(exe, append(b, 0), 0o755); err != nil {
		t.Fatal(err)
	}
	r := f.request(map[string]any{"ops": []any{map[string]any{"op": "team.list", "args": map[string]any{}}}})
	if e := r.Results[0].Error; e == nil || e.Code != "unavailable_verb" || !strings.Contains(e.Message, "restart") {
		t.Fatalf("after the executable changed: %s", mustJSON(t, r))
	}
}

// TestReadOnlyAdmitsObserveOnly: --read-only refuses spawn and control
// verbs with policy_refused and still runs observe verbs.
func TestReadOnlyAdmitsObserveOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(o *server.Options) { o.ReadOnly = true })
	fp := f.help("agent.submit").SchemaFingerprint
	r := f.request(map[string]any{"ops": []any{
		map[string]any{"op": "agent.submit", "args": map[string]any{"model": "echo", "prompt": "x"}, "fingerprint": fp},
		map[string]any{"op": "team.create", "args": map[string]any{"name": "t"}},
		map[string]any{"op": "job.kill", "args": map[string]any{"id": "0123456789abcdef"}},
		map[string]any{"op": "job.list", "args": map[string]any{}},
	}})
	for i, want := range []string{"policy_refused", "policy_refused", "policy_refused", ""} {
		got := ""
		if e := r.Results[i].Error; e != nil {
			got = e.Code
		}
		if got != want {
			t.Errorf("op %d (%s): %q, want %q: %s", i, r.Results[i].Op, got, want, mustJSON(t, r.Results[i]))
		}
	}
	if _, err := os.Stat(filepath.Join(f.home, "runs")); err == nil {
		t.Errorf("a run directory exists: something was submitted")
	}
}

// TestSpawnVerbsSnapshotPrompts: every spawn verb (their commands all take
// prompt and prompt_file) has the prompt preparer: a prompt_file is read at
// submit, its hash and size come back in the op result, and the CLI reads
// the snapshot — so an edit after the submit changes nothing.
func TestSpawnVerbsSnapshotPrompts(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	writeFile(t, f.root, "flow.yaml", "steps:\n  - {id: a, model: echo, prompt: \"{{.prompt}}\"}\n")
	writeFile(t, f.home, "playbooks/p.playbook.yaml", "flow:\n  steps:\n    - {id: a, model: echo, prompt: \"{{.prompt}}\"}\n")
	promptFile := filepath.Join(f.root, "prompt.txt")
	for verb, args := range map[string]map[string]any{
		"agent.submit":  {"model": "echo"},
		"fanout.submit": {"model": "echo", "count": 1},
		"flow.submit":   {"spec": filepath.Join(f.root, "flow.yaml")},
		"play.submit":   {"playbook": "p"},
	} {
		writeFile(t, f.root, "prompt.txt", "snap me for "+verb)
		args["prompt_file"] = promptFile
		h := any(verb)
		if verb == "play.submit" {
			h = map[string]any{"verb": verb, "playbook": "p"}
		}
		fp := f.help(h).SchemaFingerprint
		res, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "request", Arguments: map[string]any{
			"ops": []any{map[string]any{"op": verb, "args": args, "fingerprint": fp}}}})
		if err != nil {
			t.Fatal(err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		var r struct {
			Results []struct {
				OK     bool   `json:"ok"`
				Source string `json:"prompt_source"`
				SHA    string `json:"prompt_sha256"`
				Bytes  int    `json:"prompt_bytes"`
				Result struct {
					Prompt struct {
						Source string `json:"prompt_source"`
						SHA    string `json:"prompt_sha256"`
					} `json:"prompt"`
				} `json:"result"`
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(text), &r); err != nil || len(r.Results) != 1 || !r.Results[0].OK {
			t.Fatalf("%s: %s", verb, text)
		}
		o := r.Results[0]
		if o.Source != "prompt_file" || o.Bytes != len("snap me for "+verb) || o.SHA == "" || o.Result.Prompt.SHA != o.SHA {
			t.Errorf("%s: no snapshot of the prompt file: %s", verb, text)
		}
		if !strings.HasPrefix(o.Result.Prompt.Source, "prompt_file") {
			t.Errorf("%s: the CLI did not read a prompt file: %s", verb, text)
		}
	}
}

// TestJobKillRefusesANonPositiveGrace: the schema's duration pattern admits
// "0s" and "-1s", which would leave a kill no time between SIGTERM and
// SIGKILL; job.kill refuses them before looking anything up, as an
// argument error that teaches like any other (invalid_args on grace, with
// the schema, fingerprint and help call), and the run goes on untouched.
func TestJobKillRefusesANonPositiveGrace(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	s := f.submitEcho("echo:delay=5s", "keep going")
	for _, grace := range []string{"0s", "-1s"} {
		r := f.request(map[string]any{"ops": []any{map[string]any{"op": "job.kill", "args": map[string]any{"id": s.ID, "grace": grace}}}})
		e := r.Results[0].Error
		if e == nil || e.Code != "invalid_args" || len(e.Problems) != 1 || e.Problems[0]["param"] != "grace" ||
			e.Schema == nil || e.SchemaFingerprint == "" || e.HelpCall["help"] != "job.kill" {
			t.Errorf("job.kill grace %s: %s; want invalid_args on grace with schema, fingerprint and help_call", grace, mustJSON(t, r))
		}
	}
	if r := f.cliStatus(s.ID); r.Terminal {
		t.Fatalf("a refused job.kill ended the run: %+v", r)
	}
}

// TestStoredCommandsNameNoFiles: a schedule stores an argv that a later
// tick runs with no roots at all, so a stored path flag is refused like an
// excluded flag, whichever spelling.
func TestStoredCommandsNameNoFiles(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	for _, cmd := range [][]any{
		{"flow", "--spec", "/etc/shadow"},
		{"agent", "echo", "--prompt-file=/proc/self/environ"},
		{"agent", "echo", "hi", "--cwd", "/"},
	} {
		r := f.request(map[string]any{"ops": []any{map[string]any{"op": "schedule.add",
			"args": map[string]any{"name": "s", "cron": "0 3 * * *", "command": cmd}}}})
		e := r.Results[0].Error
		if e == nil || e.Code != "policy_refused" || !strings.Contains(e.Message, "may not name a file") {
			t.Errorf("schedule.add %v: %s; want policy_refused naming the file flag", cmd, mustJSON(t, r))
		}
	}
}

// TestNewRefusesAnUnofferableAllowlist: a tree that lost a command the
// verb table names is refused at start, naming the verb, unless the
// operator tolerates it; then the verb is unavailable to the agent.
func TestNewRefusesAnUnofferableAllowlist(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	noStats := func() *cobra.Command {
		root := freshRoot()
		for _, c := range root.Commands() {
			if c.Name() == "stats" {
				root.RemoveCommand(c)
			}
		}
		return root
	}
	opts := server.Options{Home: home, Executable: limcpBin, Env: environ(home), NewRoot: noStats, NoNotify: true, NoStoreSignal: true}
	if srv, err := server.New(opts); err == nil || !strings.Contains(err.Error(), "stats:") {
		if srv != nil {
			srv.Close()
		}
		t.Fatalf("New = %v, want a refusal naming the stats verb", err)
	}
	opts.TolerateUnavailable = true
	srv, err := server.New(opts)
	if err != nil {
		t.Fatalf("tolerating: %v", err)
	}
	defer srv.Close()
	if bad := srv.Surface().Check(context.Background()); len(bad) != 1 || bad[0].Verb != "stats" {
		t.Errorf("Check = %+v, want stats alone", bad)
	}
}
