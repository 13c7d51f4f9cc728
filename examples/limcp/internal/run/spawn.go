//go:build unix

package run

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/provider"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/runenv"
)

// WorkerCommand is the hidden command that runs a record.
const WorkerCommand = "__worker"

// startWorker starts `exe --home home __worker id` as a new session (so a
// new process group) with its output going to the run directory's worker
// log. It returns the started command; the caller either waits for it (a
// coordinator, which must reap its children) or releases it (a submitting
// command, which exits and leaves the worker to init).
func startWorker(exe, home, id string) (*exec.Cmd, error) {
	dir := Dir(home, id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	log, err := os.OpenFile(filepath.Join(dir, WorkerLog), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	cmd := exec.Command(exe, "--home", home, WorkerCommand, id)
	cmd.Dir = dir
	cmd.Env = workerEnv(home)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd, nil
}

// workerEnv is a worker's environment: the rule of package runenv over
// this process's environment, keeping what any provider of home's
// providers.yaml passes through (a session's coordinator may start a step
// of any provider, and each provider process narrows it again to its own
// names). A providers.yaml that does not load passes nothing more: the
// submit that needed it has already failed on it.
func workerEnv(home string) []string {
	cfg, _ := provider.LoadConfig(home)
	return runenv.Build(os.Environ(), cfg.EnvNames()...)
}
