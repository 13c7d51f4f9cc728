//go:build unix

package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/guard"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/playbook"

	"github.com/verbsurface/verbsurface/dispatch"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// ExcludedFlags are limcp flags that are never a caller's parameter, on any
// verb: "json" (the server always renders machine mode itself), "home"
// (a caller must not repoint the state directory; the server's home rides in
// LIMCP_HOME), and "notify-url" and "notify-command" (a terminal notify
// command is arbitrary code execution, and a notify URL would let a caller
// make the CLI send requests on its behalf), and "quiet" (how the CLI
// prints a submit for a person's script; the server reads the machine
// result). They are left out of the walk, so no schema carries them and
// nothing can render them.
//
// "now" and "spawn-budget" (schedule tick's clock and budget) are excluded
// too: a caller who chose the clock could make every schedule due at will,
// and one who set the budget could lift the spawn limits; the server sets
// the budget itself (scheduleTick).
var ExcludedFlags = append(append([]string(nil), guard.Forbidden...), "quiet", "now", SpawnBudgetFlag)

// SynonymSunset is when the v1 tool names stop being accepted as synonyms:
// already past, so they are rejected with the verb to use.
var SynonymSunset = time.Date(2026, 9, 30, 0, 0, 0, 0, time.UTC)

// verbSpec is one row of the verb table.
type verbSpec struct {
	name     string
	class    verbsurface.Class
	path     []string
	summary  string
	synonyms []string
}

// verbTable is the allowlist: every verb the server offers, explicitly.
// A command added to the CLI is not reachable until it is added here.
// job.wait and job.kill get handlers; play.submit its dynamic parameter.
// The fenced commands (state migrate, plugin trust, hooks trust) are not
// here, and the registry would refuse them if they were.
var verbTable = []verbSpec{
	{name: "agent.submit", class: verbsurface.ClassSpawn, path: []string{"agent"},
		summary: "start one agent run in the background", synonyms: []string{"submit_agent"}},
	{name: "fanout.submit", class: verbsurface.ClassSpawn, path: []string{"fanout"},
		summary: "run one prompt N times, optionally synthesised", synonyms: []string{"submit_fanout"}},
	{name: "flow.submit", class: verbsurface.ClassSpawn, path: []string{"flow"},
		summary: "run a DAG of agent steps from a spec file", synonyms: []string{"submit_flow"}},
	{name: "play.submit", class: verbsurface.ClassSpawn, path: []string{"play"},
		summary: "start a playbook's flow (the playbook adds args)"},

	{name: "job.status", class: verbsurface.ClassObserve, path: []string{"job", "status"},
		summary: "records by id or 8+ char prefix, with children", synonyms: []string{"job_status"}},
	{name: "job.output", class: verbsurface.ClassObserve, path: []string{"job", "output"},
		summary: "a run's captured stdout and stderr", synonyms: []string{"job_output"}},
	{name: "job.list", class: verbsurface.ClassObserve, path: []string{"job", "list"},
		summary: "records newest first, paginated", synonyms: []string{"jobs_list"}},
	{name: "job.wait", class: verbsurface.ClassObserve, path: []string{"job", "wait"},
		summary: "wait until runs end; every id partitioned"},
	{name: "job.kill", class: verbsurface.ClassControl, path: []string{"kill"},
		summary: "stop a run and everything under it", synonyms: []string{"job_kill"}},

	{name: "schedule.add", class: verbsurface.ClassControl, path: []string{"schedule", "add"},
		summary: "run a spawn command on a cron schedule"},
	{name: "schedule.list", class: verbsurface.ClassObserve, path: []string{"schedule", "list"},
		summary: "list schedules"},
	{name: "schedule.show", class: verbsurface.ClassObserve, path: []string{"schedule", "show"},
		summary: "show one schedule"},
	{name: "schedule.remove", class: verbsurface.ClassControl, path: []string{"schedule", "remove"},
		summary: "remove a schedule"},
	{name: "schedule.tick", class: verbsurface.ClassControl, path: []string{"schedule", "tick"},
		summary: "start due schedules, within the spawn limits"},

	{name: "team.create", class: verbsurface.ClassControl, path: []string{"team", "create"},
		summary: "create a team board"},
	{name: "team.list", class: verbsurface.ClassObserve, path: []string{"team", "list"},
		summary: "list team boards"},
	{name: "team.post", class: verbsurface.ClassControl, path: []string{"team", "post"},
		summary: "post a message on a team board"},
	{name: "team.read", class: verbsurface.ClassObserve, path: []string{"team", "read"},
		summary: "read a team board, oldest first"},

	{name: "state.list", class: verbsurface.ClassObserve, path: []string{"state", "list"},
		summary: "what the state home holds"},
	{name: "state.show", class: verbsurface.ClassObserve, path: []string{"state", "show"},
		summary: "where state lives, how the store is set up"},
	{name: "state.doctor", class: verbsurface.ClassObserve, path: []string{"state", "doctor"},
		summary: "read-only health check of the store"},
	{name: "monitor", class: verbsurface.ClassObserve, path: []string{"monitor"},
		summary: "what runs now, with process evidence"},
	{name: "stats", class: verbsurface.ClassObserve, path: []string{"stats"},
		summary: "counts by kind and status; run durations"},
}

// AllowedVerb is one row of the allowlist as an inventory reports it: the
// verb, its class, and the command path it runs or mirrors.
type AllowedVerb struct {
	Verb  string            `json:"verb"`
	Class verbsurface.Class `json:"class"`
	Path  []string          `json:"path"`
}

// Allowlist returns every verb the server offers, in table order: what
// `limcp inventory` checks its own tree against.
func Allowlist() []AllowedVerb {
	out := make([]AllowedVerb, len(verbTable))
	for i, v := range verbTable {
		out[i] = AllowedVerb{Verb: v.name, Class: v.class, Path: append([]string(nil), v.path...)}
	}
	return out
}

// register builds the registry from the table.
func (s *Server) register() (*verbsurface.Registry, error) {
	reg, err := verbsurface.NewRegistry(nil) // DefaultFence
	if err != nil {
		return nil, err
	}
	// Both read the caller's file through the one the surface opened
	// inside a root (verbsurface.OpenConfined): no second open by name.
	prompts := dispatch.PromptSnapshots{Open: verbsurface.OpenConfined}
	specs := dispatch.FileSnapshots{Param: "spec", Open: verbsurface.OpenConfined}
	for _, spec := range verbTable {
		v := verbsurface.Verb{Name: spec.name, Class: spec.class, Path: spec.path,
			Summary: spec.summary, Synonyms: spec.synonyms}
		if s.takesPrompt(spec.path) {
			v.Prepare = prompts.Prepare
		}
		if spec.name == "flow.submit" {
			// The spec gets what prompt_file has: capped, checked and
			// snapshotted, so the CLI parses exactly what was checked.
			v.Prepare = verbsurface.ChainPreparers(prompts.Prepare, specs.Prepare)
		}
		switch spec.name {
		case "job.wait":
			v.Handler = s.jobWait()
		case "job.kill":
			v.Handler = s.jobKill()
		case "play.submit":
			v.Dynamic = &verbsurface.Dynamic{Param: "playbook", Inject: s.injectPlaybook}
		case "schedule.tick":
			// It starts runs: each one counts as a submit would
			// (verbsurface.Verb.Spawns, scheduleTick).
			v.Spawns, v.Handler = true, s.scheduleTick()
		}
		if err := reg.Register(v); err != nil {
			return nil, fmt.Errorf("server: registering %s: %w", spec.name, err)
		}
	}
	return reg, nil
}

// takesPrompt reports whether the command at path has both prompt
// parameters, "prompt" and "prompt_file": such a verb's prompt is read and
// snapshotted at submit (dispatch.PromptSnapshots, contract C4). The CLI
// reads a --prompt-file before the command exits, which the snapshot's
// lifetime requires.
func (s *Server) takesPrompt(path []string) bool {
	cmd := s.tree.Find(path...)
	if cmd == nil {
		return false
	}
	var text, file bool
	for _, p := range cmd.Params {
		text = text || p.Name == dispatch.DefaultPromptTextParam
		file = file || p.Name == dispatch.DefaultPromptFileParam
	}
	return text && file
}

// policy is the surface's policy: ReadOnly when the server is read-only,
// and always the guard on stored commands.
func (s *Server) policy(ctx context.Context, op verbsurface.PolicyOp) error {
	if s.opts.ReadOnly {
		if err := verbsurface.ReadOnly(ctx, op); err != nil {
			return err
		}
	}
	if err := s.storedCommandGuard(op); err != nil {
		return err
	}
	if s.live != nil && op.Verb == "schedule.tick" {
		// A tick starts runs like a submit: refused, like one, when the
		// live runs are at the limit (its handler reserves what is left).
		room, limit, err := s.live.headroom(ctx)
		if err != nil {
			return err
		}
		if room == 0 {
			return fmt.Errorf("%s; no schedule was started: wait for one to end (job.wait) and resend", limit)
		}
	}
	if s.live != nil {
		// Last: an op it admits is pending until onOp releases it.
		return s.live.admit(ctx, op)
	}
	return nil
}

// storedCommandGuard refuses a schedule whose stored command would set a
// forbidden flag (guard.Forbidden: the excluded flags) when it runs.
// schedule.add stores an argv that `schedule tick` later runs as a spawn
// command: the one place a caller's words become flags of a command the
// caller does not render through the schema. The guard parses the words
// with a fresh limcp tree and the playbook as it is now, so no spelling
// slips past a token scan; the CLI runs the same guard when it stores the
// command and again at every tick, since a playbook may change meanwhile.
// The server's guard also refuses a flag naming a file (--prompt-file,
// --spec, --cwd): see guard.CheckNoFiles.
func (s *Server) storedCommandGuard(op verbsurface.PolicyOp) error {
	if op.Verb != "schedule.add" {
		return nil
	}
	words, _ := op.Args["command"].([]any)
	argv := make([]string, 0, len(words))
	for _, w := range words {
		str, _ := w.(string)
		argv = append(argv, str)
	}
	err := guard.CheckNoFiles(s.opts.NewRoot(), argv, func(root *cobra.Command, name string) error {
		_, err := playbook.Inject(root, s.opts.Home, name)
		return err
	})
	var r *guard.Refusal
	if errors.As(err, &r) && r.Forbidden != "" {
		return errors.New(r.Reason)
	}
	// Anything else (no such playbook, flags that do not parse) the CLI
	// refuses in its own terms when it runs the same guard at add.
	return nil
}
