//go:build unix

package provider

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Output formats: how a command provider's stdout becomes the run's
// output. A JSON format names the documented machine output of one agent
// program; the worker keeps the program's stdout as it was written (the
// run directory's agent_output) and writes the final answer it extracts as
// the run's stdout, and the program's error report as the run's error text
// (see [Extract]).
const (
	// OutputText: stdout is the run's output, as written (the default).
	OutputText = "text"
	// OutputClaudeJSON: one JSON object {"type": "result", "is_error",
	// "result", ...} (Claude Code's --output-format json).
	OutputClaudeJSON = "claude-json"
	// OutputCodexJSONL: JSON Lines of thread events; the answer is the
	// last item.completed of type agent_message, the error a turn.failed
	// (Codex's exec --json).
	OutputCodexJSONL = "codex-jsonl"
	// OutputGeminiJSON: one JSON object {"response", "stats", "error"}
	// (Gemini CLI's --output-format json).
	OutputGeminiJSON = "gemini-json"
)

// OutputFormats lists the formats providers.yaml's output may name.
var OutputFormats = []string{OutputText, OutputClaudeJSON, OutputCodexJSONL, OutputGeminiJSON}

// Preset is a built-in command provider for an agent program people
// already have: its documented non-interactive invocation. A preset is
// used only when providers.yaml does not declare a provider of its name
// (an entry of that name overrides it, `disabled: true` removes it), and
// only when its command is on PATH at submit.
//
// Every preset runs the program in its own default permission mode: none
// passes a flag that skips permission prompts, approvals or the sandbox.
// Such a flag can come only from the operator's providers.yaml; a caller's
// model name cannot carry one (it must match [ModelPattern], and a
// template slot never takes a value starting with "-").
type Preset struct {
	Name    string   // the provider name: "claude"
	Program string   // what it runs, for people: "Claude Code"
	Argv    []string // the invocation without a model; Argv[0] is looked up on PATH
	// Model is inserted after Argv when the model name has a MODEL part
	// (NAME:MODEL); without one the program uses its own default model.
	Model []string
	// Tail follows the model arguments (codex's "-": read the prompt from
	// stdin).
	Tail []string
	// Output is the format the invocation writes (one of the Output*
	// constants).
	Output string
	// Env are the variables passed through from limcp's environment
	// (API keys, a config directory), beyond the rule of package runenv.
	Env []string
	// Needs says what the program needs to work, for `state doctor` and
	// the README.
	Needs string
	// Doc is the documentation page the flags follow.
	Doc string
}

// presets are the built-in presets, in the order they are listed. Each
// reads the prompt on stdin (as every command provider does): a prompt is
// never an argv element, so it never shows in the process list and can
// never be read as an option.
var presets = []Preset{
	{
		// Claude Code's print mode: -p runs non-interactively and prints
		// the result; with no prompt argument the prompt is read from
		// stdin; --output-format json prints one result object; --model
		// takes an alias (sonnet, opus) or a full model name.
		// https://docs.claude.com/en/docs/claude-code/headless
		// https://docs.claude.com/en/docs/claude-code/cli-reference
		Name: "claude", Program: "Claude Code",
		Argv:   []string{"claude", "-p", "--output-format", "json"},
		Model:  []string{"--model", "{model}"},
		Output: OutputClaudeJSON,
		Env:    []string{"ANTHROPIC_API_KEY"},
		Needs:  "a Claude login (`claude` once, at a terminal) or ANTHROPIC_API_KEY",
		Doc:    "https://docs.claude.com/en/docs/claude-code/headless",
	},
	{
		// Codex's non-interactive mode: `codex exec`; PROMPT "-" reads the
		// prompt from stdin; --json prints JSON Lines events; --model (-m)
		// picks the model. It runs in its default read-only sandbox and,
		// by its own rule, only inside a Git repository.
		// https://developers.openai.com/codex/noninteractive
		// https://developers.openai.com/codex/cli/reference#codex-exec
		Name: "codex", Program: "Codex CLI",
		Argv:   []string{"codex", "exec", "--json"},
		Model:  []string{"--model", "{model}"},
		Tail:   []string{"-"},
		Output: OutputCodexJSONL,
		Env:    []string{"OPENAI_API_KEY", "CODEX_HOME"},
		Needs:  "a Codex login (`codex login`) or OPENAI_API_KEY; a Git repository as the run's --cwd",
		Doc:    "https://developers.openai.com/codex/noninteractive",
	},
	{
		// Gemini CLI's headless mode: it runs headless when stdin is not
		// a terminal, reading the prompt from it; --output-format json
		// prints {response, stats, error}; --model (-m) picks the model.
		// https://geminicli.com/docs/cli/headless/
		// https://github.com/google-gemini/gemini-cli/blob/main/docs/cli/headless.md
		Name: "gemini", Program: "Gemini CLI",
		Argv:   []string{"gemini", "--output-format", "json"},
		Model:  []string{"--model", "{model}"},
		Output: OutputGeminiJSON,
		Env: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION",
			"GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_APPLICATION_CREDENTIALS"},
		Needs: "a Google login (`gemini` once, at a terminal), GEMINI_API_KEY, or Vertex AI settings",
		Doc:   "https://geminicli.com/docs/cli/headless/",
	},
}

// Presets returns the built-in presets (a copy), in listing order.
func Presets() []Preset {
	out := make([]Preset, len(presets))
	copy(out, presets)
	return out
}

// PresetNamed returns the built-in preset called name.
func PresetNamed(name string) (Preset, bool) {
	for _, p := range presets {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

// Template returns the preset's argv template: Argv, then Model when
// withModel, then Tail.
func (p Preset) Template(withModel bool) []string {
	out := append([]string{}, p.Argv...)
	if withModel {
		out = append(out, p.Model...)
	}
	return append(out, p.Tail...)
}

// Availability is whether one provider can run on this machine now, and
// why not: what `state doctor` lists and agent.submit's model description
// is built from.
type Availability struct {
	Name    string `json:"name"`
	Program string `json:"program,omitempty"` // a preset's program ("Claude Code")
	// Source is "preset" (built in), "providers.yaml" (declared there,
	// overriding a preset of the same name if any) or "disabled" (a
	// preset providers.yaml disables).
	Source  string `json:"source"`
	Command string `json:"command,omitempty"` // argv[0] as configured
	Usable  bool   `json:"usable"`
	Path    string `json:"path,omitempty"`   // where the command was found
	Reason  string `json:"reason,omitempty"` // why it is not usable
	Needs   string `json:"needs,omitempty"`
	Doc     string `json:"doc,omitempty"`
}

// Sources of an [Availability].
const (
	SourcePreset   = "preset"
	SourceConfig   = "providers.yaml"
	SourceDisabled = "disabled"
)

// LookPath finds a command as [Resolve] does, in the directories of path
// (a $PATH value) instead of this process's: a name with a slash is taken
// as it is, and the result is absolute.
type LookPath func(file string) (string, error)

// LookPathIn returns a [LookPath] over the directories of pathList (a
// $PATH value). It is what a process uses to answer for another whose
// environment it builds (the MCP server for the CLI commands it runs).
func LookPathIn(pathList string) LookPath {
	return func(file string) (string, error) {
		if strings.Contains(file, "/") {
			return executable(file)
		}
		for _, dir := range filepath.SplitList(pathList) {
			if dir == "" {
				dir = "."
			}
			if p, err := executable(filepath.Join(dir, file)); err == nil {
				return p, nil
			}
		}
		return "", fmt.Errorf("%q is not on PATH", file)
	}
}

func executable(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s does not exist", path)
		}
		return "", err
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s is not an executable file", path)
	}
	return filepath.Abs(path)
}

// Availabilities reports every provider a model name can name besides
// echo: the providers of cfg in declaration order, then each preset cfg
// does not declare, each looked up with look.
func Availabilities(cfg Config, look LookPath) []Availability {
	var out []Availability
	declared := map[string]bool{}
	for _, p := range cfg.Providers {
		declared[p.Name] = true
		a := Availability{Name: p.Name, Source: SourceConfig}
		if pr, ok := PresetNamed(p.Name); ok {
			a.Program, a.Needs, a.Doc = pr.Program, pr.Needs, pr.Doc
		}
		if p.Disabled {
			a.Source, a.Reason = SourceDisabled, "disabled in "+ConfigFile
			out = append(out, a)
			continue
		}
		a.Command = p.Argv[0]
		a.Path, a.Usable, a.Reason = probe(look, a.Command)
		out = append(out, a)
	}
	for _, pr := range presets {
		if declared[pr.Name] {
			continue
		}
		a := Availability{Name: pr.Name, Program: pr.Program, Source: SourcePreset, Command: pr.Argv[0], Needs: pr.Needs, Doc: pr.Doc}
		a.Path, a.Usable, a.Reason = probe(look, a.Command)
		out = append(out, a)
	}
	return out
}

func probe(look LookPath, command string) (path string, usable bool, reason string) {
	p, err := look(command)
	if err != nil {
		return "", false, err.Error()
	}
	return p, true, ""
}

// ModelHelp is the description of a model parameter as it stands on this
// machine now: the model name's form, the built-in echo, each usable
// provider, and each that is not with the reason. It changes when a
// program appears on or leaves PATH or providers.yaml changes; the MCP
// server puts it in the schema of every model parameter, so agent.submit's
// fingerprint changes with it (a stale fingerprint's error carries the new
// schema).
func ModelHelp(avail []Availability) string {
	var b strings.Builder
	b.WriteString(`NAME or NAME:MODEL. Usable now: echo (built in: writes the prompt back; options as echo:delay=2s,exit=3,stderr=TEXT)`)
	var not []string
	for _, a := range avail {
		if !a.Usable {
			not = append(not, fmt.Sprintf("%s (%s)", a.Name, a.Reason))
			continue
		}
		what := a.Program
		if what == "" {
			what = "from " + ConfigFile
		} else if a.Source == SourceConfig {
			what += ", as " + ConfigFile + " declares it"
		}
		fmt.Fprintf(&b, ", %s or %s:MODEL (%s)", a.Name, a.Name, what)
	}
	if len(not) > 0 {
		b.WriteString(". Not usable now: " + strings.Join(not, ", "))
	}
	return b.String()
}
