//go:build unix

package verbsurface

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbsurface/verbsurface/projector"
)

// lazySource stands in for a reader that lists every command at start and
// reads one on demand (fromcobrabin's): its tree holds the fixture's real
// commands, except those still unread, listed by path and summary alone.
// Read "reads" by swapping in a tree with the real commands.
type lazySource struct {
	mu     sync.Mutex
	real   *projector.Tree
	cur    *projector.Tree
	unread map[string]bool // joined paths not read yet
	fail   error           // Read's error when set
	events []string        // "read a b|c d" and "tree", in order
	reads  [][][]string    // Read's calls
}

func newLazySource(t *testing.T, fx *fixture, unread ...string) *lazySource {
	t.Helper()
	real, err := fx.env.tree()
	if err != nil {
		t.Fatal(err)
	}
	l := &lazySource{real: real, unread: map[string]bool{}}
	for _, p := range unread {
		l.unread[p] = true
	}
	l.cur = l.build()
	return l
}

// build is the tree with every unread command as its lister gives it.
func (l *lazySource) build() *projector.Tree {
	t := &projector.Tree{Program: l.real.Program, Dialect: l.real.Dialect}
	for _, c := range l.real.Commands {
		if l.unread[strings.Join(c.Path, " ")] {
			c = &projector.Command{Path: c.Path, Summary: c.Summary, Runnable: true, Unread: true}
		}
		t.Commands = append(t.Commands, c)
	}
	return t
}

func (l *lazySource) source(context.Context) (*projector.Tree, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, "tree")
	return l.cur, nil
}

func (l *lazySource) read(_ context.Context, paths [][]string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var words []string
	for _, p := range paths {
		words = append(words, strings.Join(p, " "))
	}
	l.events = append(l.events, "read "+strings.Join(words, "|"))
	l.reads = append(l.reads, paths)
	if l.fail != nil {
		return l.fail
	}
	for _, w := range words {
		delete(l.unread, w)
	}
	l.cur = l.build()
	return nil
}

// take returns and forgets the events and Read calls so far.
func (l *lazySource) take() (events []string, reads [][][]string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	events, reads = l.events, l.reads
	l.events, l.reads = nil, nil
	return events, reads
}

// lazyFixture is the fixture over a lazySource with job.list and
// job.status listed but not read, every call of the real runner
// recorded; withRead says whether Options.Read is set.
func lazyFixture(t *testing.T, withRead bool, configure ...func(*fixtureConfig)) (*fixture, *lazySource, *recordingExec) {
	t.Helper()
	var src *lazySource
	rec, wrap := recordCalls(nil)
	configure = append(configure, wrap, func(c *fixtureConfig) {
		c.opts.Source = func(ctx context.Context) (*projector.Tree, error) { return src.source(ctx) }
		if withRead {
			c.opts.Read = func(ctx context.Context, paths [][]string) error { return src.read(ctx, paths) }
		}
	})
	fx := newFixture(t, configure...)
	src = newLazySource(t, fx, "job list", "job status")
	return fx, src, rec
}

// readTree is what help answers for verb over the fully read tree: the
// schema and fingerprint a pending verb must have once read.
func readTree(t *testing.T, fx *fixture, src *lazySource, verb string) map[string]any {
	t.Helper()
	s, err := New(fx.reg, &Options{Source: StaticTree(src.real), Runner: fx.runner, Machine: Machine{Args: []string{"--json"}}})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(s.Handle(context.Background(), json.RawMessage(`{"help":`+quote(verb)+`}`), nil).JSON(), &m); err != nil {
		t.Fatal(err)
	}
	return m["help"].(map[string]any)
}

func noRun(t *testing.T, rec *recordingExec) {
	t.Helper()
	select {
	case c := <-rec.calls:
		t.Errorf("the runner ran %q", c.argv)
	default:
	}
}

func TestPendingVerbs(t *testing.T) {
	fx, src, rec := lazyFixture(t, true)

	t.Run("the catalog lists a pending verb as offered, with (…), and says once what it means", func(t *testing.T) {
		cat := fx.do(t, `{"help":true}`)["help"].(map[string]any)
		lines := strings.Join(anyStrings(cat["verbs"]), "\n")
		for _, want := range []string{"job.list(…) — list jobs", "job.status(…) — show one job's status",
			"agent.submit(model, prompt|prompt_file, +9) — start one agent run in the background"} {
			if !strings.Contains(lines, want) {
				t.Errorf("catalog lacks %q:\n%s", want, lines)
			}
		}
		if next := cat["next"].(string); strings.Count(next, "(…)") != 1 || !strings.Contains(next, `{"help":"VERB"} reads them`) {
			t.Errorf("next = %q, want the one note on (…)", next)
		}
		if u := mustJSON(t, cat["unavailable"]); strings.Contains(u, "job.list") || strings.Contains(u, "job.status") {
			t.Errorf("pending verbs listed unavailable: %s", u)
		}
		if _, reads := src.take(); len(reads) != 0 {
			t.Errorf("the catalog called Read: %q", reads)
		}
	})

	t.Run("a search finds a pending verb by its name and summary", func(t *testing.T) {
		got := fx.do(t, `{"help":{"search":"show job status"}}`)["help"].(map[string]any)
		if !slices.Contains(anyStrings(got["verbs"]), "job.status(…) — show one job's status") || !strings.Contains(got["next"].(string), "(…)") {
			t.Errorf("search: %v", got)
		}
		src.take()
	})

	t.Run("help on a pending verb reads it first and answers its real schema and fingerprint", func(t *testing.T) {
		h := fx.do(t, `{"help":"job.list"}`)["help"].(map[string]any)
		events, reads := src.take()
		if diff := cmp.Diff([][][]string{{{"job", "list"}}}, reads); diff != "" {
			t.Errorf("Read calls (-want +got):\n%s", diff)
		}
		if len(events) == 0 || events[0] != "read job list" {
			t.Errorf("events %q: Read must come before the tree", events)
		}
		want := readTree(t, fx, src, "job.list")
		if diff := cmp.Diff(want, h); diff != "" {
			t.Errorf("help (-read tree +pending verb):\n%s", diff)
		}
		if !strings.Contains(mustJSON(t, h["schema"]), `"status"`) {
			t.Errorf("schema lacks --status: %v", h["schema"])
		}
		// The next catalog shows it read.
		lines := anyStrings(fx.do(t, `{"help":true}`)["help"].(map[string]any)["verbs"])
		if !slices.Contains(lines, "job.list(+2) — list jobs") || !slices.Contains(lines, "job.status(…) — show one job's status") {
			t.Errorf("catalog after the read:\n%s", strings.Join(lines, "\n"))
		}
		src.take()
	})
	noRun(t, rec)
}

func TestPendingVerbOpReadsThenRuns(t *testing.T) {
	fx, src, rec := lazyFixture(t, true)
	r := result(t, fx.do(t, `{"ops":[{"op":"job.list","args":{"status":"running"}}]}`), 0)
	if r["ok"] != true {
		t.Fatalf("job.list: %v", r)
	}
	events, reads := src.take()
	if diff := cmp.Diff([]string{"read job list", "tree"}, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][][]string{{{"job", "list"}}}, reads); diff != "" {
		t.Errorf("Read calls (-want +got):\n%s", diff)
	}
	call := rec.next(t, 5*time.Second) // already there: the op ran before Handle returned
	if diff := cmp.Diff([]string{"job", "list", "--json", "--status=running"}, call.argv); diff != "" {
		t.Errorf("argv (-want +got):\n%s", diff)
	}
}

func TestPendingVerbsBatchReadOnce(t *testing.T) {
	fx, src, _ := lazyFixture(t, true)
	// Out of registration order, a synonym, a repeat and an unknown name.
	resp := fx.do(t, `{"ops":[{"op":"job.status","args":{"id":"nope"}},{"op":"jobs_list"},{"op":"job.list"},{"op":"no.such"},{"op":"agent.submit","args":{}}]}`)
	_, reads := src.take()
	want := [][][]string{{{"agent", "submit"}, {"job", "status"}, {"job", "list"}}}
	if diff := cmp.Diff(want, reads); diff != "" {
		t.Errorf("Read calls (-want +got):\n%s", diff)
	}
	for i := range 3 {
		if r := result(t, resp, i); errCode(r) == CodeUnavailableVerb {
			t.Errorf("op %d: %v", i, r)
		}
	}
	fx.do(t, `{"help":true}`)
	fx.do(t, `{"help":"job.*"}`)
	fx.do(t, `{"help":{"search":"job"}}`)
	fx.do(t, `{"ops":[{"op":"nothing.here"}]}`)
	if _, reads := src.take(); len(reads) != 0 {
		t.Errorf("requests that project no verb fully called Read: %q", reads)
	}
}

func TestPendingVerbReadFails(t *testing.T) {
	fx, src, rec := lazyFixture(t, true)
	src.fail = errors.New("listing job: exit status 2")
	resp := fx.do(t, `{"ops":[{"op":"job.list"},{"op":"job.list","dry_run":true},{"op":"agent.submit","args":{}}],"help":"job.status"}`)
	for i := range 2 {
		r := result(t, resp, i)
		e, _ := r["error"].(map[string]any)
		if errCode(r) != CodeUnavailableVerb || !strings.Contains(e["message"].(string), "exit status 2") ||
			!strings.Contains(e["message"].(string), `"job list" could not be read yet`) {
			t.Errorf("op %d: %v", i, r)
		}
		if diff := cmp.Diff(map[string]any{"help": "job.list"}, e["help_call"]); diff != "" {
			t.Errorf("op %d: help_call (-want +got):\n%s", i, diff)
		}
	}
	// A verb read already is not held up by another's failure.
	if r := result(t, resp, 2); errCode(r) != CodeInvalidArgs {
		t.Errorf("agent.submit: %v", r)
	}
	h := resp["help"].(map[string]any)["error"].(map[string]any)
	if h["code"] != CodeUnavailableVerb || !strings.Contains(h["message"].(string), "exit status 2") {
		t.Errorf("help: %v", h)
	}
	noRun(t, rec)
}

// TestUnreadCommandNeverProjected: without Options.Read a pending verb
// stays pending. Its command has no parameters; a surface that projected
// it would validate {} and run "job list --json".
func TestUnreadCommandNeverProjected(t *testing.T) {
	asked := false
	fx, _, rec := lazyFixture(t, false, func(c *fixtureConfig) {
		c.opts.Decide = deciderFunc(func(string, map[string]any) (string, string, string) {
			asked = true
			return DecisionAsk, "ask-all", ""
		})
	})
	resp := fx.do(t, `{"ops":[{"op":"job.list","args":{}},{"op":"job.status","dry_run":true,"args":{}}],"help":"job.list"}`)
	for i := range 2 {
		r := result(t, resp, i)
		if e, _ := r["error"].(map[string]any); errCode(r) != CodeUnavailableVerb || !strings.Contains(e["message"].(string), "could not be read yet") {
			t.Errorf("op %d: %v", i, r)
		}
	}
	if code := resp["help"].(map[string]any)["error"].(map[string]any)["code"]; code != CodeUnavailableVerb {
		t.Errorf("help: %v", resp["help"])
	}
	if got := fx.surface.Confirmations(context.Background(), json.RawMessage(`{"ops":[{"op":"job.list","args":{}}]}`)); len(got) != 0 || asked {
		t.Errorf("a pending verb was put to the Decider: %v", got)
	}
	noRun(t, rec)
}

func TestPendingVerbsAtStart(t *testing.T) {
	fx, src, _ := lazyFixture(t, true)
	ctx := context.Background()

	t.Run("Check reports no pending verb", func(t *testing.T) {
		var names []string
		for _, u := range fx.surface.Check(ctx) {
			names = append(names, u.Verb)
		}
		if diff := cmp.Diff([]string{"net.allow", "job.group"}, names); diff != "" {
			t.Errorf("Check (-want +got):\n%s", diff)
		}
	})
	t.Run("FileParams leaves pending verbs out", func(t *testing.T) {
		for _, vf := range fx.surface.FileParams(ctx) {
			if vf.Verb == "job.list" || vf.Verb == "job.status" {
				t.Errorf("FileParams lists %s", vf.Verb)
			}
		}
	})
	t.Run("PolicyVerbs marks pending verbs Unread, without parameters", func(t *testing.T) {
		got := map[string]bool{}
		for _, pv := range fx.surface.PolicyVerbs(ctx) {
			got[pv.Name] = pv.Unread
			if pv.Unread && len(pv.Params) > 0 || pv.Name == "agent.submit" && pv.Params["model"] != "string" {
				t.Errorf("%s: %+v", pv.Name, pv)
			}
		}
		if !got["job.list"] || !got["job.status"] || got["agent.submit"] || got["net.allow"] {
			t.Errorf("Unread: %v", got)
		}
	})
	if _, reads := src.take(); len(reads) != 0 {
		t.Errorf("the start gates called Read: %q", reads)
	}
}

func TestConfirmationsReadFirst(t *testing.T) {
	fx, src, _ := lazyFixture(t, true, func(c *fixtureConfig) {
		c.opts.Decide = deciderFunc(func(verb string, _ map[string]any) (string, string, string) {
			return DecisionAsk, "ask-all", ""
		})
	})
	got := fx.surface.Confirmations(context.Background(), json.RawMessage(`{"ops":[{"op":"job.list","args":{"status":"done"}}]}`))
	if len(got) != 1 || got[0].Verb != "job.list" || got[0].Args["status"] != "done" {
		t.Errorf("Confirmations = %+v", got)
	}
	if _, reads := src.take(); !cmp.Equal([][][]string{{{"job", "list"}}}, reads) {
		t.Errorf("Read calls %q", reads)
	}
}

// TestPendingVerbsByNamespace: past the help budget, a namespace's line
// counts its pending verbs as offered, and its listing shows them.
func TestPendingVerbsByNamespace(t *testing.T) {
	fx, _, _ := lazyFixture(t, true, func(c *fixtureConfig) { c.opts.HelpBudget = minHelpBudget })
	cat := fx.do(t, `{"help":true}`)["help"].(map[string]any)
	var job string
	for _, l := range anyStrings(cat["namespaces"]) {
		if strings.HasPrefix(l, "job.* ") {
			job = l
		}
	}
	if !strings.Contains(job, "(1 unavailable)") { // job.group; not job.list, job.status
		t.Errorf("job.* line %q (namespaces %v)", job, cat["namespaces"])
	}
	ls := fx.do(t, `{"help":"job.*"}`)["help"].(map[string]any)
	if !slices.Contains(anyStrings(ls["verbs"]), "job.list(…) — list jobs") || !strings.Contains(ls["next"].(string), "(…)") {
		t.Errorf("job.* listing: %v", ls)
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	return out
}

// TestPendingThenReadAcrossTrees: the projection cache keeps nothing of a
// pending verb, so once the source's tree has its command read (here
// without Options.Read: the source changed between requests), the very
// next request projects the real command.
func TestPendingThenReadAcrossTrees(t *testing.T) {
	fx, src, _ := lazyFixture(t, false)
	if code := fx.do(t, `{"help":"job.list"}`)["help"].(map[string]any)["error"].(map[string]any)["code"]; code != CodeUnavailableVerb {
		t.Fatalf("help on a pending verb: %v", code)
	}
	if err := src.read(context.Background(), [][]string{{"job", "list"}}); err != nil {
		t.Fatal(err)
	}
	h := fx.do(t, `{"help":"job.list"}`)["help"].(map[string]any)
	if diff := cmp.Diff(readTree(t, fx, src, "job.list"), h); diff != "" {
		t.Errorf("help once read (-read tree +got):\n%s", diff)
	}
}

// TestStoredCommandOfPendingCommand: an op that stores a command asks
// Read for the commands it may store too, and a stored command whose
// command is still not read is refused: its options cannot be checked.
func TestStoredCommandOfPendingCommand(t *testing.T) {
	tree := frontTree()
	for i, c := range tree.Commands {
		if slices.Equal(c.Path, []string{"agent"}) {
			tree.Commands[i] = &projector.Command{Path: c.Path, Summary: c.Summary, Runnable: true, Unread: true}
		}
	}
	reg, err := NewRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.Register(Verb{Name: "schedule.add", Class: ClassControl, Path: []string{"schedule"},
		StoredCommand: &StoredCommand{Param: "command", Allow: [][]string{{"agent"}}}}); err != nil {
		t.Fatal(err)
	}
	var reads [][][]string
	ran := false
	s, err := New(reg, &Options{
		Source: StaticTree(tree),
		Read: func(_ context.Context, paths [][]string) error {
			reads = append(reads, paths)
			return errors.New("no reader today")
		},
		Runner: RunnerFunc(func(context.Context, []string) (json.RawMessage, error) { ran = true; return nil, nil }),
	})
	if err != nil {
		t.Fatal(err)
	}
	r := opResult(t, s, `{"ops":[{"op":"schedule.add","args":{"command":["agent"]}}]}`)
	if r.OK || len(r.Error.Problems) != 1 || !strings.Contains(r.Error.Problems[0].Reason, `the parameters of "agent" are not read yet`) {
		t.Errorf("stored command of a pending command: %+v", r.Error)
	}
	if diff := cmp.Diff([][][]string{{{"schedule"}, {"agent"}}}, reads); diff != "" {
		t.Errorf("Read calls (-want +got):\n%s", diff)
	}
	if ran {
		t.Error("the op ran")
	}
}

// TestPendingVerbsConcurrent: requests that read, list and search at once
// (run it with -race): every help on a pending verb answers its real
// schema, whichever request read it.
func TestPendingVerbsConcurrent(t *testing.T) {
	fx, src, _ := lazyFixture(t, true)
	want := map[string]any{}
	for _, v := range []string{"job.list", "job.status"} {
		want[v] = readTree(t, fx, src, v)["schema_fingerprint"]
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			switch i % 4 {
			case 0, 1:
				v := []string{"job.list", "job.status"}[i%2]
				resp := fx.surface.Handle(context.Background(), json.RawMessage(`{"help":`+quote(v)+`}`), nil)
				if h, ok := resp.Help.(*VerbHelp); !ok || h.SchemaFingerprint != want[v] {
					t.Errorf("help %s: %s", v, resp.JSON())
				}
			case 2:
				fx.surface.Handle(context.Background(), json.RawMessage(`{"help":true}`), nil)
			default:
				fx.surface.Handle(context.Background(), json.RawMessage(`{"help":{"search":"job"}}`), nil)
			}
		})
	}
	wg.Wait()
}
