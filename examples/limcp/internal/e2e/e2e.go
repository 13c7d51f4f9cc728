//go:build unix

// Package e2e is the shared support of limcp's end-to-end tests: it builds
// the real binary once per test run and finds every process a test started,
// so "no process survived" is a question the process table can answer
// (procid for the list, environ for each environment, one file per platform). It is imported
// only by tests.
//
// Every process a test starts carries TagVar=<the test's state home> in its
// environment; workers, providers and delivery processes inherit it.
package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/verbsurface/verbsurface/internal/procid"
)

// TagVar marks the processes of one test: its value is the test's home.
const TagVar = "LIMCP_E2E_TAG"

// Build builds limcp into a new temporary directory and returns the binary's
// path and a cleanup that removes the directory. limcp needs no cgo
// (modernc.org/sqlite is pure Go), so it is built static: the dynamic loader
// would add a few ms to every cold start the tests and benchmarks measure.
func Build() (bin string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "limcp-e2e-")
	if err != nil {
		return "", nil, err
	}
	bin = filepath.Join(dir, "limcp")
	build := exec.Command("go", "build", "-o", bin, "github.com/verbsurface/verbsurface/examples/limcp")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("building limcp: %w", err)
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}

// Tagged lists the live (non-zombie) processes, other than this one, whose
// environment carries TagVar=tag, or, for a process whose environment
// cannot be read (limcp's are undumpable, readable by root alone), whose
// arguments name the tag's home (--home TAG: a worker, a server). A process
// that exited meanwhile, or another user's, is not listed.
func Tagged(tag string) []int {
	want := []byte("\x00" + TagVar + "=" + tag + "\x00")
	home := []byte("\x00--home\x00" + tag + "\x00")
	all, err := procid.Live()
	if err != nil {
		panic(fmt.Sprintf("e2e: listing processes: %v", err)) // never a silent "none survived"
	}
	var out []int
	for _, st := range all {
		if st.PID == os.Getpid() {
			continue
		}
		env, err := environ(st.PID)
		switch {
		case err == nil && bytes.Contains(append(append([]byte{0}, env...), 0), want):
			out = append(out, st.PID)
		case err != nil || len(env) == 0:
			// Unreadable (undumpable, for all but root) or, between fork
			// and exec, empty for an instant: the arguments, then where
			// it works, say whether it is the test's.
			if args, err := cmdline(st.PID); err == nil && bytes.Contains(append(append([]byte{0}, args...), 0), home) {
				out = append(out, st.PID)
			} else if holdsPath(st.PID, tag) {
				out = append(out, st.PID)
			}
		}
	}
	return out
}

// Reap kills every process tagged tag (a test's cleanup) and returns those
// that survived a second of trying. It returns only once two looks at the
// process table, 50 ms apart, found none: a process that one look missed
// (caught between fork and exec) is found by the next, before the test's
// directory is removed under it.
func Reap(tag string) []int {
	quiet := 0
	for round := 0; round < 20; round++ {
		pids := Tagged(tag)
		if len(pids) == 0 {
			if quiet++; quiet == 2 {
				return nil
			}
			time.Sleep(50 * time.Millisecond)
			continue
		}
		quiet = 0
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return Tagged(tag)
}

// FakeAgents are the programs the fakeagent command stands in for: the
// built-in presets' commands.
var FakeAgents = []string{"claude", "codex", "gemini"}

// BuildFakeAgents builds the fakeagent command into dir and links it there
// under each name of FakeAgents, so that dir, put first on PATH, holds
// stand-ins for the real agent programs.
func BuildFakeAgents(dir string) error {
	bin := filepath.Join(dir, "fakeagent")
	build := exec.Command("go", "build", "-o", bin, "github.com/verbsurface/verbsurface/examples/limcp/internal/fakeagent")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building fakeagent: %w", err)
	}
	for _, n := range FakeAgents {
		if err := os.Symlink("fakeagent", filepath.Join(dir, n)); err != nil {
			return err
		}
	}
	return nil
}
