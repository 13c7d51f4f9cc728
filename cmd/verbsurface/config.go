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

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
	"github.com/verbsurface/verbsurface/wait"
	"go.yaml.in/yaml/v3"
)

// Config is the one YAML document that fronts a CLI. Every key is
// documented in the README ("Front your CLI in five minutes"); a key not
// declared here is refused, so a misspelt key never passes in silence.
type Config struct {
	// Name is the server's name (serverInfo.name) and the tool's title.
	Name string `yaml:"name"`
	// Command is the executable and its fixed leading arguments.
	Command []string `yaml:"command"`
	// Machine is how the CLI is put into machine mode.
	Machine MachineConfig `yaml:"machine"`
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
	// Policy is a policy file (package policy): allow, ask or deny per
	// verb and argument, checked against the live verbs at start.
	Policy string `yaml:"policy"`
	// Timeout bounds each CLI command ("30s"); empty: dispatch's default.
	Timeout string `yaml:"timeout"`
	// Wait adds a job.wait verb over package wait (the CLI's observe
	// command), for CLIs with background runs.
	Wait *WaitConfig `yaml:"wait"`
	// Kill adds a job.kill verb over package kill (the CLI's own kill).
	Kill *KillConfig `yaml:"kill"`

	file string // where it was read from, for errors
	dir  string // its directory: relative paths are relative to it
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
	Name        string   `yaml:"name"`
	Path        []string `yaml:"path"`
	Class       string   `yaml:"class"`
	Fingerprint bool     `yaml:"fingerprint"`
	Summary     string   `yaml:"summary"`
	// Files lists the parameters that name files: "param" (read),
	// "param:write", "param:dir", "param:read".
	Files []string `yaml:"files"`
	// Spawns marks a verb of another class whose command starts runs (a
	// scheduler's tick): each op takes a spawn token as a spawn op does
	// (verbsurface.Verb.Spawns), however many runs it then starts.
	Spawns bool `yaml:"spawns"`

	line int
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
	// The line of each verb, for the errors about it.
	if len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
		m := doc.Content[0].Content
		for i := 0; i+1 < len(m); i += 2 {
			if m[i].Value == "verbs" && m[i+1].Kind == yaml.SequenceNode {
				for j, item := range m[i+1].Content {
					if j < len(c.Verbs) {
						c.Verbs[j].line = item.Line
					}
				}
			}
		}
	}
	if err := c.check(lineOf(&doc)); err != nil {
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
			detail = "unknown key (not a configuration key; see the README)"
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
	switch c.Machine.At {
	case "", "root", "leaf":
	default:
		return bad("machine", "machine.at", "%q is not root or leaf", c.Machine.At)
	}
	if len(c.Machine.Args) > 0 && !strings.HasPrefix(c.Machine.Args[0], "-") {
		return bad("machine", "machine.args", "%q is not an option (it must start with -)", c.Machine.Args[0])
	}
	n := 0
	for _, set := range []bool{c.Source.Argparse != nil, c.Source.Click != nil, len(c.Source.TreeCommand) > 0, c.Source.TreeFile != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return bad("source", "source", "give exactly one of argparse, click, tree_command, tree_file (%d given)", n)
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
		if len(v.Path) == 0 {
			return vbad(".path", "required: the CLI command path, as a list ([add], [job, list])")
		}
		switch verbsurface.Class(v.Class) {
		case verbsurface.ClassSpawn, verbsurface.ClassObserve, verbsurface.ClassControl:
		default:
			return vbad(".class", "%q is not spawn, observe or control", v.Class)
		}
		for _, f := range v.Files {
			if _, _, err := fileParam(f); err != nil {
				return vbad(".files", "%v", err)
			}
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

// machineArgv is path with the machine arguments where the CLI takes them:
// what a handler runs (the surface renders its own commands the same way).
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

// fileParam parses a files entry: "param" or "param:read|write|dir".
func fileParam(s string) (string, projector.PathUse, error) {
	name, use, ok := strings.Cut(s, ":")
	if name == "" {
		return "", "", fmt.Errorf("%q names no parameter", s)
	}
	if !ok {
		return name, projector.PathUseRead, nil
	}
	u := projector.PathUse(use)
	if !slices.Contains([]projector.PathUse{projector.PathUseRead, projector.PathUseWrite, projector.PathUseDir}, u) {
		return "", "", fmt.Errorf("%q: use %q is not read, write or dir", s, use)
	}
	return name, u, nil
}

// path resolves p against the configuration file's directory.
func (c *Config) path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.dir, p)
}

// registerError names a verb's line for a registration refusal.
func (c *Config) verbError(i int, err error) error {
	return &ConfigError{File: c.file, Line: c.Verbs[i].line, Field: fmt.Sprintf("verbs[%d]", i), Msg: err.Error()}
}
