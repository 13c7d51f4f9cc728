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
