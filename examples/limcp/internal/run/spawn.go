//go:build unix

package run

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/runenv"
)

// WorkerCommand is the hidden command that runs a record.
const WorkerCommand = "__worker"

// startWorker starts `exe --home home __worker [--env-fd=3] id` as a new
// session (so a new process group) with its output going to the run
// directory's worker log. It returns the started command; the caller
// either waits for it (a coordinator, which must reap its children) or
// releases it (a submitting command, which exits and leaves the worker to
// init).
//
// secrets are the variables the run's providers are given (providers.yaml
// env:, a preset's API keys), name to value. They never enter the
// worker's environment, where every process of the user could read them
// (/proc/PID/environ) for as long as the run lasts: the worker gets them
// on a pipe (descriptor 3, --env-fd), keeps them in memory (it is
// undumpable: package nodump) and hands each provider only its own.
func startWorker(exe, home, id string, secrets map[string]string) (*exec.Cmd, error) {
	dir := Dir(home, id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	log, err := os.OpenFile(filepath.Join(dir, WorkerLog), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	args := []string{"--home", home, WorkerCommand}
	var w *os.File
	cmd := exec.Command(exe)
	if len(secrets) > 0 {
		r, wr, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		defer r.Close()
		w = wr
		cmd.ExtraFiles = []*os.File{r}
		args = append(args, fmt.Sprintf("--%s=%d", EnvFDFlag, 3))
	}
	cmd.Args = append([]string{exe}, append(args, id)...)
	cmd.Dir = dir
	cmd.Env = workerEnv()
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		if w != nil {
			w.Close()
		}
		return nil, err
	}
	if w != nil {
		// Written after the start: the worker reads it first thing, so a
		// large set cannot block on a full pipe before there is a reader.
		// A worker that died at once leaves EPIPE, which its record shows.
		b, _ := json.Marshal(secrets)
		_, _ = w.Write(b)
		w.Close()
	}
	return cmd, nil
}

// EnvFDFlag is the worker's flag naming the descriptor its providers'
// variables come on (startWorker).
const EnvFDFlag = "env-fd"

// maxSecretBytes bounds what a worker reads on its descriptor.
const maxSecretBytes = 1 << 20

// ReadSecrets reads a worker's providers' variables from descriptor fd
// (a JSON object of name to value, then end of file) and closes it.
func ReadSecrets(fd int) (map[string]string, error) {
	f := os.NewFile(uintptr(fd), "env-fd")
	if f == nil {
		return nil, fmt.Errorf("worker: --%s %d is not an open descriptor", EnvFDFlag, fd)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretBytes+1))
	if err != nil {
		return nil, fmt.Errorf("worker: reading the providers' variables: %w", err)
	}
	if len(b) > maxSecretBytes {
		return nil, fmt.Errorf("worker: the providers' variables are over %d bytes", maxSecretBytes)
	}
	out := map[string]string{}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("worker: the providers' variables are not a JSON object: %w", err)
	}
	return out, nil
}

// workerEnv is a worker's environment: the rule of package runenv over
// this process's environment (for a run: runenv.ForRun), and nothing a
// provider is given (those come on the worker's descriptor: startWorker).
func workerEnv() []string { return runenv.ForRun(os.Environ()) }

// secretsFor returns the values of names among vars: what a run whose
// providers pass names through gets on its worker's descriptor.
func secretsFor(vars map[string]string, names []string) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		if v, ok := vars[n]; ok {
			out[n] = v
		}
	}
	return out
}

// environMap is the process environment as a map (the first of a name
// wins, as getenv's).
func environMap() map[string]string {
	out := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			if _, dup := out[k]; !dup {
				out[k] = v
			}
		}
	}
	return out
}

// secrets are the variables this process holds for providers: those it
// was given on its descriptor (a worker), else its own environment (the
// command that submits, whose environment the server or the person built).
func (rt *Runtime) secrets() map[string]string {
	if rt.Secrets != nil {
		return rt.Secrets
	}
	return environMap()
}

// providerEnvNames are the variable names the steps' providers pass
// through, once each.
func providerEnvNames(steps []StepSpec) []string {
	var out []string
	seen := map[string]bool{}
	for _, st := range steps {
		for _, n := range st.Provider.Env {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}
