// Package testcli is the fixture CLI the verbsurface tests project and run:
// a small cobra program in the shape of the reference CLI (a persistent
// --json machine-mode flag on the root; commands that print one machine
// result on stdout), with the awkward cases the surface must handle: a
// spawn-like command with an exclusive prompt/prompt_file pair, a fenced
// "state migrate", a command with a pflag type outside the supported set,
// a group that runs nothing, and a "play" command whose --playbook value
// injects the playbook's declared flags, exactly as [Inject] does for the
// surface's injector.
//
// The binary (cmd/testcli) reads TESTCLI_STATE (a directory for job files
// and markers), TESTCLI_PLAYBOOKS (the playbook directory) and
// TESTCLI_SUBMIT_DELAY_MS (a pause inside "agent submit", so a test can
// cancel while it runs).
package testcli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromcobra"
)

// Env is what the commands read from the environment.
type Env struct {
	State     string // directory for job files and markers
	Playbooks string // playbook directory
	DelayMS   int    // pause in agent submit
}

// EnvFromOS reads Env from the process environment.
func EnvFromOS() Env {
	d, _ := strconv.Atoi(os.Getenv("TESTCLI_SUBMIT_DELAY_MS"))
	return Env{State: os.Getenv("TESTCLI_STATE"), Playbooks: os.Getenv("TESTCLI_PLAYBOOKS"), DelayMS: d}
}

// Error is a CLI error: printed as the machine result's error object.
type Error struct {
	Code    string
	Message string
	Details any
}

func (e *Error) Error() string { return e.Message }

var jobSeq atomic.Int64

// NewRoot builds a fresh command tree. Each call returns a new tree, so an
// injection never leaks into another walk.
func NewRoot(env Env, stdout io.Writer) *cobra.Command {
	root := &cobra.Command{Use: "testcli", Short: "fixture CLI for verbsurface", SilenceUsage: true, SilenceErrors: true}
	root.PersistentFlags().Bool("json", false, "print one machine result on stdout")
	root.CompletionOptions.DisableDefaultCmd = true

	emit := func(c *cobra.Command, data any) error {
		machine, _ := c.Flags().GetBool("json")
		if !machine {
			_, err := fmt.Fprintf(stdout, "%v\n", data)
			return err
		}
		return json.NewEncoder(stdout).Encode(map[string]any{"result_version": 1, "ok": true, "data": data})
	}

	// agent submit: the spawn-like command.
	agent := &cobra.Command{Use: "agent", Short: "agent runs"}
	submit := &cobra.Command{
		Use:   "submit",
		Short: "start one agent run in the background",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			f := c.Flags()
			prompt, source := f.Lookup("prompt").Value.String(), "prompt"
			if path := f.Lookup("prompt-file").Value.String(); path != "" {
				b, err := os.ReadFile(path)
				if err != nil {
					return &Error{Code: "prompt_unreadable", Message: err.Error()}
				}
				prompt, source = string(b), "prompt_file"
			}
			if env.DelayMS > 0 {
				time.Sleep(time.Duration(env.DelayMS) * time.Millisecond)
			}
			sum := sha256.Sum256([]byte(prompt))
			id := fmt.Sprintf("j-%d-%d", time.Now().UnixNano(), jobSeq.Add(1))
			model, _ := f.GetString("model")
			if err := writeJob(env, id, map[string]any{"id": id, "status": "running", "model": model}); err != nil {
				return err
			}
			return emit(c, map[string]any{"job_id": id, "model": model, "prompt_source": source,
				"prompt_sha256": hex.EncodeToString(sum[:]), "echo": echoFlags(c)})
		},
	}
	sf := submit.Flags()
	sf.String("model", "", "model to run")
	_ = submit.MarkFlagRequired("model")
	sf.String("prompt", "", "prompt text")
	sf.String("prompt-file", "", "absolute path of a prompt file")
	submit.MarkFlagsMutuallyExclusive("prompt", "prompt-file")
	submit.MarkFlagsOneRequired("prompt", "prompt-file")
	sf.Int8("max-turns", 10, "turn budget")
	sf.Float64("temperature", 0.7, "sampling temperature")
	sf.StringSlice("tag", nil, "tags")
	sf.StringArray("env", nil, "KEY=VALUE environment entries")
	sf.Duration("timeout", 10*time.Minute, "run deadline")
	sf.Bool("dry-run", false, "validate only")
	sf.Uint8("priority", 5, "scheduling priority")
	sf.String("workdir", "", "working directory")
	sf.IntSlice("retry-codes", nil, "exit codes that retry")
	agent.AddCommand(submit)

	// job: a group (runs nothing) of observe commands.
	job := &cobra.Command{Use: "job", Short: "jobs"}
	status := &cobra.Command{
		Use: "status ID", Short: "show one job's status", Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			j, err := readJob(env, args[0])
			if err != nil {
				return err
			}
			return emit(c, j)
		},
	}
	list := &cobra.Command{
		Use: "list", Short: "list jobs", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			limit, _ := c.Flags().GetInt("limit")
			want, _ := c.Flags().GetString("status")
			if limit < 0 {
				// The CLI's own check of one argument, reported the way
				// verbsurface's CLIArgumentCodes convention reads.
				return &Error{Code: "invalid_argument", Message: fmt.Sprintf("--limit %d: a limit is not negative", limit), Details: map[string]any{"argument": "limit"}}
			}
			if want == "unknown" {
				return &Error{Code: "usage_error", Message: `--status "unknown": no such status`, Details: map[string]any{"argument": "--status"}}
			}
			jobs, err := listJobs(env)
			if err != nil {
				return err
			}
			var out []map[string]any
			for _, j := range jobs {
				if want != "" && j["status"] != want {
					continue
				}
				if limit > 0 && len(out) == limit {
					break
				}
				out = append(out, j)
			}
			if out == nil {
				out = []map[string]any{}
			}
			return emit(c, map[string]any{"jobs": out})
		},
	}
	list.Flags().String("status", "", "only jobs with this status")
	list.Flags().Int("limit", 0, "at most this many")
	output := &cobra.Command{
		Use: "output ID", Short: "print a job's output", Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if _, err := readJob(env, args[0]); err != nil {
				return err
			}
			return emit(c, map[string]any{"id": args[0], "output": ""})
		},
	}
	wait := &cobra.Command{
		Use: "wait ID", Short: "wait for a job to end", Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			j, err := readJob(env, args[0])
			if err != nil {
				return err
			}
			return emit(c, j)
		},
	}
	wait.Flags().Duration("timeout", time.Minute, "give up after")
	watch := &cobra.Command{
		Use: "watch ID", Short: "watch a job for a while", Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ms, _ := c.Flags().GetInt("ms")
			time.Sleep(time.Duration(ms) * time.Millisecond)
			if err := mark(env, args[0]+".watched"); err != nil {
				return err
			}
			return emit(c, map[string]any{"id": args[0], "watched_ms": ms})
		},
	}
	watch.Flags().Int("ms", 0, "how long to watch")
	tag := &cobra.Command{
		Use: "tag ID TAGS...", Short: "tag a job", Args: cobra.MinimumNArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			return emit(c, map[string]any{"id": args[0], "tags": args[1:]})
		},
	}
	job.AddCommand(status, list, output, wait, watch, tag)

	kill := &cobra.Command{
		Use: "kill ID", Short: "stop a job", Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			force, _ := c.Flags().GetBool("force")
			if err := mark(env, args[0]+".killed"); err != nil {
				return err
			}
			return emit(c, map[string]any{"id": args[0], "killed": true, "force": force})
		},
	}
	kill.Flags().Bool("force", false, "SIGKILL at once")

	mode := &cobra.Command{
		Use: "mode MODE", Short: "set the scheduling mode", ValidArgs: []string{"fast", "safe"},
		Args: cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		RunE: func(c *cobra.Command, args []string) error {
			return emit(c, map[string]any{"mode": args[0]})
		},
	}

	state := &cobra.Command{Use: "state", Short: "state store"}
	migrate := &cobra.Command{
		Use: "migrate", Aliases: []string{"upgrade"}, Short: "migrate the state store schema", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := mark(env, "MIGRATED"); err != nil {
				return err
			}
			return emit(c, map[string]any{"migrated": true})
		},
	}
	migrate.Flags().Int("to", 0, "target version")
	state.AddCommand(migrate)
	plugin := &cobra.Command{Use: "plugin", Short: "plugins"}
	trust := &cobra.Command{
		Use: "trust NAME", Short: "trust a plugin", Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := mark(env, "TRUSTED"); err != nil {
				return err
			}
			return emit(c, map[string]any{"trusted": args[0]})
		},
	}
	plugin.AddCommand(trust)

	netCmd := &cobra.Command{Use: "net", Short: "network policy"}
	allow := &cobra.Command{
		Use: "allow", Short: "allow a network range", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return emit(c, map[string]any{"allowed": c.Flags().Lookup("cidr").Value.String()})
		},
	}
	// A custom Value that claims a type the projector maps (intSlice) but
	// prints a default that type cannot read: the projector will not guess,
	// so net.allow is the fixture's unavailable verb, blamed on --cidr.
	allow.Flags().Var(&cidrValue{}, "cidr", "range to allow")
	netCmd.AddCommand(allow)

	play := &cobra.Command{
		Use: "play", Short: "run a playbook", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			name, _ := c.Flags().GetString("playbook")
			return emit(c, map[string]any{"playbook": name, "echo": echoFlags(c)})
		},
	}
	play.Flags().String("playbook", "", "playbook name (it declares more flags)")
	_ = play.MarkFlagRequired("playbook")
	play.Flags().String("prompt", "", "prompt text")

	root.AddCommand(agent, job, kill, mode, state, plugin, netCmd, play)
	return root
}

// echoFlags returns every flag the command parsed that was set, by name.
func echoFlags(c *cobra.Command) map[string]any {
	out := map[string]any{}
	c.Flags().Visit(func(f *pflag.Flag) {
		if f.Name == "json" {
			return
		}
		switch v := f.Value.(type) {
		case pflag.SliceValue:
			out[f.Name] = v.GetSlice()
		default:
			out[f.Name] = f.Value.String()
		}
	})
	return out
}

// Playbook is a playbook file's content: the flags it declares.
type Playbook struct {
	Args []PlaybookArg `json:"args"`
}

// PlaybookArg is one declared flag.
type PlaybookArg struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"` // string, int, bool
	Required bool   `json:"required,omitempty"`
	Usage    string `json:"usage,omitempty"`
}

// Inject adds the playbook's declared flags to root's play command and
// returns the playbook file's bytes. The CLI does this before parsing.
func Inject(root *cobra.Command, dir, name string) ([]byte, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return nil, &Error{Code: "unknown_playbook", Message: fmt.Sprintf("playbook name %q is not a plain name", name)}
	}
	raw, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if err != nil {
		return nil, &Error{Code: "unknown_playbook", Message: fmt.Sprintf("no playbook %q in %s", name, dir)}
	}
	var pb Playbook
	if err := json.Unmarshal(raw, &pb); err != nil {
		return nil, &Error{Code: "bad_playbook", Message: fmt.Sprintf("playbook %q: %v", name, err)}
	}
	play, _, err := root.Find([]string{"play"})
	if err != nil {
		return nil, err
	}
	for _, a := range pb.Args {
		if play.Flags().Lookup(a.Name) != nil {
			return nil, &Error{Code: "bad_playbook", Message: fmt.Sprintf("playbook %q redeclares --%s", name, a.Name)}
		}
		switch a.Kind {
		case "string":
			play.Flags().String(a.Name, "", a.Usage)
		case "int":
			play.Flags().Int(a.Name, 0, a.Usage)
		case "bool":
			play.Flags().Bool(a.Name, false, a.Usage)
		case "ip":
			// A network range the projector cannot read the default of
			// (see cidrValue): the injected schema is unavailable.
			play.Flags().Var(&cidrValue{}, a.Name, a.Usage)
		default:
			return nil, &Error{Code: "bad_playbook", Message: fmt.Sprintf("playbook %q: arg %q has kind %q", name, a.Name, a.Kind)}
		}
		if a.Required {
			_ = play.MarkFlagRequired(a.Name)
		}
	}
	return raw, nil
}

// walkOptions is how the fixture tree is walked: the machine-mode flag is
// the surface's to set, never a caller parameter.
var walkOptions = &fromcobra.Options{ExcludeFlags: []string{"json"}}

// Tree walks a fresh fixture tree in-process, as an embedding program
// walks its own cobra tree.
func Tree(env Env) (*projector.Tree, error) {
	return fromcobra.Walk(NewRoot(env, io.Discard), walkOptions)
}

// Injector is the fixture's dynamic injection for "play": it performs on a
// fresh tree exactly the injection the binary performs before parsing
// ([Inject]), walks the result, and fingerprints the playbook's bytes.
func Injector(env Env) projector.Injector {
	return func(value string) (*projector.Command, string, error) {
		root := NewRoot(env, io.Discard)
		raw, err := Inject(root, env.Playbooks, value)
		if err != nil {
			return nil, "", err
		}
		t, err := fromcobra.Walk(root, walkOptions)
		if err != nil {
			return nil, "", err
		}
		cmd := t.Find("play")
		if cmd == nil {
			return nil, "", fmt.Errorf("testcli: no play command after injecting %q", value)
		}
		return cmd, projector.ContentFingerprint(raw), nil
	}
}

// playbookArg finds "--playbook" in argv the way the CLI does before
// parsing: "--playbook=NAME" or "--playbook NAME" after "play".
func playbookArg(argv []string) (string, bool) {
	if len(argv) == 0 || argv[0] != "play" {
		return "", false
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "--playbook="); ok {
			return v, true
		}
		if a == "--playbook" && i+1 < len(argv) {
			return argv[i+1], true
		}
	}
	return "", false
}

// cidrValue is a network range flag whose Type() claims intSlice.
type cidrValue struct{ n net.IPNet }

func (v *cidrValue) String() string { return v.n.String() }
func (v *cidrValue) Type() string   { return "intSlice" }
func (v *cidrValue) Set(s string) error {
	_, n, err := net.ParseCIDR(s)
	if err == nil {
		v.n = *n
	}
	return err
}

// Main runs the CLI on argv (without the program) and returns the exit
// code. With --json every outcome is one machine result on stdout.
func Main(argv []string, stdout, stderr io.Writer) int {
	return MainEnv(EnvFromOS(), argv, stdout, stderr)
}

// MainEnv is Main with the environment given.
func MainEnv(env Env, argv []string, stdout, stderr io.Writer) int {
	root := NewRoot(env, stdout)
	machine := false
	for _, a := range argv {
		if a == "--" {
			break
		}
		if a == "--json" || a == "--json=true" {
			machine = true
		}
	}
	fail := func(err error) int {
		var ce *Error
		if !errors.As(err, &ce) {
			ce = &Error{Code: "usage", Message: err.Error()}
		}
		fmt.Fprintln(stderr, "testcli:", ce.Message)
		if machine {
			_ = json.NewEncoder(stdout).Encode(map[string]any{"result_version": 1, "ok": false,
				"error": map[string]any{"code": ce.Code, "message": ce.Message, "details": ce.Details}})
		}
		return 1
	}
	if name, ok := playbookArg(argv); ok {
		if _, err := Inject(root, env.Playbooks, name); err != nil {
			return fail(err)
		}
	}
	root.SetArgs(argv)
	root.SetOut(stderr)
	root.SetErr(stderr)
	if err := root.Execute(); err != nil {
		return fail(err)
	}
	return 0
}

func writeJob(env Env, id string, j map[string]any) error {
	if env.State == "" {
		return nil
	}
	b, _ := json.Marshal(j)
	return os.WriteFile(filepath.Join(env.State, id+".job"), b, 0o644)
}

func readJob(env Env, id string) (map[string]any, error) {
	b, err := os.ReadFile(filepath.Join(env.State, filepath.Base(id)+".job"))
	if err != nil {
		return nil, &Error{Code: "not_found", Message: fmt.Sprintf("no job %q", id), Details: map[string]any{"id": id}}
	}
	var j map[string]any
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, err
	}
	return j, nil
}

func listJobs(env Env) ([]map[string]any, error) {
	if env.State == "" {
		return nil, nil
	}
	names, err := filepath.Glob(filepath.Join(env.State, "*.job"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []map[string]any
	for _, n := range names {
		j, err := readJob(env, strings.TrimSuffix(filepath.Base(n), ".job"))
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}

func mark(env Env, name string) error {
	if env.State == "" {
		return nil
	}
	return os.WriteFile(filepath.Join(env.State, name), []byte("1"), 0o644)
}
