//go:build unix

package main

// End-to-end tests of issue 25's findings about words: names that are not
// what their schema says (14), answers that name the server's own paths
// (13). Each is the attack against the built binary.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNamesMatchTheirSchema: schedule.add and team.create accepted names
// with '/' although their schemas said "letters, digits, '.', '_' or
// '-'". Now the schema states the pattern, validation refuses such a name
// naming it, and the CLI refuses it too (a play's --show as well): nothing
// is stored.
func TestNamesMatchTheirSchema(t *testing.T) {
	e := newEnv(t)
	e.writeFile("playbooks/p.playbook.yaml", "description: p\nflow:\n  steps:\n    - {id: a, model: echo, prompt: \"{{.prompt}}\"}\n")
	c := e.dialStdio(nil, nil)
	for _, tt := range []struct {
		verb string
		args map[string]any
	}{
		{"schedule.add", map[string]any{"name": "a/b", "cron": "* * * * *", "command": []string{"agent", "echo", "x"}}},
		{"schedule.add", map[string]any{"name": "../x", "cron": "* * * * *", "command": []string{"agent", "echo", "x"}}},
		{"schedule.add", map[string]any{"name": strings.Repeat("n", 65), "cron": "* * * * *", "command": []string{"agent", "echo", "x"}}},
		{"team.create", map[string]any{"name": "x/y"}},
		{"team.create", map[string]any{"name": "a b"}},
		{"team.create", map[string]any{"name": "\x1b]52;c;aGk=\x07"}},
		{"team.create", map[string]any{"name": ""}},
	} {
		o := c.fail("invalid_args", tt.verb, tt.args, "")
		if len(o.Error.Problems) != 1 || o.Error.Problems[0]["param"] != "name" || o.Error.Problems[0]["rule"] != "pattern" {
			t.Errorf("%s %q: %s; want one pattern problem on name", tt.verb, tt.args["name"], o.raw)
		}
		var schema struct {
			Properties map[string]struct {
				Pattern string `json:"pattern"`
			} `json:"properties"`
		}
		if json.Unmarshal(o.Error.Schema, &schema) != nil || schema.Properties["name"].Pattern == "" {
			t.Errorf("%s: the schema states no pattern for name: %s", tt.verb, o.Error.Schema)
		}
	}
	for _, args := range [][]string{
		{"schedule", "add", "a/b", "--cron", "* * * * *", "--", "agent", "echo", "x"},
		{"team", "create", "x/y"},
		{"play", "--show", "a/b", "p", "x"},
	} {
		r := e.fail("invalid_argument", args...)
		if !strings.Contains(r.Error.Message, "is not a name") {
			t.Errorf("limcp %v: %s", args, r.Error.Message)
		}
	}
	var teams struct {
		Teams []json.RawMessage `json:"teams"`
	}
	e.ok(&teams, "team", "list")
	var schedules struct {
		Schedules []json.RawMessage `json:"schedules"`
	}
	e.ok(&schedules, "schedule", "list")
	if len(teams.Teams)+len(schedules.Schedules) != 0 {
		t.Fatalf("refused names were stored: %d teams, %d schedules", len(teams.Teams), len(schedules.Schedules))
	}
	// A good name still works, and names the team.
	c.must(nil, "team.create", map[string]any{"name": "night-shift_2.b"}, "")
}

// TestScheduleAddNamesNoServerPath: schedule.add's result carried
// "--cwd=<the server's working directory>" inside the stored command.
// Now the directory is kept beside the command, where no machine result
// shows it: the command comes back as the caller gave it, the tick still
// runs it in that directory, and `limcp schedule show` prints it for the
// person at the terminal.
func TestScheduleAddNamesNoServerPath(t *testing.T) {
	e := newEnv(t)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	c := e.dialStdio(nil, nil)
	o := c.must(nil, "schedule.add", map[string]any{"name": "s", "cron": "* * * * *", "command": []string{"agent", "echo", "x"}}, "")
	for _, r := range []json.RawMessage{o.Result, c.must(nil, "schedule.list", map[string]any{}, "").Result, c.must(nil, "schedule.show", map[string]any{"name": "s"}, "").Result} {
		if strings.Contains(string(r), wd) || strings.Contains(string(r), "--cwd") {
			t.Fatalf("a schedule's result names the server's directory: %s", r)
		}
	}
	var sc struct {
		Schedule struct {
			Command []string `json:"command"`
		} `json:"schedule"`
	}
	if json.Unmarshal(o.Result, &sc) != nil || strings.Join(sc.Schedule.Command, " ") != "agent echo x" {
		t.Fatalf("stored command %s; want it as given", o.Result)
	}
	out, _, code := e.run("schedule", "show", "s")
	if code != 0 || !strings.Contains(out, "(in "+wd+")") {
		t.Fatalf("schedule show (human): %q; want the directory printed", out)
	}
	e.makeDue("s")
	var tick tickResult
	c.must(&tick, "schedule.tick", map[string]any{}, "")
	if len(tick.Started) != 1 || tick.Started[0].ID == "" {
		t.Fatalf("tick: %+v", tick)
	}
	var spec struct {
		Cwd string `json:"cwd"`
	}
	if err := json.Unmarshal(e.status(tick.Started[0].ID).Spec, &spec); err != nil || spec.Cwd != wd {
		t.Fatalf("the ticked run's cwd is %q; want the directory the schedule was added in, %s", spec.Cwd, wd)
	}
}

// TestAuditRedactsStoredPrompts: with --audit --audit-args, a prompt
// inside a schedule.add command was written verbatim (redaction looked at
// top-level strings only). Now the command is parsed and its prompt, as
// a positional or after --, appears only as size and SHA-256; the rest
// of the command stays readable, and a tick's line names the runs it
// started, as a submit's does.
func TestAuditRedactsStoredPrompts(t *testing.T) {
	e := newEnv(t)
	e.writeFile("playbooks/p.playbook.yaml", "description: p\nargs:\n  - {name: note, type: str, help: a note}\nflow:\n  steps:\n    - {id: a, model: echo, prompt: \"{{.prompt}}\"}\n")
	audit := filepath.Join(e.home, "audit.jsonl")
	c := e.dialStdio(nil, nil, "--audit", audit, "--audit-args")
	secrets := map[string][]string{
		"a": {"agent", "echo", "first secret words"},
		"b": {"fanout", "-n", "2", "echo", "--", "-second-secret"},
		"c": {"play", "p", "--note", "kept note", "third secret"},
	}
	for name, cmd := range secrets {
		c.must(nil, "schedule.add", map[string]any{"name": name, "cron": "0 3 * * *", "command": cmd}, "")
	}
	e.makeDue("a")
	var tick tickResult
	c.must(&tick, "schedule.tick", map[string]any{}, "")
	if len(tick.Started) != 1 || tick.Started[0].ID == "" {
		t.Fatalf("tick: %+v", tick)
	}
	c.cs.Close()
	b, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"first secret words", "-second-secret", "third secret"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("the audit holds the prompt %q:\n%s", secret, b)
		}
	}
	for _, kept := range []string{`"agent"`, `"fanout"`, `"kept note"`, `"sha256"`, `"run_ids":["` + tick.Started[0].ID + `"]`} {
		if !strings.Contains(string(b), kept) {
			t.Errorf("the audit lost %s:\n%s", kept, b)
		}
	}
}

// TestHumanOutputShowsControlCharacters: labels, team messages and
// stored commands are the caller's words, and `limcp monitor`, `job
// list`, `job status`, `team read` and `schedule list` printed them raw to
// the operator's terminal (an OSC 52 clipboard write and a screen clear
// were shown). Now every control, bidi and line-separator character comes
// out as a visible escape; the machine result keeps the caller's bytes.
func TestHumanOutputShowsControlCharacters(t *testing.T) {
	e := newEnv(t)
	const attack = "\x1b]52;c;aGkgdGhlcmU=\x07\x1b[2J\x1b[Hspoof\u202egnp.exe\u2028line\rover"
	c := e.dialStdio(nil, nil)
	fp := c.help("agent.submit").SchemaFingerprint
	var s submitted
	c.must(&s, "agent.submit", map[string]any{"model": "echo:delay=30s", "prompt": "x", "label": attack}, fp)
	c.must(nil, "team.create", map[string]any{"name": "ops"}, "")
	c.must(nil, "team.post", map[string]any{"team": "ops", "message": attack, "author": attack}, "")
	c.must(nil, "schedule.add", map[string]any{"name": "s", "cron": "0 3 * * *", "command": []string{"agent", "echo", attack}}, "")
	e.waitStarted(s.ID)
	for _, args := range [][]string{{"monitor"}, {"job", "list"}, {"job", "status", s.ID}, {"team", "read", "ops"}, {"schedule", "list"}, {"schedule", "show", "s"}} {
		out, stderr, code := e.run(args...)
		if code != 0 {
			t.Fatalf("limcp %v: exit %d: %s", args, code, stderr)
		}
		for _, raw := range []string{"\x1b", "\x07", "\u202e", "\u2028", "\r"} {
			if strings.Contains(out, raw) {
				t.Errorf("limcp %v printed %q raw:\n%q", args, raw, out)
			}
		}
		if !strings.Contains(out, `\x1b]52;c;`) || !strings.Contains(out, `\u202e`) {
			t.Errorf("limcp %v does not show the escaped text:\n%s", args, out)
		}
	}
	var list struct {
		Records []struct {
			Label string `json:"label"`
		} `json:"records"`
	}
	e.ok(&list, "job", "list")
	if len(list.Records) != 1 || list.Records[0].Label != attack {
		t.Fatalf("the machine result changed the caller's label: %+v", list)
	}
	c.must(nil, "job.kill", map[string]any{"id": s.ID, "grace": "1s"}, "")
}

// serverPathsIn reports which of the server's own paths words name.
func serverPathsIn(words string, paths ...string) []string {
	var out []string
	for _, p := range paths {
		if p != "" && strings.Contains(words, p) {
			out = append(out, p)
		}
	}
	return out
}

// TestErrorsNameNoServerPath: errors quoted the server's absolute paths —
// the executable in every dispatch failure ("dispatch: /path/limcp --json
// team read ...: stdout passed its cap"), over stdio and HTTP alike. Now
// every error's message and details name the executable "limcp", the home
// $LIMCP_HOME and the server's directory ".", and keep their codes.
func TestErrorsNameNoServerPath(t *testing.T) {
	wd, _ := os.Getwd()
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			e := newEnv(t)
			var c *mcpClient
			if transport == "stdio" {
				c = e.dialStdio(nil, nil)
			} else {
				token := strings.Repeat("w", 40)
				c = e.dialHTTP(e.startHTTP(token), token)
			}
			c.must(nil, "team.create", map[string]any{"name": "big"}, "")
			msg := strings.Repeat("m", 100_000)
			for range 12 {
				c.must(nil, "team.post", map[string]any{"team": "big", "message": msg}, "")
			}
			o := c.fail("output_overflow", "team.read", map[string]any{"team": "big", "limit": 100}, "")
			if leaked := serverPathsIn(string(o.raw), limcpBin, filepath.Dir(limcpBin), e.home, wd); len(leaked) > 0 {
				t.Fatalf("the error names the server's paths %v: %.600s", leaked, o.raw)
			}
			if strings.Contains(o.Error.Message, "dispatch:") || !strings.Contains(o.Error.Message, "limcp team read --json") {
				t.Fatalf("message %q; want the command named as limcp, in the server's voice", o.Error.Message)
			}
		})
	}
}

// TestReplacedExecutableNamesNoPath: once the binary the server runs
// changes on disk, every verb is unavailable saying to restart — without
// the binary's path.
func TestReplacedExecutableNamesNoPath(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "limcp")
	b, err := os.ReadFile(limcpBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	saved := limcpBin
	limcpBin = bin
	c := e.dialStdio(nil, nil)
	limcpBin = saved
	c.must(nil, "job.list", map[string]any{}, "")
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(bin, later, later); err != nil {
		t.Fatal(err)
	}
	o := c.fail("unavailable_verb", "job.list", map[string]any{}, "")
	if leaked := serverPathsIn(string(o.raw), bin, dir); len(leaked) > 0 || !strings.Contains(o.Error.Message, "restart") {
		t.Fatalf("%s; want restart named and no path of the server's", o.raw)
	}
}
