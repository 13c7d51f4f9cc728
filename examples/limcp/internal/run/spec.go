//go:build unix

package run

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/provider"
)

// Files of a run directory.
const (
	PromptFile = "prompt.txt"
	StdoutFile = "stdout"
	StderrFile = "stderr"
	WorkerLog  = "worker.log"
	// AgentOutputFile is the machine output of a provider whose output is
	// an agent program's JSON, as written; StdoutFile then holds the
	// answer extracted from it.
	AgentOutputFile = "agent_output"
	// ErrorFile is the error an agent program reported in its machine
	// output, when it reported one: the run's error text.
	ErrorFile = "error"
)

// MaxAgentOutput bounds what the worker reads of an agent's machine
// output (and of its stderr) to extract the answer; the file itself is
// kept whole.
const MaxAgentOutput = 32 << 20

// RunsDir is the directory of run directories under the home.
const RunsDir = "runs"

// Dir returns the run directory of record id.
func Dir(home, id string) string { return filepath.Join(home, RunsDir, id) }

// Duration is a time.Duration that reads and writes as a Go duration string.
type Duration time.Duration

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	x, err := time.ParseDuration(s)
	*d = Duration(x)
	return err
}

// PromptInfo describes a prompt snapshot.
type PromptInfo struct {
	SHA256 string `json:"prompt_sha256"`
	Bytes  int    `json:"prompt_bytes"`
	Source string `json:"prompt_source"` // argument, prompt_file, step
}

// InvocationSpec is an invocation record's spec.
type InvocationSpec struct {
	Provider provider.Resolved `json:"provider"`
	Cwd      string            `json:"cwd"`
	Timeout  Duration          `json:"timeout"` // 0: none
	Step     string            `json:"step,omitempty"`
	Prompt   PromptInfo        `json:"prompt"`
}

// StepSpec is one step of a session.
type StepSpec struct {
	ID        string            `json:"id"`
	Provider  provider.Resolved `json:"provider"`
	DependsOn []string          `json:"depends_on,omitempty"`
	// PromptFile is the step's prompt before its inputs are appended, a
	// file name in the session's run directory.
	PromptFile string `json:"prompt_file"`
}

// Session modes.
const (
	ModeFanout = "fanout"
	ModeFlow   = "flow"
	ModePlay   = "play"
)

// SessionSpec is a session record's spec.
type SessionSpec struct {
	Mode    string     `json:"mode"`
	Steps   []StepSpec `json:"steps"`
	Cwd     string     `json:"cwd"`
	Timeout Duration   `json:"timeout"` // per invocation
	Prompt  PromptInfo `json:"prompt"`
}

// PlaySpec is a play record's spec.
type PlaySpec struct {
	Playbook    string         `json:"playbook"`
	Fingerprint string         `json:"playbook_fingerprint"`
	Args        map[string]any `json:"args"`
	Session     string         `json:"session"`
	Show        string         `json:"show,omitempty"`
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}
