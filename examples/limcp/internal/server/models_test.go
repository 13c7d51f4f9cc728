//go:build unix

package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/server"
)

// modelDescription returns the description of a verb's parameter and the
// verb's fingerprint.
func modelDescription(t *testing.T, f *fixture, verb, param string) (string, string) {
	t.Helper()
	h := f.help(verb)
	var p struct {
		Description string `json:"description"`
	}
	if err := json.Unmarshal(h.Schema.Properties[param], &p); err != nil {
		t.Fatalf("%s.%s: %v", verb, param, err)
	}
	return p.Description, h.SchemaFingerprint
}

// TestModelDescriptionIsLive: agent.submit's model description lists the
// presets usable now, with echo, judged on the PATH the server's commands
// get; a program appearing on PATH, or providers.yaml disabling it,
// changes the description (and so the fingerprint) on the next request.
func TestModelDescriptionIsLive(t *testing.T) {
	bin := t.TempDir()
	f := newFixture(t, func(o *server.Options) {
		env := []string{}
		for _, kv := range o.Env {
			if !strings.HasPrefix(kv, "PATH=") {
				env = append(env, kv)
			}
		}
		o.Env = append(env, "PATH="+bin)
	})
	d1, fp1 := modelDescription(t, f, "agent.submit", "model")
	for _, want := range []string{"Usable now: echo (built in", `claude ("claude" is not on PATH)`, `codex ("codex" is not on PATH)`, `gemini ("gemini" is not on PATH)`} {
		if !strings.Contains(d1, want) {
			t.Errorf("with an empty PATH the description lacks %q:\n%s", want, d1)
		}
	}

	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	d2, fp2 := eventually(t, f, "claude or claude:MODEL (Claude Code)")
	if strings.Contains(d2, `claude ("claude"`) {
		t.Errorf("with claude on PATH the description still says it is not:\n%s", d2)
	}
	if fp2 == fp1 {
		t.Errorf("the fingerprint did not follow the description: %s", fp1)
	}
	if syn, _ := modelDescription(t, f, "fanout.submit", "with_synthesis"); !strings.Contains(syn, "claude or claude:MODEL") || !strings.HasPrefix(syn, "after the N runs") {
		t.Errorf("fanout's --with-synthesis keeps its help and gains the models: %s", syn)
	}

	writeFile(t, f.home, "providers.yaml", "providers:\n  - {name: claude, disabled: true}\n")
	eventually(t, f, "claude (disabled in providers.yaml)")
}

// eventually asks for agent.submit's model description until it holds
// want: the server works the description out again once its TTL (a
// second) has passed.
func eventually(t *testing.T, f *fixture, want string) (string, string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		d, fp := modelDescription(t, f, "agent.submit", "model")
		if strings.Contains(d, want) {
			return d, fp
		}
		if time.Now().After(deadline) {
			t.Fatalf("the model description never came to hold %q:\n%s", want, d)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
