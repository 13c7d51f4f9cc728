//go:build unix

package provider

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/runenv"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/textfile"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/yamldoc"
)

// ModelPattern is what a model name must match, in every command that takes
// one (and so in the projected schema of each): a provider name (the rule
// of providers.yaml's names), optionally followed by ":" and an argument
// that does not start with "-" and holds no space, quote, shell
// metacharacter or control character. The argument lands in a command
// provider's {model} slot, where a leading "-" would be an option.
const ModelPattern = `^[a-z][a-z0-9_-]*(:[A-Za-z0-9._@=,+/][A-Za-z0-9._:@=,+/-]*)?$`

// EchoName is the built-in provider's name.
const EchoName = "echo"

// ConfigFile is the providers file's name under the state home.
const ConfigFile = "providers.yaml"

// Echo holds the echo provider's options.
type Echo struct {
	Delay  time.Duration `json:"delay_ns"`
	Exit   int           `json:"exit"`
	Stderr string        `json:"stderr,omitempty"`
}

// Resolved is a model resolved to a provider, ready to run. It is stored in
// the run record's spec (JSON).
type Resolved struct {
	Model    string   `json:"model"`    // as given
	Provider string   `json:"provider"` // "echo" or the command provider's name
	Echo     *Echo    `json:"echo,omitempty"`
	Argv     []string `json:"argv,omitempty"` // command providers: the template, placeholders unexpanded
	Path     string   `json:"path,omitempty"` // command providers: argv[0] resolved to an absolute path when submitted
	// Env and Set are the command provider's environment additions as
	// configured when submitted: the names passed through from the
	// worker's environment, and fixed values (see [Resolved.Environ]).
	Env []string          `json:"env,omitempty"`
	Set map[string]string `json:"set,omitempty"`
	// Output is the format of the command's stdout (one of
	// [OutputFormats]; "" is [OutputText]).
	Output string `json:"output,omitempty"`
	// Preset names the built-in preset this is ("" for a provider of
	// providers.yaml, which may override a preset of the same name).
	Preset string `json:"preset,omitempty"`
}

// Config is providers.yaml.
type Config struct {
	Providers []CommandProvider `yaml:"providers"`
}

// CommandProvider is one configured command provider.
type CommandProvider struct {
	Name string   `yaml:"name"`
	Argv []string `yaml:"argv"`
	// Env names variables passed through to the command from the
	// environment limcp runs in (an API key). Nothing else beyond the
	// rule of package runenv reaches it.
	Env []string `yaml:"env"`
	// Set adds fixed variables to the command's environment. The values
	// are stored in the run's spec, which `job status` shows: a secret
	// belongs in Env, never in Set.
	Set map[string]string `yaml:"set"`
	// Output is the format of the command's stdout: text (the default)
	// or the JSON of one agent program (see [OutputFormats]), from which
	// the run's output and error text are extracted.
	Output string `yaml:"output"`
	// Disabled removes the built-in preset of this name (an entry that
	// disables has no argv): a model naming it is provider_not_found.
	Disabled bool `yaml:"disabled"`
}

// EnvNames returns every variable name any provider passes through, once
// each: the declared providers' in declaration order, then those of each
// preset c neither overrides nor disables. It is what a process that
// starts workers must keep, since a worker may run any provider.
func (c Config) EnvNames() []string {
	var out []string
	seen := map[string]bool{}
	add := func(names []string) {
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	declared := map[string]bool{}
	for _, p := range c.Providers {
		declared[p.Name] = true
		add(p.Env)
	}
	for _, pr := range presets {
		if !declared[pr.Name] {
			add(pr.Env)
		}
	}
	return out
}

var (
	nameRE        = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
	envNameRE     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	modelRE       = regexp.MustCompile(ModelPattern)
	placeholderRE = regexp.MustCompile(`\{[^{}]*\}`)
	placeholders  = map[string]bool{"{model}": true, "{id}": true, "{cwd}": true, "{run_dir}": true}
)

// MaxConfigBytes bounds the configuration file: it is a few lines.
const MaxConfigBytes = 256 << 10

// LoadConfig reads <home>/providers.yaml. A missing file is an empty config.
func LoadConfig(home string) (Config, error) {
	path := filepath.Join(home, ConfigFile)
	b, err := textfile.Read(path, MaxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, machine.Errorf(machine.InvalidProviderConfig, map[string]any{"file": path, "field": ""}, "reading %s: %v", path, err)
	}
	var c Config
	if err := yamldoc.Decode(b, &c); err != nil && !errors.Is(err, yamldoc.ErrEmpty) {
		return Config{}, machine.Errorf(machine.InvalidProviderConfig, map[string]any{"file": path, "field": ""}, "%s: %v", path, err)
	}
	seen := map[string]bool{}
	for i, p := range c.Providers {
		field := fmt.Sprintf("providers[%d]", i)
		bad := func(f, format string, args ...any) error {
			return machine.Errorf(machine.InvalidProviderConfig, map[string]any{"file": path, "field": field + f},
				"%s: %s%s: %s", path, field, f, fmt.Sprintf(format, args...))
		}
		switch {
		case !nameRE.MatchString(p.Name):
			return Config{}, bad(".name", "name %q must match %s", p.Name, nameRE)
		case p.Name == EchoName:
			return Config{}, bad(".name", "%q is the built-in provider and cannot be redefined", p.Name)
		case seen[p.Name]:
			return Config{}, bad(".name", "provider %q is declared twice", p.Name)
		case p.Disabled && !isPreset(p.Name):
			return Config{}, bad(".disabled", "only a built-in preset can be disabled (%s); %q is not one: remove the entry instead", presetNames(), p.Name)
		case p.Disabled && (len(p.Argv) > 0 || len(p.Env) > 0 || len(p.Set) > 0 || p.Output != ""):
			return Config{}, bad(".disabled", "a disabled preset has nothing else: drop argv, env, set and output, or drop disabled to override the preset")
		case p.Disabled:
			seen[p.Name] = true
			continue
		case len(p.Argv) == 0 || p.Argv[0] == "":
			return Config{}, bad(".argv", "argv must name a command")
		case p.Output != "" && !oneOf(p.Output, OutputFormats):
			return Config{}, bad(".output", "output %q is not one of %s", p.Output, strings.Join(OutputFormats, ", "))
		}
		seen[p.Name] = true
		for j, n := range p.Env {
			switch {
			case !envNameRE.MatchString(n):
				return Config{}, bad(fmt.Sprintf(".env[%d]", j), "%q is not an environment variable name (%s)", n, envNameRE)
			case n == runenv.Withheld:
				return Config{}, bad(fmt.Sprintf(".env[%d]", j), "%s is the MCP server's bearer token and is never passed to a run", n)
			}
		}
		for k, v := range p.Set {
			switch {
			case !envNameRE.MatchString(k):
				return Config{}, bad(".set", "%q is not an environment variable name (%s)", k, envNameRE)
			case k == runenv.Withheld:
				return Config{}, bad(".set."+k, "%s is the MCP server's bearer token and is never set for a run", k)
			case strings.ContainsRune(v, 0):
				return Config{}, bad(".set."+k, "the value holds a NUL byte, which no environment can carry")
			}
		}
		for j, a := range p.Argv {
			for _, ph := range placeholderRE.FindAllString(a, -1) {
				if !placeholders[ph] {
					return Config{}, bad(fmt.Sprintf(".argv[%d]", j), "unknown placeholder %s (have {model}, {id}, {cwd}, {run_dir})", ph)
				}
			}
		}
	}
	return c, nil
}

// Resolve resolves model against the built-in echo provider and the
// command providers of home's providers.yaml.
func Resolve(home, model string) (Resolved, error) {
	if !modelRE.MatchString(model) {
		return Resolved{}, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "model", "model": model, "pattern": ModelPattern},
			"model %q does not match %s: a provider name, optionally \":\" and an argument that does not start with \"-\"", model, ModelPattern)
	}
	name, arg, _ := strings.Cut(model, ":")
	if name == EchoName {
		e, err := parseEcho(model, arg)
		if err != nil {
			return Resolved{}, err
		}
		return Resolved{Model: model, Provider: EchoName, Echo: e}, nil
	}
	cfg, err := LoadConfig(home)
	if err != nil {
		return Resolved{}, err
	}
	for _, p := range cfg.Providers {
		if p.Name != name {
			continue
		}
		if p.Disabled {
			return Resolved{}, machine.Errorf(machine.ProviderNotFound,
				map[string]any{"model": model, "provider": name, "disabled": true},
				"model %q: the built-in preset %q is disabled in %s", model, name, filepath.Join(home, ConfigFile))
		}
		path, err := exec.LookPath(p.Argv[0])
		if err == nil {
			// The worker runs the command in the run's --cwd, where a
			// relative path would name another file (or none): resolve it
			// here, against the directory it was found from.
			path, err = filepath.Abs(path)
		}
		if err != nil {
			return Resolved{}, machine.Errorf(machine.ProviderNotFound,
				map[string]any{"model": model, "provider": name, "command": p.Argv[0]},
				"provider %q: its command %q cannot be run: %v", name, p.Argv[0], err)
		}
		return Resolved{Model: model, Provider: name, Argv: p.Argv, Path: path, Env: p.Env, Set: p.Set, Output: p.Output}, nil
	}
	if pr, ok := PresetNamed(name); ok {
		path, err := exec.LookPath(pr.Argv[0])
		if err == nil {
			path, err = filepath.Abs(path)
		}
		if err != nil {
			return Resolved{}, machine.Errorf(machine.ProviderNotFound,
				map[string]any{"model": model, "provider": name, "command": pr.Argv[0], "preset": true},
				"model %q: the %s preset runs %q, which is not on PATH (%v): install %s, or declare a provider %q in %s",
				model, pr.Program, pr.Argv[0], err, pr.Program, name, filepath.Join(home, ConfigFile))
		}
		return Resolved{Model: model, Provider: name, Argv: pr.Template(arg != ""), Path: path,
			Env: append([]string(nil), pr.Env...), Output: pr.Output, Preset: name}, nil
	}
	var names []string
	names = append(names, EchoName)
	declared := map[string]bool{}
	for _, p := range cfg.Providers {
		declared[p.Name] = true
		if !p.Disabled {
			names = append(names, p.Name)
		}
	}
	for _, pr := range presets {
		if !declared[pr.Name] {
			names = append(names, pr.Name)
		}
	}
	return Resolved{}, machine.Errorf(machine.ProviderNotFound, map[string]any{"model": model, "provider": name, "available": names},
		"model %q names no provider: have %s (the built-in presets need their program on PATH; command providers are declared in %s)", model, strings.Join(names, ", "), filepath.Join(home, ConfigFile))
}

func parseEcho(model, opts string) (*Echo, error) {
	e := &Echo{}
	if opts == "" {
		return e, nil
	}
	bad := func(format string, args ...any) error {
		return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "model", "model": model},
			"model %q: %s", model, fmt.Sprintf(format, args...))
	}
	for _, kv := range strings.Split(opts, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, bad("echo option %q is not key=value", kv)
		}
		switch k {
		case "delay":
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return nil, bad("delay %q is not a non-negative Go duration (like 500ms or 2s)", v)
			}
			e.Delay = d
		case "exit":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 255 {
				return nil, bad("exit %q is not an exit status 0..255", v)
			}
			e.Exit = n
		case "stderr":
			e.Stderr = v
		default:
			return nil, bad("unknown echo option %q (have delay, exit, stderr)", k)
		}
	}
	return e, nil
}

// Vars are the run's values of an argv template's placeholders; {model}
// comes from the resolved model itself (the part after "NAME:").
type Vars struct {
	ID, Cwd, RunDir string
}

// Expand returns the command provider's argv with placeholders replaced
// (argv[0] replaced by the resolved path). Each placeholder is replaced
// once, left to right: a value that itself contains "{id}" is not expanded
// again.
//
// A value that starts with "-" is refused (a [*SlotError] naming the slot),
// whatever the argv around it: an argv element that is exactly a
// placeholder would hand the command an option it never meant to accept
// ("local:--exec=/bin/sh"). [Resolve] refuses such a model already; this is
// the last check, at the moment the argv is built.
func (r Resolved) Expand(v Vars) ([]string, error) {
	_, model, _ := strings.Cut(r.Model, ":")
	for _, s := range []struct{ slot, value string }{{"{model}", model}, {"{id}", v.ID}, {"{cwd}", v.Cwd}, {"{run_dir}", v.RunDir}} {
		if strings.HasPrefix(s.value, "-") {
			return nil, &SlotError{Slot: s.slot, Value: s.value}
		}
	}
	rep := strings.NewReplacer("{model}", model, "{id}", v.ID, "{cwd}", v.Cwd, "{run_dir}", v.RunDir)
	out := make([]string, len(r.Argv))
	for i, a := range r.Argv {
		out[i] = rep.Replace(a)
	}
	if r.Path != "" {
		out[0] = r.Path
	}
	return out, nil
}

// SlotError is a value refused for a template slot because it starts
// with "-".
type SlotError struct {
	Slot  string // "{model}", "{id}", "{cwd}" or "{run_dir}"
	Value string
}

func (e *SlotError) Error() string {
	return fmt.Sprintf("provider template slot %s: value %q starts with \"-\", which the command would read as an option; refused", e.Slot, e.Value)
}

// Environ is the environment of the command provider's process: base
// filtered by the rule of package runenv with the provider's Env names
// passed through, then its Set values (sorted by name; a Set value
// replaces a variable of the same name).
func (r Resolved) Environ(base []string) []string {
	env := runenv.Build(base, r.Env...)
	if len(r.Set) == 0 {
		return env
	}
	keys := make([]string, 0, len(r.Set))
	for k := range r.Set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := env[:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if _, set := r.Set[name]; !set {
			out = append(out, kv)
		}
	}
	for _, k := range keys {
		out = append(out, k+"="+r.Set[k])
	}
	return out
}

func isPreset(name string) bool {
	_, ok := PresetNamed(name)
	return ok
}

func presetNames() string {
	var n []string
	for _, p := range presets {
		n = append(n, p.Name)
	}
	return strings.Join(n, ", ")
}

func oneOf(s string, set []string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}
