//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

type scheduleData struct {
	Name      string    `json:"name"`
	Cron      string    `json:"cron"`
	Command   []string  `json:"command"`
	NextRunAt time.Time `json:"next_run_at"`
}

func TestScheduleTickStartsWhatIsDue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.ok(nil, "team", "create", "ops")
	var add struct{ Schedule scheduleData }
	e.ok(&add, "schedule", "add", "nightly", "--cron", "0 3 * * *", "--", "agent", "echo", "--team", "ops", "scheduled run")
	if add.Schedule.NextRunAt.Hour() != 3 || add.Schedule.NextRunAt.Minute() != 0 || !add.Schedule.NextRunAt.After(time.Now()) {
		t.Fatalf("next run = %s", add.Schedule.NextRunAt)
	}
	// The command is stored as given; the directory it runs in (where it
	// was added) is kept beside it, out of the machine result.
	if strings.Join(add.Schedule.Command, " ") != "agent echo --team ops scheduled run" {
		t.Fatalf("stored command = %q; want it as given", add.Schedule.Command)
	}
	type tick struct {
		Started []struct {
			Schedule string `json:"schedule"`
			ID       string `json:"id"`
			Error    string `json:"error"`
		} `json:"started"`
	}
	var none tick
	e.ok(&none, "schedule", "tick", "--now", time.Now().Format(time.RFC3339))
	if len(none.Started) != 0 {
		t.Fatalf("a tick before the due time started %+v", none.Started)
	}
	due := add.Schedule.NextRunAt.Add(time.Minute).Format(time.RFC3339)
	// Concurrent ticks at the same moment start the occurrence once.
	var wg sync.WaitGroup
	ticks := make([]tick, 4)
	for i := range ticks {
		wg.Add(1)
		go func(i int) { defer wg.Done(); e.ok(&ticks[i], "schedule", "tick", "--now", due) }(i)
	}
	wg.Wait()
	var started []string
	for _, tk := range ticks {
		for _, s := range tk.Started {
			if s.Error != "" {
				t.Fatalf("tick failed: %s", s.Error)
			}
			started = append(started, s.ID)
		}
	}
	if len(started) != 1 {
		t.Fatalf("4 concurrent ticks started %d runs; want 1", len(started))
	}
	r := e.waitTerminal(started[0])
	if r.Status != "completed" || r.Team == nil || *r.Team != "ops" {
		t.Fatalf("scheduled run = %+v", r)
	}
	var spec struct {
		Cwd string `json:"cwd"`
	}
	if wd, _ := os.Getwd(); json.Unmarshal(r.Spec, &spec) != nil || spec.Cwd != wd {
		t.Fatalf("the scheduled run ran in %q; want the directory it was added in, %s", spec.Cwd, wd)
	}
	var sc struct{ Schedule scheduleData }
	e.ok(&sc, "schedule", "show", "nightly")
	if !sc.Schedule.NextRunAt.After(add.Schedule.NextRunAt) {
		t.Fatalf("next run did not advance: %s", sc.Schedule.NextRunAt)
	}
	var board struct {
		Messages []struct{ Author, Body, RecordID string } `json:"messages"`
	}
	e.ok(&board, "team", "read", "ops")
	if len(board.Messages) != 1 || !strings.Contains(board.Messages[0].Body, started[0]) || !strings.Contains(board.Messages[0].Body, "completed") {
		t.Fatalf("team board = %+v; want the run's end posted once", board)
	}
	e.ok(nil, "schedule", "remove", "nightly")
	e.fail("unknown_schedule", "schedule", "remove", "nightly")
}

func TestScheduleRefusesWhatCanNeverRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name, code string
		args       []string
	}{
		{"a four-field cron", "invalid_cron", []string{"--cron", "0 3 * *", "--", "agent", "echo", "x"}},
		{"a cron field out of range", "invalid_cron", []string{"--cron", "61 * * * *", "--", "agent", "echo", "x"}},
		{"a command that is not a spawn", "invalid_argument", []string{"--cron", "* * * * *", "--", "kill", "abcdefabcdef"}},
		{"a command that does not parse", "invalid_argument", []string{"--cron", "* * * * *", "--", "agent", "echo", "x", "--bogus"}},
		{"a command overriding the home", "invalid_argument", []string{"--cron", "* * * * *", "--", "agent", "--home", "/tmp", "echo", "x"}},
		{"a play of a missing playbook", "playbook_not_found", []string{"--cron", "* * * * *", "--", "play", "nope", "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &env{t: t, home: e.home}
			e.fail(tt.code, append([]string{"schedule", "add", "s"}, tt.args...)...)
		})
	}
	var list struct{ Schedules []scheduleData }
	e.ok(&list, "schedule", "list")
	if len(list.Schedules) != 0 {
		t.Fatalf("refused schedules were stored: %+v", list.Schedules)
	}
}

func TestTeams(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.ok(nil, "team", "create", "crew")
	e.fail("already_exists", "team", "create", "crew")
	e.fail("unknown_team", "agent", "echo", "x", "--team", "nobody")
	e.fail("unknown_team", "team", "post", "nobody", "hi")
	for _, m := range []string{"first", "second", "third"} {
		e.ok(nil, "team", "post", "crew", m, "--author", "ann")
	}
	var page struct {
		Messages []struct {
			Seq    int64  `json:"seq"`
			Author string `json:"author"`
			Body   string `json:"body"`
		} `json:"messages"`
	}
	e.ok(&page, "team", "read", "crew", "--limit", "2")
	if len(page.Messages) != 2 || page.Messages[0].Body != "first" || page.Messages[1].Author != "ann" {
		t.Fatalf("page 1 = %+v", page)
	}
	after := page.Messages[1].Seq
	e.ok(&page, "team", "read", "crew", "--after", strconv.FormatInt(after, 10))
	if len(page.Messages) != 1 || page.Messages[0].Body != "third" {
		t.Fatalf("page 2 = %+v", page)
	}
	var list struct {
		Teams []struct {
			Name     string `json:"name"`
			Messages int    `json:"messages"`
		} `json:"teams"`
	}
	e.ok(&list, "team", "list")
	if len(list.Teams) != 1 || list.Teams[0].Messages != 3 {
		t.Fatalf("teams = %+v", list)
	}
}

func TestStateCommandsAndTrust(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.submit("agent", "echo", "x")
	hooks := e.writeFile("hooks.sh", "#!/bin/sh\necho hook\n")
	e.ok(nil, "plugin", "trust", "formatter")
	e.fail("invalid_argument", "plugin", "trust", "../evil")
	e.ok(nil, "hooks", "trust", hooks)
	e.fail("invalid_argument", "hooks", "trust", filepath.Join(e.home, "missing.sh"))
	var show struct {
		Home          string `json:"home"`
		Store         string `json:"store"`
		SchemaVersion int    `json:"schema_version"`
		JournalMode   string `json:"journal_mode"`
		Trust         []struct {
			Kind, Subject, Digest string
		} `json:"trust"`
	}
	e.ok(&show, "state", "show")
	if show.Home != e.home || show.Store != filepath.Join(e.home, "state.db") || show.JournalMode != "wal" || len(show.Trust) != 2 {
		t.Fatalf("state show = %+v", show)
	}
	if show.Trust[0].Kind != "hooks" || show.Trust[0].Subject != hooks || !strings.HasPrefix(show.Trust[0].Digest, "sha256:") || show.Trust[1].Subject != "formatter" {
		t.Fatalf("trust entries = %+v", show.Trust)
	}
	var list struct {
		Counts map[string]int `json:"counts"`
	}
	e.ok(&list, "state", "list")
	if list.Counts["records"] != 1 || list.Counts["trust"] != 2 {
		t.Fatalf("state list = %+v", list)
	}
	var doc struct {
		Healthy bool `json:"healthy"`
		Checks  []struct{ Name, Status string }
	}
	e.ok(&doc, "state", "doctor")
	if !doc.Healthy || len(doc.Checks) < 5 {
		t.Fatalf("doctor = %+v", doc)
	}
	e.writeFile("playbooks/broken.playbook.yaml", "flow: {steps: []}\n")
	e.ok(&doc, "state", "doctor")
	if doc.Healthy {
		t.Fatalf("doctor did not notice the broken playbook: %+v", doc)
	}
	var stats struct {
		Total int `json:"total"`
	}
	e.ok(&stats, "stats")
	if stats.Total != 1 {
		t.Fatalf("stats total = %d", stats.Total)
	}
}

func TestHomeFromEnvironment(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	home := filepath.Join(e.home, "via-env")
	cmd := execLimcp(e, []string{"LIMCP_HOME=" + home}, "--json", "state", "show")
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), `"home":"`+home+`"`) {
		t.Fatalf("LIMCP_HOME not used: %v %s", err, out)
	}
	xdg := filepath.Join(e.home, "xdg")
	cmd = execLimcp(e, []string{"XDG_STATE_HOME=" + xdg}, "--json", "state", "show")
	out, err = cmd.Output()
	if err != nil || !strings.Contains(string(out), `"home":"`+filepath.Join(xdg, "limcp")+`"`) {
		t.Fatalf("XDG_STATE_HOME not used: %v %s", err, out)
	}
	// state show only reads, so it created nothing; a command that writes
	// creates the store in that home.
	if _, err := os.Stat(filepath.Join(xdg, "limcp", "state.db")); !os.IsNotExist(err) {
		t.Fatalf("state show created the store: %v", err)
	}
	cmd = execLimcp(e, []string{"XDG_STATE_HOME=" + xdg}, "--json", "team", "create", "t")
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("team create: %v %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(xdg, "limcp", "state.db")); err != nil {
		t.Fatal(err)
	}
}

// TestDoctorSaysAbsent: state doctor says an optional file that is not
// there is absent, and says "parses" only of a file that exists and parses.
func TestDoctorSaysAbsent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var doc struct {
		Healthy bool `json:"healthy"`
		Checks  []struct{ Name, Status, Detail string }
	}
	detail := func(name string) string {
		for _, c := range doc.Checks {
			if c.Name == name {
				return c.Status + ": " + c.Detail
			}
		}
		t.Fatalf("no %s check: %+v", name, doc.Checks)
		return ""
	}
	e.ok(&doc, "state", "doctor")
	for _, name := range []string{"providers", "config"} {
		if d := detail(name); !strings.Contains(d, "absent (optional") || strings.Contains(d, "parses") || !doc.Healthy {
			t.Errorf("%s on a home without the file: %q", name, d)
		}
	}
	e.writeFile("providers.yaml", "providers: []\n")
	e.writeFile("config.yaml", "notify: {attempts: 2}\n")
	e.ok(&doc, "state", "doctor")
	for _, name := range []string{"providers", "config"} {
		if d := detail(name); !strings.Contains(d, "parses") || strings.Contains(d, "absent") {
			t.Errorf("%s on a home with the file: %q", name, d)
		}
	}
}
