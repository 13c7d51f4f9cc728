//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeArgparse writes an argparse CLI (source is build_parser's body)
// and a configuration fronting its pick command; it returns the
// configuration's path.
func writeArgparse(t *testing.T, body string) string {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 on PATH")
	}
	dir := t.TempDir()
	files := map[string]string{
		"many.py": "import argparse, os, time\n\ndef build_parser():\n" + body +
			"    p = argparse.ArgumentParser(prog='many')\n    sub = p.add_subparsers(dest='cmd')\n" +
			"    pick = sub.add_parser('pick')\n    pick.add_argument('--json', action='store_true')\n" +
			"    pick.add_argument('--colour', choices=['c%06d' % i for i in range(300000)])\n    return p\n",
		"many.yaml": "name: many\ncommand: [python3, many.py]\nmachine: {args: [--json]}\n" +
			"source: {argparse: {target: 'many:build_parser', pythonpath: ['.']}}\n" +
			"verbs:\n  - {name: pick, path: [pick], class: observe}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "many.yaml")
}

// startCheck starts `verbsurface check -c config`; done receives its end.
func startCheck(t *testing.T, config string) (*exec.Cmd, *strings.Builder, <-chan error) {
	t.Helper()
	cmd := exec.Command(vsBin, "check", "-c", config)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return cmd, out, done
}

// TestCheckBoundsManyChoices reproduces issue 36, item 17: an argparse
// option with 300,000 choices kept check busy for over 12 minutes (each
// choice was checked against every other). Now such a parameter makes its
// verb unavailable, saying how many choices it has and the bound, and
// check answers.
func TestCheckBoundsManyChoices(t *testing.T) {
	config := writeArgparse(t, "")
	out, _, status := runVS(t, "check", "-c", config)
	if status != 1 || !strings.Contains(out, `"colour"`) || !strings.Contains(out, "300000 choices, more than the 10000") {
		t.Fatalf("check: status %d\n%s\nwant verb pick unavailable, naming colour's 300000 choices and the bound", status, out)
	}
}

// TestCheckStopsOnSIGTERM: check ignored SIGTERM while it worked. Now a
// check whose walker is busy (an argparse program that sleeps while its
// parser is built) stops when signalled, with an error saying so, and its
// walker is killed with it.
func TestCheckStopsOnSIGTERM(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "walker.pid")
	config := writeArgparse(t, "    open("+strconv.Quote(marker)+", 'w').write(str(os.getpid()))\n    time.sleep(600)\n")
	cmd, out, done := startCheck(t, config)
	var walker int
	for deadline := time.Now().Add(30 * time.Second); walker == 0; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(marker); err == nil && len(b) > 0 {
			walker, _ = strconv.Atoi(string(b))
		}
		if time.Now().After(deadline) {
			t.Fatalf("the walker never started:\n%s", out.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(out.String(), "stopped") {
			t.Fatalf("check after SIGTERM: %v\n%s\nwant a failure saying it stopped", err, out.String())
		}
	case <-time.After(60 * time.Second): // a hang guard, not a bound on how fast
		t.Fatalf("check did not stop on SIGTERM:\n%s", out.String())
	}
	for deadline := time.Now().Add(10 * time.Second); syscall.Kill(walker, 0) == nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(walker, syscall.SIGKILL)
			t.Fatalf("the walker (pid %d) outlived check", walker)
		}
	}
}

// TestCheckStopsOnSIGTERMAfterTheWalk: the 300,000-choice program, signalled
// once its walker has answered, while check works on what it read (where
// it ignored SIGTERM for over 12 minutes): check ends, failing.
func TestCheckStopsOnSIGTERMAfterTheWalk(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "walker.pid")
	config := writeArgparse(t, "    open("+strconv.Quote(marker)+", 'w').write(str(os.getpid()))\n")
	cmd, out, done := startCheck(t, config)
	var walker int
	for deadline := time.Now().Add(60 * time.Second); walker == 0 || syscall.Kill(walker, 0) == nil; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(marker); err == nil && len(b) > 0 && walker == 0 {
			walker, _ = strconv.Atoi(string(b))
		}
		if time.Now().After(deadline) {
			t.Fatalf("the walker never finished:\n%s", out.String())
		}
	}
	cmd.Process.Signal(syscall.SIGTERM) // it may have ended already: then it answered
	select {
	case err := <-done:
		if err == nil {
			t.Fatalf("check succeeded:\n%s", out.String())
		}
	case <-time.After(60 * time.Second): // a hang guard, not a bound on how fast
		t.Fatalf("check did not stop on SIGTERM:\n%s", out.String())
	}
}
