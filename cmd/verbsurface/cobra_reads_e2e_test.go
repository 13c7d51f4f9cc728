//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// countedCobra fronts the tasks cobra CLI through a wrapper that counts
// every call of the program (one line each in the returned file) and
// returns the configuration, the wrapper and that file.
func countedCobra(t *testing.T) (config, wrapper, calls string) {
	t.Helper()
	config, bin := writeCobraConfig(t)
	dir := filepath.Dir(bin)
	calls, wrapper = filepath.Join(dir, "calls"), filepath.Join(dir, "wrap")
	script := "#!/bin/sh\necho x >> " + calls + "\nexec " + bin + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	yaml := strings.Replace(string(b), "source: {cobra: [./tasks]}", "source: {cobra: [./wrap]}", 1)
	if err := os.WriteFile(config, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return config, wrapper, calls
}

// countLines is how many calls the wrapper has counted.
func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// Issue 36, LOW #8, against the built binary: a changed cobra binary was
// read again by every concurrent request (8 requests, 7 to 8 full walks).
// Now the requests that find it changed wait for one walk.
func TestChangedCobraBinaryReadOnce(t *testing.T) {
	config, wrapper, calls := countedCobra(t)
	c := serve(t, config, "TASKS_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	c.help("task.add")
	walk := countLines(t, calls)
	if walk == 0 {
		t.Fatal("the wrapper counted no call: the test proves nothing")
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(wrapper, later, later); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "request", Arguments: json.RawMessage(`{"help":"task.add"}`)})
			if err == nil && res.IsError {
				b, _ := json.Marshal(res.Content)
				err = fmt.Errorf("help failed: %s", b)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := countLines(t, calls) - walk; got != walk {
		t.Errorf("8 concurrent requests after the change called the program %d times; one walk is %d", got, walk)
	}
}

// Issue 36, LOW #9, against the built binary: the tree source's errors
// reached the client with the server's absolute paths and Go package
// prefixes ("verbsurface: CLI file /tmp/…/tasks: stat /tmp/…/tasks: no
// such file or directory" for a binary moved away), where limcp mcp
// scrubs them. The client reads file names; the operator's log keeps the
// whole error.
func TestTreeSourceErrorsNameNoServerPath(t *testing.T) {
	leaks := func(t *testing.T, text string, paths ...string) {
		t.Helper()
		for _, p := range append(paths, "fromcobrabin:", "verbsurface: CLI", "fork/exec", "/tmp/") {
			if strings.Contains(text, p) {
				t.Errorf("the client reads %q:\n%s", p, text)
			}
		}
	}
	t.Run("a cobra binary moved away", func(t *testing.T) {
		config, bin := writeCobraConfig(t)
		c := serve(t, config, "TASKS_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
		c.help("task.add")
		if err := os.Rename(bin, bin+".moved"); err != nil {
			t.Fatal(err)
		}
		r := c.call(`{"ops": [{"op": "task.list"}], "help": true}`)
		b, _ := json.Marshal(r)
		if !strings.Contains(string(b), "could not be read") || !strings.Contains(string(b), "tasks") {
			t.Fatalf("the answer does not say the CLI could not be read, naming it: %s", b)
		}
		leaks(t, string(b), filepath.Dir(bin))
	})
	t.Run("a tree command that fails", func(t *testing.T) {
		dir := t.TempDir()
		prog := filepath.Join(dir, "treecmd")
		if err := os.WriteFile(prog, []byte("#!/bin/sh\necho \"$0: cannot read $0.json\" >&2\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		config := filepath.Join(dir, "t.yaml")
		yaml := "name: t\ncommand: [" + prog + "]\nsource: {tree_command: [" + prog + "]}\nverbs:\n  - {name: x.list, path: [list], class: observe}\n"
		if err := os.WriteFile(config, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, _ := runVS(t, "call", "-c", config, `{"ops": [{"op": "x.list"}]}`)
		if !strings.Contains(out, "treecmd: cannot read treecmd.json") {
			t.Errorf("the answer does not quote the failure by file names: %s", out)
		}
		leaks(t, out, dir)
		if !strings.Contains(errOut, prog+": cannot read") {
			t.Errorf("the operator's log lost the whole error: %s", errOut)
		}
	})
}

// Issue 35, item 5, against the built binary: a server started again on
// an unchanged cobra binary reads its tree from the state directory and
// runs the program not once; a changed binary is walked again.
func TestCobraTreeCachedAcrossStarts(t *testing.T) {
	config, wrapper, calls := countedCobra(t)
	state, home := t.TempDir(), t.TempDir() // the environment is part of the key
	start := func() int {
		before := countLines(t, calls)
		c := serve(t, config, "TASKS_HOME="+home, "XDG_STATE_HOME="+state)
		c.help("task.add")
		if err := c.cs.Close(); err != nil {
			t.Logf("closing: %v", err)
		}
		return countLines(t, calls) - before
	}
	if n := start(); n == 0 {
		t.Fatal("the first start ran nothing: the test proves nothing")
	}
	file := filepath.Join(state, "verbsurface", "tasks", cobraCacheFile)
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the cache %s: %v, %v; want a 0600 file", file, fi, err)
	}
	if n := start(); n != 0 {
		t.Errorf("a second start on the unchanged binary ran it %d times", n)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(wrapper, later, later); err != nil {
		t.Fatal(err)
	}
	if n := start(); n == 0 {
		t.Error("a start after the binary changed trusted the cache")
	}
}
