//go:build unix

package main

// End-to-end tests of issue 36's findings about work and data a client
// could make the server take without bound (5, 6), each the attack
// against the built binary.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestFlowRefusedAsItPassesRunBytes: 64 steps, each quoting a 1 MiB
// prompt four times, rendered every step (about 490 MB of memory) before
// the run's size was compared with limits.run_bytes. Now rendering stops
// as soon as the total passes the bound: the refusal counts at most the
// bound and one more quote of the prompt, and the command's peak memory
// is a fraction of what the whole flow would take.
func TestFlowRefusedAsItPassesRunBytes(t *testing.T) {
	e := newEnv(t)
	steps := "steps:\n"
	for i := range 64 {
		steps += "  - {id: s" + itoa(i) + ", model: echo, prompt: '{{.prompt}}{{.prompt}}{{.prompt}}{{.prompt}}'}\n"
	}
	// The files sit beside the home: the home is never inside a root.
	files := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(files, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	spec := write("wide.yaml", steps)
	big := strings.Repeat("p", 1<<20)
	promptFile := write("big.txt", big)

	c := e.dialStdio(nil, nil, "--root", files)
	o := c.fail("cli_error", "flow.submit", map[string]any{"spec": spec, "prompt": big}, c.help("flow.submit").SchemaFingerprint)
	var d struct {
		Code    string
		Details struct {
			Limit     string
			Max, Used int64
		}
	}
	b, _ := json.Marshal(o.Error.Details)
	if err := json.Unmarshal(b, &d); err != nil || d.Code != "limit_reached" || d.Details.Limit != "run_bytes" {
		t.Fatalf("flow.submit: %.400s; want limit_reached naming run_bytes", o.raw)
	}
	if d.Details.Used <= d.Details.Max || d.Details.Used > d.Details.Max+1<<20 {
		t.Fatalf("refused at %d bytes rendered; want just past the bound %d (at most one more quote of the prompt)", d.Details.Used, d.Details.Max)
	}
	if n := e.recordCount(); n != 0 {
		t.Fatalf("%d records; the refused flow started something", n)
	}

	// The CLI command itself, its peak resident set read from the kernel.
	cmd := exec.Command(limcpBin, "--home", e.home, "--json", "flow", "--spec", spec, "--prompt-file", promptFile)
	cmd.Env = e.environ()
	out, _ := cmd.Output()
	if !strings.Contains(string(out), `"limit_reached"`) {
		t.Fatalf("limcp flow: %.300s; want limit_reached", out)
	}
	maxRSS := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss >> 10 // KiB on Linux and FreeBSD
	if runtime.GOOS == "darwin" {
		maxRSS >>= 10 // bytes there
	}
	t.Logf("limcp flow of 64 steps x 4 x 1 MiB: refused at %d bytes rendered, peak resident set %d MiB", d.Details.Used, maxRSS)
	// The whole flow rendered is 256 MiB of prompts (about 490 MB of
	// memory before this bound); the bound is 16 MiB.
	if maxRSS > 160 {
		t.Fatalf("peak resident set %d MiB; want a fraction of the 256 MiB the whole flow renders to", maxRSS)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestTeamBoardsAreBounded: team.post is a control verb no spawn limit
// counts, and 25 requests of 16 posts of 120,000 bytes grew state.db by
// 48 MB in 36 s; limits.home_bytes measures runs/ only. Now the messages
// of every board together are bounded (limits.board_bytes, 16 MiB by
// default; here 1 MiB): the posts that fit are kept, each past the bound
// is limit_reached naming board_bytes, and nothing is written for it.
func TestTeamBoardsAreBounded(t *testing.T) {
	e := newEnv(t)
	e.writeFile("config.yaml", "limits: {board_bytes: 1MiB}\n")
	c := e.dialStdio(nil, nil)
	c.must(nil, "team.create", map[string]any{"name": "ops"}, "")
	body := strings.Repeat("m", 120000)
	posted := 0
	for i := range 16 {
		o := c.op("team.post", map[string]any{"team": "ops", "message": body, "author": "a"}, "")
		if o.OK {
			posted++
			continue
		}
		if o.Error == nil || o.Error.Details["code"] != "limit_reached" || !strings.Contains(o.Error.Message, "board_bytes") {
			t.Fatalf("post %d: %.400s; want limit_reached naming board_bytes", i, o.raw)
		}
	}
	// 64 bytes a message besides its words: eight fit in 1 MiB, not nine.
	if posted != 8 {
		t.Fatalf("%d posts kept; want the 8 that fit in 1 MiB", posted)
	}
	var read struct{ Messages []json.RawMessage }
	c.must(&read, "team.read", map[string]any{"team": "ops", "limit": 1000}, "")
	if len(read.Messages) != 8 {
		t.Fatalf("the board holds %d messages; want 8", len(read.Messages))
	}
}
