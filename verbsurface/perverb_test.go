package verbsurface

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/projector"
)

// frontTree is a CLI as programs people already run have it: a root
// command that runs (a single-command program would have only it), an "-o"
// format option on some commands and not others, an --output that names a
// file, choices, a required group, and a command storing a command line.
func frontTree() *projector.Tree {
	str := func(name string, opts ...string) *projector.Param {
		return &projector.Param{Name: name, Options: opts, Kind: projector.KindString, Arity: projector.ArityOne}
	}
	flag := func(name string, opts ...string) *projector.Param {
		return &projector.Param{Name: name, Options: opts, Kind: projector.KindBoolean, Arity: projector.ArityNone, FlagValue: true}
	}
	format := &projector.Param{Name: "output", Options: []string{"-o", "--output"}, Kind: projector.KindString, Arity: projector.ArityOne, Choices: []any{"json", "yaml", "table"}}
	return &projector.Tree{Program: "lint", Dialect: projector.DialectArgparse, Commands: []*projector.Command{
		{Path: []string{}, Runnable: true, Params: []*projector.Param{
			{Name: "files", Metavar: "FILE_OR_DIR", Kind: projector.KindString, Arity: projector.ArityZeroOrMore},
			{Name: "format", Options: []string{"-f", "--format"}, Kind: projector.KindString, Arity: projector.ArityOne, Choices: []any{"parsable", "standard"}},
			flag("strict", "--strict"),
		}},
		{Path: []string{"list"}, Runnable: true, Params: []*projector.Param{format, flag("all", "--all")}},
		{Path: []string{"export"}, Runnable: true, Params: []*projector.Param{
			{Name: "output", Options: []string{"--output"}, Kind: projector.KindString, Arity: projector.ArityOne, Path: projector.PathUseWrite},
			str("out_format", "--out-format"), flag("quiet", "--quiet")}},
		{Path: []string{"dump"}, Runnable: true, Params: []*projector.Param{str("write_output", "--write-output")}},
		{Path: []string{"schedule"}, Runnable: true, Excluded: []string{"--home"}, Params: []*projector.Param{
			str("cron", "--cron"),
			{Name: "command", Kind: projector.KindString, Arity: projector.ArityOneOrMore, Required: true},
		}},
		{Path: []string{"agent"}, Runnable: true, Excluded: []string{"--home"}, Params: []*projector.Param{
			{Name: "model", Kind: projector.KindString, Arity: projector.ArityOne, Required: true},
			{Name: "prompt_file", Options: []string{"--prompt-file"}, Kind: projector.KindString, Arity: projector.ArityOne, Path: projector.PathUseRead},
			{Name: "cwd", Options: []string{"--cwd"}, Kind: projector.KindString, Arity: projector.ArityOne, Path: projector.PathUseDir},
			str("label", "--label"), str("config_file", "--config-file"), str("token", "--token"),
		}},
		{Path: []string{"state"}, Runnable: false, Params: []*projector.Param{}},
		{Path: []string{"state", "migrate"}, Runnable: true, Params: []*projector.Param{}},
	}}
}

// frontSurface registers verbs over frontTree with a recording runner.
func frontSurface(t *testing.T, opts *Options, verbs ...Verb) (*Surface, *[][]string) {
	t.Helper()
	reg, err := NewRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range verbs {
		if err := reg.Register(v); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	calls := &[][]string{}
	if opts == nil {
		opts = &Options{}
	}
	opts.Source = StaticTree(frontTree())
	if opts.Runner == nil {
		opts.Runner = RunnerFunc(func(_ context.Context, argv []string) (json.RawMessage, error) {
			mu.Lock()
			*calls = append(*calls, argv)
			mu.Unlock()
			return json.RawMessage(`{"ran":true}`), nil
		})
	}
	s, err := New(reg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, calls
}

func opResult(t *testing.T, s *Surface, req string) *OpResult {
	t.Helper()
	resp := s.Handle(context.Background(), json.RawMessage(req), nil)
	if len(resp.Results) != 1 {
		t.Fatalf("%s: %s", req, resp.JSON())
	}
	return resp.Results[0]
}

// A root verb is the program's root command: registered with an empty
// path, offered, run with no path words, and never matched as a command
// word (a caller names it by the verb).
func TestRootVerb(t *testing.T) {
	s, calls := frontSurface(t, nil,
		Verb{Name: "lint", Class: ClassObserve, Summary: "lint files"},
		Verb{Name: "things.list", Class: ClassObserve, Path: []string{"list"}, Summary: "list"})
	if u := s.Check(context.Background()); len(u) != 0 {
		t.Fatalf("Check: %+v", u)
	}
	if r := opResult(t, s, `{"ops":[{"op":"lint","args":{"files":["a.yaml"],"strict":true}}]}`); !r.OK {
		t.Fatalf("lint: %+v", r.Error)
	}
	if got := (*calls)[0]; !slices.Equal(got, []string{"--strict", "--", "a.yaml"}) {
		t.Errorf("argv %q; want no path words", got)
	}
	if r := opResult(t, s, `{"ops":[{"op":"nothing"}]}`); r.Error == nil || r.Error.Code != CodeUnknownVerb {
		t.Errorf("an unknown name beside a root verb: %+v", r)
	}
	if r := opResult(t, s, `{"ops":[{"op":"list"}]}`); !strings.Contains(r.Error.Message, "things.list") {
		t.Errorf("the CLI's word still finds its verb: %+v", r.Error)
	}
	// A tree that lists no root command cannot offer a root verb.
	reg, _ := NewRegistry(nil)
	reg.Register(Verb{Name: "lint", Class: ClassObserve})
	noRoot := &projector.Tree{Program: "x", Dialect: projector.DialectArgparse, Commands: []*projector.Command{{Path: []string{"a"}, Runnable: true}}}
	s2, err := New(reg, &Options{Source: StaticTree(noRoot), Runner: RunnerFunc(func(context.Context, []string) (json.RawMessage, error) { return nil, nil })})
	if err != nil {
		t.Fatal(err)
	}
	if u := s2.Check(context.Background()); len(u) != 1 || !strings.Contains(u[0].Reason, "no root command") {
		t.Errorf("Check without a root: %+v", u)
	}
}

// TestMachineSeamValue: the seam check reads the machine arguments with
// the command's model, one row per rule of Machine.seam and readFixed.
func TestMachineSeamValue(t *testing.T) {
	tr := frontTree()
	tests := []struct {
		name string
		path []string
		args []string
		want string // "" passes
	}{
		{"an option with one of its choices", []string{"list"}, []string{"-o", "json"}, ""},
		{"attached", []string{"list"}, []string{"--output=json"}, ""},
		{"a value outside the choices", []string{"list"}, []string{"-o", "jsn"}, "not one of the choices"},
		{"a missing value", []string{"list"}, []string{"-o"}, "takes a value"},
		{"a value on a flag", []string{"list"}, []string{"--all=yes"}, "takes no value"},
		{"a stray word", []string{"list"}, []string{"--all", "json"}, `"json" is not an option`},
		{"the option on a command without it", []string{"dump"}, []string{"-o", "json"}, `"dump" does not accept -o`},
		{"an option whose value is a file", []string{"export"}, []string{"--output", "json"}, "takes a path (parameter output)"},
		{"an option named like a file", []string{"dump"}, []string{"--write-output", "json"}, "takes a path (parameter write_output)"},
		{"a format option named like one but not one", []string{"export"}, []string{"--out-format", "json"}, ""},
		{"-o=v is refused", []string{"list"}, []string{"-o=json"}, "next word"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Machine{Args: tt.args}.Seam(tr, tr.Find(tt.path...))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Seam: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Seam: %v; want %q", err, tt.want)
			}
		})
	}
}

// Per verb: its own machine mode (or none), fixed arguments rendered after
// the path and withdrawn from the schema, and its own exclusions; each
// checked, so a mistake makes that verb unavailable, not another.
func TestPerVerbMachineArgsExclude(t *testing.T) {
	s, calls := frontSurface(t, &Options{Machine: Machine{Args: []string{"-o", "json"}}},
		Verb{Name: "things.list", Class: ClassObserve, Path: []string{"list"}},
		Verb{Name: "things.dump", Class: ClassObserve, Path: []string{"dump"}, Machine: &Machine{}},
		Verb{Name: "lint", Class: ClassObserve, Machine: &Machine{}, Args: []string{"-f", "parsable"}, Exclude: []string{"--strict"}},
		Verb{Name: "lint.bad", Class: ClassObserve, Machine: &Machine{}, Args: []string{"--format=colored"}},
		Verb{Name: "lint.typo", Class: ClassObserve, Machine: &Machine{}, Exclude: []string{"--stirct"}},
	)
	problems := map[string]string{}
	for _, u := range s.Check(context.Background()) {
		problems[u.Verb] = u.Reason
	}
	if len(problems) != 2 || !strings.Contains(problems["lint.bad"], "not one of the choices") || !strings.Contains(problems["lint.typo"], `excludes "--stirct"`) {
		t.Fatalf("Check: %v", problems)
	}
	if r := opResult(t, s, `{"ops":[{"op":"things.list","args":{"all":true}}]}`); !r.OK {
		t.Fatalf("things.list: %+v", r.Error)
	}
	if r := opResult(t, s, `{"ops":[{"op":"things.dump","args":{"write_output":"x"}}]}`); !r.OK {
		t.Fatalf("things.dump: %+v", r.Error)
	}
	if r := opResult(t, s, `{"ops":[{"op":"lint","args":{"files":["a"]}}]}`); !r.OK {
		t.Fatalf("lint: %+v", r.Error)
	}
	want := [][]string{{"list", "-o", "json", "--all"}, {"dump", "--write-output=x"}, {"-f", "parsable", "--", "a"}}
	if fmt.Sprint(*calls) != fmt.Sprint(want) {
		t.Errorf("argv %q; want %q", *calls, want)
	}
	for _, tc := range []struct{ args, param string }{{`{"format":"standard"}`, "format"}, {`{"strict":true}`, "strict"}} {
		r := opResult(t, s, `{"ops":[{"op":"lint","args":`+tc.args+`}]}`)
		if r.OK || r.Error.Code != CodeInvalidArgs || r.Error.Problems[0].Param != tc.param || r.Error.Problems[0].Rule != RuleUnknownParameter {
			t.Errorf("lint with %s, which the verb fixes or excludes: %+v", tc.args, r.Error)
		}
	}
	if len(*calls) != 3 {
		t.Errorf("refused ops ran: %q", *calls)
	}
}

// Verb.PathParams and StoredCommand.Param name parameters the caller can
// set, or the verb is unavailable: a typo never leaves a path unconfined.
func TestVerbNamesAreStrict(t *testing.T) {
	s, _ := frontSurface(t, nil,
		Verb{Name: "agent.ok", Class: ClassObserve, Path: []string{"agent"}, PathParams: map[string]projector.PathUse{"config_file": projector.PathUseRead}},
		Verb{Name: "agent.typo", Class: ClassObserve, Path: []string{"agent"}, PathParams: map[string]projector.PathUse{"config-file": projector.PathUseRead}},
		Verb{Name: "agent.gone", Class: ClassObserve, Path: []string{"agent"}, Exclude: []string{"label"}, PathParams: map[string]projector.PathUse{"label": projector.PathUseRead}},
		Verb{Name: "sched.typo", Class: ClassControl, Path: []string{"schedule"}, StoredCommand: &StoredCommand{Param: "commands", Allow: [][]string{{"agent"}}}},
		Verb{Name: "sched.scalar", Class: ClassControl, Path: []string{"schedule"}, StoredCommand: &StoredCommand{Param: "cron", Allow: [][]string{{"agent"}}}},
	)
	got := map[string]string{}
	for _, u := range s.Check(context.Background()) {
		got[u.Verb] = u.Param + ": " + u.Reason
	}
	for verb, want := range map[string]string{
		"agent.typo":   `config-file: the verb marks "config-file" as a path`,
		"agent.gone":   `label: the verb marks "label" as a path`,
		"sched.typo":   `commands: the verb guards "commands" as a stored command`,
		"sched.scalar": `cron: the verb guards "cron"`,
	} {
		param, reason, _ := strings.Cut(want, ": ")
		if !strings.HasPrefix(got[verb], param+": ") || !strings.Contains(got[verb], reason) {
			t.Errorf("%s: %q; want %q", verb, got[verb], want)
		}
	}
	if _, bad := got["agent.ok"]; bad || len(got) != 4 {
		t.Errorf("Check: %v", got)
	}
}

// TestStoredCommandGuard: one row per rule of StoredCommand, in its order;
// a refused op runs nothing.
func TestStoredCommandGuard(t *testing.T) {
	s, calls := frontSurface(t, &Options{Machine: Machine{Args: []string{"--json"}}},
		Verb{Name: "schedule.add", Class: ClassControl, Path: []string{"schedule"}, Machine: &Machine{},
			StoredCommand: &StoredCommand{Param: "command", Allow: [][]string{{"agent"}}}},
		Verb{Name: "agent.submit", Class: ClassSpawn, Path: []string{"agent"}, Machine: &Machine{}, Args: []string{"--token=fixed"}},
	)
	tests := []struct {
		name    string
		command string
		want    string // "" is stored
	}{
		{"a plain command is stored", `["agent", "echo", "--label", "nightly"]`, ""},
		{"a word after -- is a positional", `["agent", "--", "--prompt-file=/etc/shadow"]`, ""},
		// 1. read with certainty
		{"an abbreviation", `["agent", "--prompt-f", "/etc/shadow", "echo"]`, "cannot be read with certainty"},
		{"an unknown option", `["agent", "--bogus", "echo"]`, "cannot be read with certainty"},
		{"a value that reads as an option", `["agent", "--label", "--prompt-file=/etc/shadow", "echo"]`, "cannot be read with certainty"},
		// 2. fenced or not allowed
		{"a fenced command", `["state", "migrate"]`, "fenced command"},
		{"a command not allowed", `["list", "--all"]`, `runs "list"; a stored command may run only "agent"`},
		// 3. excluded by the tree
		{"the tree's excluded --home", `["agent", "--home=/tmp/x", "echo"]`, "sets --home, which no caller may set"},
		// 4. what verbs keep
		{"a fixed argument", `["agent", "--token", "mine", "echo"]`, "sets --token, which is fixed by agent.submit"},
		// 5. paths
		{"a marked file", `["agent", "--prompt-file", "/etc/shadow", "--cwd=/", "echo"]`, "sets --prompt-file, which names a file"},
		{"a marked directory", `["agent", "--cwd=/", "echo"]`, "sets --cwd, which names a file"},
		{"an option named like a file", `["agent", "--config-file=/etc/x", "echo"]`, "sets --config-file, which names a file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(*calls)
			r := opResult(t, s, `{"ops":[{"op":"schedule.add","args":{"cron":"* * * * *","command":`+tt.command+`}}]}`)
			if tt.want == "" {
				if !r.OK {
					t.Fatalf("refused: %+v", r.Error)
				}
				return
			}
			if r.OK || r.Error.Code != CodeInvalidArgs || len(r.Error.Problems) != 1 || r.Error.Problems[0].Param != "command" ||
				r.Error.Problems[0].Rule != RuleStoredCommand || !strings.Contains(r.Error.Problems[0].Reason, tt.want) || r.Error.Schema == nil {
				t.Fatalf("want invalid_args on command (%s) %q; got %+v", RuleStoredCommand, tt.want, r.Error)
			}
			if len(*calls) != before {
				t.Errorf("a refused op ran: %q", (*calls)[before:])
			}
		})
	}
	// The machine option of the surface, however the tree spells it.
	s2, _ := frontSurface(t, &Options{Machine: Machine{Args: []string{"--label=x"}}},
		Verb{Name: "schedule.add", Class: ClassControl, Path: []string{"schedule"}, Machine: &Machine{},
			StoredCommand: &StoredCommand{Param: "command", Allow: [][]string{{"agent"}}}})
	r := opResult(t, s2, `{"ops":[{"op":"schedule.add","args":{"command":["agent","--label","y","echo"]}}]}`)
	if r.OK || !strings.Contains(r.Error.Problems[0].Reason, "the machine option") {
		t.Errorf("a stored machine option: %+v", r.Error)
	}
}

// A verb's own Runner runs its commands, under the same in-flight slots as
// Options.Runner: with one slot held by the surface's runner, the verb's
// command queues for it and starts only once it is released.
func TestVerbRunnerSharesTheSlots(t *testing.T) {
	release := make(chan struct{})
	started := make(chan string, 2)
	runner := func(tag string, block bool) Runner {
		return RunnerFunc(func(ctx context.Context, argv []string) (json.RawMessage, error) {
			started <- tag
			if block {
				<-release
			}
			return json.RawMessage(`"` + tag + `"`), nil
		})
	}
	s, _ := frontSurface(t, &Options{MaxInFlight: 1, Runner: runner("surface", true)},
		Verb{Name: "things.list", Class: ClassObserve, Path: []string{"list"}},
		Verb{Name: "lint", Class: ClassObserve, Runner: runner("verb", false)})
	results := make(chan string, 2)
	do := func(op string) {
		resp := s.Handle(context.Background(), json.RawMessage(`{"ops":[{"op":"`+op+`"}]}`), nil)
		results <- op + "=" + string(resp.Results[0].Result)
	}
	go do("things.list")
	if tag := <-started; tag != "surface" {
		t.Fatalf("first start %q", tag)
	}
	go do("lint")
	for { // the verb's command is queued for the one slot
		s.slots.mu.Lock()
		n := s.slots.waiters.Len()
		s.slots.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case tag := <-started:
		t.Fatalf("%s started while the one slot was held", tag)
	default:
	}
	close(release)
	got := []string{<-results, <-results}
	slices.Sort(got)
	if fmt.Sprint(got) != `[lint="verb" things.list="surface"]` {
		t.Errorf("results %q", got)
	}
}

// New refuses a verb that runs its command with no runner at all.
func TestNewNeedsARunnerPerVerb(t *testing.T) {
	reg, _ := NewRegistry(nil)
	if err := reg.Register(Verb{Name: "lint", Class: ClassObserve, Runner: RunnerFunc(func(context.Context, []string) (json.RawMessage, error) { return nil, nil })}); err != nil {
		t.Fatal(err)
	}
	if _, err := New(reg, &Options{Source: StaticTree(frontTree())}); err != nil {
		t.Errorf("a verb with its own runner needs no Options.Runner: %v", err)
	}
	if err := reg.Register(Verb{Name: "other", Class: ClassObserve, Path: []string{"list"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := New(reg, &Options{Source: StaticTree(frontTree())}); err == nil || !strings.Contains(err.Error(), `verb "other"`) {
		t.Errorf("New: %v", err)
	}
}
