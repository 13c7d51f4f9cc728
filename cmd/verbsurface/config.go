//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/verbsurface/verbsurface/dispatch"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
	"github.com/verbsurface/verbsurface/wait"
	"go.yaml.in/yaml/v3"
)

// Config is the one YAML document that fronts a CLI. Every key is
// documented in docs/fronting.md; a key not declared here is refused, so a
// misspelt key never passes in silence.
type Config struct {
	// Name is the server's name (serverInfo.name) and the tool's title.
	Name string `yaml:"name"`
	// Command is the executable and its fixed leading arguments.
	Command []string `yaml:"command"`
	// Machine is how the CLI is put into machine mode (none: the CLI
	// prints its output as it is, or the machine result always).
	Machine MachineConfig `yaml:"machine"`
	// Output is how the CLI answers on stdout: envelope (the default: the
	// machine-result contract), json, jsonl or text (dispatch.Output).
	Output string `yaml:"output"`
	// OKExit lists the exit statuses that mean success under json, jsonl
	// and text (default [0]).
	OKExit []int `yaml:"ok_exit"`
	// OutputStream is the stream output: reads, stdout (the default) or
	// stderr (config_stream.go).
	OutputStream string `yaml:"output_stream"`
	// Cwd is the directory the CLI runs in (default: the server's);
	// relative to the configuration's directory. Never a caller's choice.
	Cwd string `yaml:"cwd"`
	// Source is where the parser tree comes from: exactly one of its keys.
	Source SourceConfig `yaml:"source"`
	// Env names the variables passed to the CLI besides the allowlist.
	Env EnvConfig `yaml:"env"`
	// Exclude names parameters no caller may set (by name or option).
	Exclude []string `yaml:"exclude"`
	// Fence lists command paths never offered. Absent: verbsurface's
	// default fence; an empty list fences nothing.
	Fence *[][]string `yaml:"fence"`
	// Verbs is the allowlist.
	Verbs []VerbConfig `yaml:"verbs"`
	// Roots are the directories under which callers may name files.
	Roots []string `yaml:"roots"`
	// AllowHardLinks admits a file with more than one name under the
	// roots (verbsurface.Options.AllowHardLinks); refused by default.
	AllowHardLinks bool `yaml:"allow_hard_links"`
	// Policy is a policy file (package policy): allow, ask or deny per
	// verb and argument, checked against the live verbs at start.
	Policy string `yaml:"policy"`
	// OAuth makes the HTTP face accept OAuth 2.1 access tokens instead of
	// the static token (see OAuthConfig).
	OAuth *OAuthConfig `yaml:"oauth"`
	// Identity passes an OAuth caller's identity to the runs (see
	// IdentityConfig).
	Identity *IdentityConfig `yaml:"identity"`
	// Timeout bounds each CLI command ("30s"); empty: dispatch's default.
	Timeout string `yaml:"timeout"`
	// Wait adds a job.wait verb over package wait (the CLI's observe
	// command), for CLIs with background runs.
	Wait *WaitConfig `yaml:"wait"`
	// Kill adds a job.kill verb over package kill (the CLI's own kill).
	Kill *KillConfig `yaml:"kill"`
	// HelpBudget caps one help answer's text in bytes
	// (verbsurface.Options.HelpBudget: 0 is its 8 KiB default; at least
	// 1,024; -1: no budget). Past it the catalog answers by namespace.
	HelpBudget int `yaml:"help_budget"`

	file     string   // where it was read from, for errors
	private  []string // what serve keeps out of the roots (its token)
	dir      string   // its directory: relative paths are relative to it
	lineOf   func(key string) int
	doc      *yaml.Node      // the document, for the lines of nested keys
	declared *projector.Tree // source.declared's tree, once checked

	// readOnDemand says how a cobra source is read (ondemand.go): whole
	// before the front answers (check, inventory, call), or on demand
	// and in the background (serve); onDemand is that source, and stderr
	// where it says what it found in the commands it read.
	readOnDemand onDemandMode
	onDemand     *onDemand
	stderr       io.Writer
}

// MachineConfig is verbsurface.Machine in YAML.
type MachineConfig struct {
	Args []string `yaml:"args"`
	At   string   `yaml:"at"`
}

// SourceConfig says where the parser tree comes from.
type SourceConfig struct {
	Argparse *PythonSource `yaml:"argparse"`
	Click    *PythonSource `yaml:"click"`
	// TreeCommand is a command that prints the tree as JSON
	// (fromcobra.TreeCommand's __verbsurface-tree).
	TreeCommand []string `yaml:"tree_command"`
	// TreeFile is a file holding the tree as JSON.
	TreeFile string `yaml:"tree_file"`
	// Cobra is an installed cobra program nobody modified, as it is
	// started ([BINARY, ARGS...]): the tree is read from its completion
	// protocol and --help (projector/fromcobrabin).
	Cobra []string `yaml:"cobra"`
	// Read is when serve reads a cobra program's commands: on_demand
	// (the default: it lists them at start and reads each as a request
	// first needs it, the rest in the background; ondemand.go) or all
	// (every one before it answers, as check does).
	Read string `yaml:"read"`
	// Declared declares the commands of a program no reader can read
	// (config_declared.go).
	Declared *DeclaredSource `yaml:"declared"`
	// More holds optparse: and clap: (config_sources_more.go).
	More SourcesMore `yaml:",inline"`
}

// PythonSource walks a Python parser in process ("module:function").
type PythonSource struct {
	Target     string   `yaml:"target"`
	PythonPath []string `yaml:"pythonpath"`
	Python     string   `yaml:"python"`
	// Watch lists more files whose change reloads the tree (the module of
	// the target and the script in command are watched already).
	Watch []string `yaml:"watch"`

	// Exclude, Callbacks and StringTypes are fromclick.Options' own, for
	// source.click only: parameters left out while walking (so one the
	// projector cannot represent does not make its command unavailable),
	// callbacks that only validate and custom types that read a plain
	// string, each by qualified name, vouched for by the operator.
	Exclude     []string `yaml:"exclude"`
	Callbacks   []string `yaml:"callbacks"`
	StringTypes []string `yaml:"string_types"`
}

// EnvConfig is the CLI's environment beyond dispatch.DefaultEnvAllowlist.
type EnvConfig struct {
	Pass []string `yaml:"pass"`
}

// VerbConfig is one verb of the allowlist.
type VerbConfig struct {
	Name string `yaml:"name"`
	// Path is the command path; [] is the program's root command.
	Path        []string `yaml:"path"`
	Class       string   `yaml:"class"`
	Fingerprint bool     `yaml:"fingerprint"`
	Summary     string   `yaml:"summary"`
	// Files lists the parameters that name files: "param" (read),
	// "param:read", "param:write", "param:dir", "param:read_or_dir", or
	// "param:none" (not a path: unmarks it and silences check's warning).
	Files []string `yaml:"files"`
	// Output and OKExit replace the top-level ones for this verb (a verb
	// that sets output takes its own ok_exit, default [0]); Cwd the
	// top-level cwd.
	Output       string `yaml:"output"`
	OKExit       []int  `yaml:"ok_exit"`
	OutputStream string `yaml:"output_stream"`
	Cwd          string `yaml:"cwd"`
	// Machine replaces the top-level machine mode for this verb;
	// machine: {} says none.
	Machine *MachineConfig `yaml:"machine"`
	// Args are fixed arguments after the command path: options and their
	// values, which no caller sees or sets.
	Args []string `yaml:"args"`
	// Exclude names parameters of this verb's command no caller may set.
	Exclude []string `yaml:"exclude"`
	// StoredCommand guards a parameter holding a command line the CLI
	// stores and runs later.
	StoredCommand *StoredCommandConfig `yaml:"stored_command"`
	// Spawns marks a verb of another class whose command starts runs (a
	// scheduler's tick): each op takes a spawn token as a spawn op does
	// (verbsurface.Verb.Spawns), however many runs it then starts.
	Spawns bool `yaml:"spawns"`
	// Background starts the command detached, under a supervisor, and
	// answers at once with a run id; the job verbs follow the run
	// (background.go).
	Background bool `yaml:"background"`
	// VerbOperatorConfig holds constraints:, fixed: and positionals:
	// (config_operator.go).
	VerbOperatorConfig `yaml:",inline"`

	line int            // the verb's line
	keys map[string]int // the line of each key the verb sets
}

// StoredCommandConfig is a verb's stored_command: key
// (verbsurface.StoredCommand): which parameter holds the command line, and
// which command paths it may run.
type StoredCommandConfig struct {
	Param string     `yaml:"param"`
	Allow [][]string `yaml:"allow"`
}

// keyLine is the line of the verb's key (the verb's own line when the key
// is absent or unknown).
func (v *VerbConfig) keyLine(key string) int {
	if l := v.keys[key]; l > 0 {
		return l
	}
	return v.line
}

// WaitConfig is the wait: key: a verb that waits for runs to end
// (verbsurface.WaitHandler). Its schema is the projection of SchemaFrom,
// the CLI's own wait command, whose parameters must be ids,
// max_wait_seconds and poll_interval_seconds; each poll runs
// `Observe [machine args] -- IDS...`, whose data must be {"observations":
// [...]} (wait.Observation). Outcomes maps the CLI's terminal statuses to
// succeeded, failed or cancelled; absent, wait.DefaultOutcomes (the
// reference CLI's table). The verb is an observe verb.
type WaitConfig struct {
	Verb       string            `yaml:"verb"`
	Observe    []string          `yaml:"observe"`
	SchemaFrom []string          `yaml:"schema_from"`
	Outcomes   map[string]string `yaml:"outcomes"`
	Summary    string            `yaml:"summary"`
}

// KillConfig is the kill: key: a control verb that stops a run through
// the CLI's own kill (verbsurface.KillHandler over kill.CLI). Its
// schema is the projection of Path, whose parameters must be id and,
// optionally, grace (a duration). With Status, `Status [machine args] --
// ID` is run first and must print {"records": [{"id", "kind"}]} with
// exactly one record; Kinds maps its kinds first, then kill.Decide
// refuses a show and any kind but play, session or invocation. Without Status the id is delegated as
// given. The kill runs `Path [machine args] [--grace=D] -- ID`; its
// outcome comes back unchanged, and nothing is ever signalled by the
// server.
type KillConfig struct {
	Verb    string   `yaml:"verb"`
	Path    []string `yaml:"path"`
	Status  []string `yaml:"status"`
	Summary string   `yaml:"summary"`
	// Kinds maps the status command's kinds to play, session, invocation
	// or show ({job: invocation}), for a CLI whose words differ.
	Kinds map[string]string `yaml:"kinds"`
}

// ConfigError is a configuration mistake: the file, the line when known,
// the field, and what is wrong.
type ConfigError struct {
	File  string
	Line  int
	Field string
	Msg   string

	verb string // the verb the mistake is about, when it is one verb's (lint)
}

func (e *ConfigError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc += fmt.Sprintf(":%d", e.Line)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: %s: %s", loc, e.Field, e.Msg)
	}
	return loc + ": " + e.Msg
}

// yamlLine matches the line the YAML decoder names ("line 7: field x not
// found in type main.Config").
var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)

// LoadConfig reads and checks the configuration at path: exactly one YAML
// document, no undeclared key, and every value sensible.
func LoadConfig(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &ConfigError{File: path, Msg: err.Error()}
	}
	abs, _ := filepath.Abs(path)
	c := &Config{file: path, dir: filepath.Dir(abs)}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &ConfigError{File: path, Msg: "the file holds no YAML document"}
		}
		return nil, yamlError(path, err)
	}
	if err := dec.Decode(new(yaml.Node)); !errors.Is(err, io.EOF) {
		return nil, &ConfigError{File: path, Msg: "the file holds more than one YAML document"}
	}
	strict := yaml.NewDecoder(bytes.NewReader(b))
	strict.KnownFields(true)
	if err := strict.Decode(c); err != nil {
		return nil, yamlError(path, err)
	}
	// The line of each verb and of each of its keys, for the errors about
	// them.
	if len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		m := doc.Content[0].Content
		for i := 0; i+1 < len(m); i += 2 {
			if m[i].Value == "verbs" && m[i+1].Kind == yaml.SequenceNode {
				for j, item := range m[i+1].Content {
					if j >= len(c.Verbs) {
						continue
					}
					c.Verbs[j].line, c.Verbs[j].keys = item.Line, map[string]int{}
					if item.Kind == yaml.MappingNode {
						for k := 0; k+1 < len(item.Content); k += 2 {
							c.Verbs[j].keys[item.Content[k].Value] = item.Content[k].Line
						}
					}
				}
			}
		}
	}
	c.lineOf, c.doc = lineOf(&doc), &doc
	if err := c.check(c.lineOf); err != nil {
		return nil, err
	}
	return c, nil
}

func yamlError(path string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n  ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		var line int
		fmt.Sscan(m[1], &line)
		detail := strings.ReplaceAll(m[2], "main.", "")
		field := ""
		if f, ok := strings.CutPrefix(detail, "field "); ok {
			field, _, _ = strings.Cut(f, " ")
			detail = "unknown key (not a configuration key; see docs/fronting.md)"
		}
		return &ConfigError{File: path, Line: line, Field: field, Msg: detail}
	}
	return &ConfigError{File: path, Msg: msg}
}

// lineOf returns a function giving the line of a top-level key (0 if absent).
func lineOf(doc *yaml.Node) func(key string) int {
	return func(key string) int {
		if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
			return 0
		}
		m := doc.Content[0].Content
		for i := 0; i+1 < len(m); i += 2 {
			if m[i].Value == key {
				return m[i].Line
			}
		}
		return 0
	}
}

func (c *Config) check(line func(string) int) error {
	bad := func(key, field, format string, args ...any) error {
		return &ConfigError{File: c.file, Line: line(key), Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if c.Name == "" {
		return bad("name", "name", "required: the server's name")
	}
	if len(c.Command) == 0 || c.Command[0] == "" {
		return bad("command", "command", "required: the executable and its fixed leading arguments, as a list")
	}
	if msg, field := c.Machine.problem(); msg != "" {
		return bad("machine", "machine."+field, "%s", msg)
	}
	if msg := outputProblem(c.Output, c.OKExit); msg != "" {
		return bad(outputKey(c.Output, c.OKExit), outputKey(c.Output, c.OKExit), "%s", msg)
	}
	if msg := streamProblem(c.Output, c.OutputStream); msg != "" {
		return bad("output_stream", "output_stream", "%s", msg)
	}
	n := 0
	for _, set := range append([]bool{c.Source.Argparse != nil, c.Source.Click != nil, len(c.Source.TreeCommand) > 0, c.Source.TreeFile != "", c.Source.Cobra != nil, c.Source.Declared != nil}, c.Source.More.given()...) {
		if set {
			n++
		}
	}
	if n != 1 {
		return bad("source", "source", "give exactly one of argparse, click, tree_command, tree_file, cobra, optparse, clap, declared (%d given)", n)
	}
	if err := c.Source.More.check(bad); err != nil {
		return err
	}
	if s := c.Source.Cobra; s != nil && (len(s) == 0 || s[0] == "") {
		return bad("source", "source.cobra", "required: the cobra program as it is started, as a list ([helm] or [/usr/bin/restic])")
	}
	switch r := c.Source.Read; {
	case r != "" && c.Source.Cobra == nil:
		return bad("source", "source.read", "applies to source.cobra only (the other sources read a program in one call)")
	case r != "" && r != readOnDemand && r != readAll:
		return bad("source", "source.read", "%q is neither %s nor %s", r, readOnDemand, readAll)
	}
	for _, p := range []*PythonSource{c.Source.Argparse, c.Source.Click} {
		if p != nil && !strings.Contains(p.Target, ":") {
			return bad("source", "source.target", "%q is not MODULE:FUNCTION", p.Target)
		}
	}
	if p := c.Source.Argparse; p != nil {
		for _, k := range []struct {
			key string
			set bool
		}{{"exclude", len(p.Exclude) > 0}, {"callbacks", len(p.Callbacks) > 0}, {"string_types", len(p.StringTypes) > 0}} {
			if k.set {
				return bad("source", "source.argparse."+k.key, "is a key of source.click only (for argparse, use the top-level exclude)")
			}
		}
	}
	if c.Source.Declared != nil {
		if err := c.checkDeclared(); err != nil {
			return err
		}
	}
	if c.Timeout != "" {
		if _, err := parseDuration(c.Timeout); err != nil {
			return bad("timeout", "timeout", "%v", err)
		}
	}
	if len(c.Verbs) == 0 {
		return bad("verbs", "verbs", "required: the verbs to offer (nothing is offered unless listed)")
	}
	for i, v := range c.Verbs {
		field := fmt.Sprintf("verbs[%d]", i)
		vbad := func(f, format string, args ...any) error {
			return &ConfigError{File: c.file, Line: v.line, Field: field + f, Msg: fmt.Sprintf(format, args...)}
		}
		kbad := func(key, format string, args ...any) error {
			return &ConfigError{File: c.file, Line: v.keyLine(key), Field: field + "." + key, Msg: fmt.Sprintf(format, args...)}
		}
		if _, ok := v.keys["path"]; !ok {
			return vbad(".path", "required: the CLI command path, as a list ([add], [job, list]; [] for the program's root command)")
		}
		for _, w := range v.Path {
			if w == "" || strings.HasPrefix(w, "-") {
				return kbad("path", "%q is not a command name (fixed options go under args:)", w)
			}
		}
		switch verbsurface.Class(v.Class) {
		case verbsurface.ClassSpawn, verbsurface.ClassObserve, verbsurface.ClassControl:
		default:
			return vbad(".class", "%q is not spawn, observe or control", v.Class)
		}
		if v.Background && v.Class != string(verbsurface.ClassSpawn) {
			return kbad("background", "a background verb starts runs, so its class must be spawn, not %s", v.Class)
		}
		seen := map[string]bool{}
		for _, f := range v.Files {
			name, _, err := fileParam(f)
			if err != nil {
				return kbad("files", "%v", err)
			}
			if seen[name] {
				return kbad("files", "%q is listed twice", name)
			}
			seen[name] = true
		}
		if v.Machine != nil {
			if msg, mf := v.Machine.problem(); msg != "" {
				return kbad("machine", "%s (in machine.%s)", msg, mf)
			}
		}
		if v.Output != "" || len(v.OKExit) > 0 {
			out, ok := v.Output, v.OKExit
			if out == "" {
				return kbad("ok_exit", "a verb's ok_exit goes with its own output: (the top-level ok_exit applies to verbs that do not set output)")
			}
			if msg := outputProblem(out, ok); msg != "" {
				return kbad(outputKey(out, ok), "%s", msg)
			}
		}
		if v.OutputStream != "" {
			if v.Output == "" {
				return kbad("output_stream", "a verb's output_stream goes with its own output: (the top-level output_stream applies to verbs that do not set output)")
			}
			if msg := streamProblem(v.Output, v.OutputStream); msg != "" {
				return kbad("output_stream", "%s", msg)
			}
		}
		for _, list := range []struct {
			key   string
			words []string
		}{{"args", v.Args}, {"exclude", v.Exclude}} {
			if slices.Contains(list.words, "") {
				return kbad(list.key, "holds an empty word")
			}
		}
		if len(v.Args) > 0 && !strings.HasPrefix(v.Args[0], "-") {
			return kbad("args", "%q is not an option: args holds options, each followed by its value when it takes one (command words go under path:)", v.Args[0])
		}
		if key, msg := v.VerbOperatorConfig.check(); msg != "" {
			return kbad(key, "%s", msg)
		}
		if sc := v.StoredCommand; sc != nil {
			switch {
			case sc.Param == "":
				return kbad("stored_command", "param: required: the parameter holding the command line")
			case len(sc.Allow) == 0:
				return kbad("stored_command", "allow: required: the command paths a stored command may run ([[agent], [job, list]])")
			}
			for _, a := range sc.Allow {
				if len(a) == 0 || slices.Contains(a, "") {
					return kbad("stored_command", "allow: %q is not a command path", a)
				}
			}
		}
	}
	for _, e := range c.Exclude {
		if e == "" {
			return bad("exclude", "exclude", "holds an empty word")
		}
	}
	return c.checkJobs(line)
}

// checkJobs checks the wait: and kill: keys: each names a verb not in the
// verbs list (nor the other's), and the command paths it needs.
func (c *Config) checkJobs(line func(string) int) error {
	names := map[string]string{}
	for i, v := range c.Verbs {
		names[v.Name] = fmt.Sprintf("verbs[%d]", i)
	}
	verb := func(key, name string) error {
		bad := func(format string, args ...any) error {
			return &ConfigError{File: c.file, Line: line(key), Field: key + ".verb", Msg: fmt.Sprintf(format, args...)}
		}
		if name == "" {
			return bad("required: the verb's name (job.wait, job.kill)")
		}
		if other, ok := names[name]; ok {
			return bad("%q is already the name of %s; a verb has one definition", name, other)
		}
		names[name] = key
		return nil
	}
	path := func(key, field string, p []string, required bool) error {
		if len(p) == 0 && required {
			return &ConfigError{File: c.file, Line: line(key), Field: key + "." + field, Msg: "required: a CLI command path, as a list ([job, observe])"}
		}
		for _, w := range p {
			if w == "" || strings.HasPrefix(w, "-") {
				return &ConfigError{File: c.file, Line: line(key), Field: key + "." + field, Msg: fmt.Sprintf("%q is not a command name (machine arguments are added from machine:)", w)}
			}
		}
		return nil
	}
	if w := c.Wait; w != nil {
		if err := verb("wait", w.Verb); err != nil {
			return err
		}
		if err := path("wait", "observe", w.Observe, true); err != nil {
			return err
		}
		if err := path("wait", "schema_from", w.SchemaFrom, true); err != nil {
			return err
		}
		if w.Outcomes != nil {
			if err := outcomeTable(w.Outcomes).Validate(); err != nil {
				return &ConfigError{File: c.file, Line: line("wait"), Field: "wait.outcomes", Msg: strings.TrimPrefix(err.Error(), "wait: outcome table: ")}
			}
		}
	}
	if k := c.Kill; k != nil {
		if err := verb("kill", k.Verb); err != nil {
			return err
		}
		if err := path("kill", "path", k.Path, true); err != nil {
			return err
		}
		if err := path("kill", "status", k.Status, false); err != nil {
			return err
		}
		for from, to := range k.Kinds {
			if !slices.Contains([]string{"play", "session", "invocation", "show"}, to) {
				return &ConfigError{File: c.file, Line: line("kill"), Field: "kill.kinds",
					Msg: fmt.Sprintf("%q maps to %q; a kind maps to play, session, invocation or show", from, to)}
			}
		}
		if len(k.Kinds) > 0 && len(k.Status) == 0 {
			return &ConfigError{File: c.file, Line: line("kill"), Field: "kill.kinds", Msg: "kinds need a status command (status:) that reports them"}
		}
	}
	return nil
}

// outcomeTable is the wait: key's outcomes as package wait's table.
func outcomeTable(m map[string]string) wait.OutcomeTable {
	if m == nil {
		return nil
	}
	t := make(wait.OutcomeTable, len(m))
	for k, v := range m {
		t[k] = wait.Outcome(v)
	}
	return t
}

// machineArgv is path with the top-level machine arguments where the CLI
// takes them: what a wait: or kill: handler runs (the surface renders its
// own commands the same way).
func (c *Config) machineArgv(path []string) []string {
	out := make([]string, 0, len(path)+len(c.Machine.Args))
	if c.Machine.At == "root" {
		out = append(out, c.Machine.Args...)
	}
	out = append(out, path...)
	if c.Machine.At != "root" {
		out = append(out, c.Machine.Args...)
	}
	return out
}

// fileParam parses a files entry: "param" (read) or
// "param:read|write|dir|read_or_dir|none". It splits at the last colon,
// since a parameter's name may hold colons itself: a name with a colon is
// marked with its use spelled out ("special-opts:files:read", as check's
// warning spells it).
func fileParam(s string) (string, projector.PathUse, error) {
	name, use, ok := cutLast(s, ":")
	if name == "" {
		return "", "", fmt.Errorf("%q names no parameter", s)
	}
	if !ok {
		return name, projector.PathUseRead, nil
	}
	if use == "none" {
		return name, projector.PathUseNone, nil
	}
	u := projector.PathUse(use)
	if !slices.Contains(projector.PathUses, u) {
		return "", "", fmt.Errorf("%q: use %q is not read, write, dir, read_or_dir or none (a parameter whose name holds a colon is marked with its use spelled out: %s:read)", s, use, s)
	}
	return name, u, nil
}

// pathParams is the verb's files: as verbsurface.Verb.PathParams (nil
// when it lists none); the configuration was checked.
func (v *VerbConfig) pathParams() map[string]projector.PathUse {
	if len(v.Files) == 0 {
		return nil
	}
	out := make(map[string]projector.PathUse, len(v.Files))
	for _, fp := range v.Files {
		name, use, _ := fileParam(fp)
		out[name] = use
	}
	return out
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// problem is what is wrong with a machine: key ("" when nothing), and the
// field.
func (m *MachineConfig) problem() (msg, field string) {
	switch m.At {
	case "", "root", "leaf":
	default:
		return fmt.Sprintf("%q is not root or leaf", m.At), "at"
	}
	if len(m.Args) > 0 && !strings.HasPrefix(m.Args[0], "-") {
		return fmt.Sprintf("%q is not an option (it must start with -)", m.Args[0]), "args"
	}
	if m.At != "" && len(m.Args) == 0 {
		return "a position without args: give the machine arguments, or leave machine: out", "at"
	}
	return "", ""
}

// outputProblem is what is wrong with an output mode and its ok exits.
func outputProblem(out string, okExit []int) string {
	if !dispatch.Output(out).Valid() {
		return fmt.Sprintf("%q is not envelope, json, jsonl or text", out)
	}
	if (out == "" || out == string(dispatch.OutputEnvelope)) && len(okExit) > 0 {
		return "ok_exit applies to output json, jsonl and text: under the envelope an ok result needs exit status 0"
	}
	for _, c := range okExit {
		if c < 0 || c > 255 {
			return fmt.Sprintf("ok_exit holds %d, which is not an exit status (0 to 255)", c)
		}
	}
	return ""
}

// outputKey is the key outputProblem's complaint is about.
func outputKey(out string, okExit []int) string {
	if !dispatch.Output(out).Valid() {
		return "output"
	}
	return "ok_exit"
}

// verbMachine is the machine mode of verb i: its own, else the top-level.
func (c *Config) verbMachine(i int) MachineConfig {
	if m := c.Verbs[i].Machine; m != nil {
		return *m
	}
	return c.Machine
}

// runnerKey is what decides the runner verb i needs: its output mode, ok
// exits and directory, each its own or the top-level.
type runnerKey struct {
	output string
	okExit string
	stream string
	cwd    string
	// keepDetached: a spawn verb's command starts work, which may detach
	// into a session of its own by design; every other command's
	// detached processes end with it (dispatch.Options.EndDetached).
	keepDetached bool
}

func (c *Config) runnerKeyOf(i int) runnerKey {
	v := c.Verbs[i]
	k := runnerKey{output: c.Output, okExit: fmt.Sprint(c.OKExit), stream: c.OutputStream, cwd: c.Cwd}
	if v.Output != "" {
		k.output, k.okExit, k.stream = v.Output, fmt.Sprint(v.OKExit), v.OutputStream
	}
	if v.Cwd != "" {
		k.cwd = v.Cwd
	}
	k.keepDetached = v.Class == "spawn"
	return k
}

// outputOf is verb i's output mode and ok exits.
func (c *Config) outputOf(i int) (dispatch.Output, []int) {
	if v := c.Verbs[i]; v.Output != "" {
		return dispatch.Output(v.Output), v.OKExit
	}
	return dispatch.Output(c.Output), c.OKExit
}

// cwdOf is verb i's directory as configured ("" when neither it nor the
// top level sets one), resolved against the configuration's directory,
// and the field that set it.
func (c *Config) cwdOf(i int) (dir, field string, line int) {
	if v := c.Verbs[i]; v.Cwd != "" {
		return c.path(v.Cwd), fmt.Sprintf("verbs[%d].cwd", i), v.keyLine("cwd")
	}
	if c.Cwd != "" {
		line := 0
		if c.lineOf != nil {
			line = c.lineOf("cwd")
		}
		return c.path(c.Cwd), "cwd", line
	}
	return "", "", 0
}

// path resolves p against the configuration file's directory.
func (c *Config) path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.dir, p)
}

// where names the file, line and field of the verb named verb ("FILE" when
// it is not in the verbs list: wait: and kill:).
func (c *Config) where(verb string) string {
	for i, v := range c.Verbs {
		if v.Name == verb {
			return fmt.Sprintf("%s:%d: verbs[%d]", c.file, v.line, i)
		}
	}
	for _, k := range []struct {
		key, name string
	}{{"wait", nameOf(c.Wait)}, {"kill", nameOf(c.Kill)}} {
		if k.name == verb && c.lineOf != nil {
			return fmt.Sprintf("%s:%d: %s", c.file, c.lineOf(k.key), k.key)
		}
	}
	return c.file
}

func nameOf[T interface{ *WaitConfig | *KillConfig }](v T) string {
	switch x := any(v).(type) {
	case *WaitConfig:
		if x != nil {
			return x.Verb
		}
	case *KillConfig:
		if x != nil {
			return x.Verb
		}
	}
	return ""
}

// registerError names a verb's line for a registration refusal.
func (c *Config) verbError(i int, err error) error {
	return &ConfigError{File: c.file, Line: c.Verbs[i].line, Field: fmt.Sprintf("verbs[%d]", i), Msg: err.Error()}
}
