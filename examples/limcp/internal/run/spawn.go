//go:build unix

package run

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
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
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd, nil
}
