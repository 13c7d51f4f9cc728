package clientconfig

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// runTimeout bounds one run of a client's program. `claude mcp get`
// connects to the server it shows, which can take a few seconds; none of
// the commands used waits for a person.
const runTimeout = 2 * time.Minute

// runner runs the clients' programs in the configured environment and
// finds their files from it.
type runner struct {
	env   []string
	goos  string
	trust string // Options.TrustFolder
}

func newRunner(o *Options) *runner {
	r := &runner{env: o.Environ, goos: o.GOOS, trust: o.TrustFolder}
	if r.env == nil {
		r.env = os.Environ()
	}
	if r.goos == "" {
		r.goos = runtime.GOOS
	}
	return r
}

// getenv reads the environment as a process would (the last setting wins).
func (r *runner) getenv(key string) string {
	v := ""
	for _, kv := range r.env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// home is the user's home directory, where the clients keep their files.
func (r *runner) home() (string, error) {
	key := "HOME"
	if r.goos == "windows" {
		key = "USERPROFILE"
	}
	if h := r.getenv(key); h != "" {
		return h, nil
	}
	return "", fmt.Errorf("clientconfig: $%s is not set: no home directory to find the client's configuration in", key)
}

// lookPath finds prog on the environment's PATH (not this process's).
func (r *runner) lookPath(prog string) (string, error) {
	exts := []string{""}
	if r.goos == "windows" {
		exts = append(exts, strings.Split(strings.ToLower(r.getenv("PATHEXT")), ";")...)
	}
	for _, dir := range filepath.SplitList(r.getenv("PATH")) {
		if dir == "" {
			continue
		}
		for _, ext := range exts {
			p := filepath.Join(dir, prog+ext)
			fi, err := os.Stat(p)
			if err != nil || !fi.Mode().IsRegular() || (r.goos != "windows" && fi.Mode().Perm()&0o111 == 0) {
				continue
			}
			return p, nil
		}
	}
	return "", errNotOnPath
}

var errNotOnPath = errors.New("not on PATH")

// runResult is what a run of a client's program said.
type runResult struct {
	stdout, stderr string
	exit           int
}

// output is the run's output for a message: stderr, else stdout, trimmed.
func (r *runResult) output() string {
	s := strings.TrimSpace(r.stderr)
	if s == "" {
		s = strings.TrimSpace(r.stdout)
	}
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return s
}

// run runs argv (argv[0] looked up on PATH) to its end. A non-zero exit is
// a result, not an error; an error is a program that could not run.
func (r *runner) run(ctx context.Context, argv []string) (*runResult, error) {
	path, err := r.lookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", argv[0], err)
	}
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	cmd.Env = r.env
	cmd.Stdin = nil // nothing to answer: a prompt fails instead of waiting
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	res := &runResult{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%s did not finish within %s", formatArgv(argv), runTimeout)
	case errors.As(err, &ee):
		res.exit = ee.ExitCode()
	case err != nil:
		return nil, fmt.Errorf("running %s: %v", formatArgv(argv), err)
	}
	return res, nil
}

// formatArgv renders argv as a line a POSIX shell reads back as argv.
func formatArgv(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

// shellQuote quotes a word when a shell would read anything in it
// specially ($ and { above all: a header's ${VAR} must reach the client
// as written, not expanded by the shell that ran the line).
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	for _, r := range s {
		if !(r == '/' || r == '.' || r == '_' || r == '-' || r == '+' || r == ':' || r == ',' || r == '@' || r == '=' || r == '%' ||
			('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
