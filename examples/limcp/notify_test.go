//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
	"github.com/verbsurface/verbsurface/internal/procid"
)

// The terminal-notify tests: each path that ends a run announces it
// exactly once, after the end is committed, and a notify target that
// hangs or fails never delays or alters the end.

type deliveryJSON struct {
	Channel       string     `json:"channel"`
	State         string     `json:"state"`
	Attempts      int        `json:"attempts"`
	MaxAttempts   int        `json:"max_attempts"`
	LastError     *string    `json:"last_error"`
	TransitionSeq int64      `json:"transition_seq"`
	RecordVersion int64      `json:"record_version"`
	CreatedAt     time.Time  `json:"created_at"`
	AttemptedAt   *time.Time `json:"attempted_at"`
	FinishedAt    *time.Time `json:"finished_at"`
}

type notifyJSON struct {
	URL         *string        `json:"url"`
	Command     []string       `json:"command"`
	Timeout     string         `json:"timeout"`
	MaxAttempts int            `json:"max_attempts"`
	Deliveries  []deliveryJSON `json:"deliveries"`
}

// notified is a job status record with its notify member.
type notified struct {
	record
	EndedAt *time.Time  `json:"ended_at"`
	Notify  *notifyJSON `json:"notify"`
}

func (e *env) notified(id string) notified {
	e.t.Helper()
	var d struct {
		Records []notified `json:"records"`
	}
	e.ok(&d, "job", "status", id)
	return d.Records[0]
}

// waitDeliveries polls job status until id has ended and each of its
// deliveries is final (delivered or failed).
func (e *env) waitDeliveries(id string, channels int) notified {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := e.notified(id)
		if r.Notify == nil {
			e.t.Fatalf("record %s has no notify setting", id)
		}
		done := r.Terminal && len(r.Notify.Deliveries) == channels
		for _, d := range r.Notify.Deliveries {
			done = done && (d.State == "delivered" || d.State == "failed")
		}
		if done {
			return r
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("record %s: deliveries not final within 30s: %+v", id, r.Notify)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// recorder writes a notify command that stores each body it receives in
// its own file under dir (so concurrent deliveries cannot interleave).
func (e *env) recorder() (script, dir string) {
	e.t.Helper()
	dir = filepath.Join(e.home, "received")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		e.t.Fatal(err)
	}
	script = e.writeFile("bin/record.sh", "#!/bin/sh\nf=$(mktemp \"$1/body.XXXXXX\") && cat > \"$f\"\n")
	os.Chmod(script, 0o700)
	return script, dir
}

// bodies reads every body the recorder received, by record id.
func (e *env) bodies(dir string) map[string][]notified {
	e.t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string][]notified{}
	for _, ent := range ents {
		b, err := os.ReadFile(filepath.Join(dir, ent.Name()))
		if err != nil {
			e.t.Fatal(err)
		}
		var r notified
		if err := json.Unmarshal(b, &r); err != nil {
			e.t.Fatalf("body %s is not one JSON object: %v\n%s", ent.Name(), err, b)
		}
		out[r.ID] = append(out[r.ID], r)
	}
	return out
}

// settle gives a duplicate delivery (if the code had one) time to show up.
func settle() { time.Sleep(300 * time.Millisecond) }

// terminalRow is the audit row of id's terminal transition.
func terminalRow(t *testing.T, e *env, id string) store.AuditRow {
	t.Helper()
	rows, err := e.store().Audit(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var ends []store.AuditRow
	for _, r := range rows {
		if r.ToStatus.Terminal() {
			ends = append(ends, r)
		}
	}
	if len(ends) != 1 {
		t.Fatalf("record %s has %d terminal transitions: %+v", id, len(ends), rows)
	}
	return ends[0]
}

// checkAnnounces: the delivery announces exactly the terminal transition,
// was recorded with it, and was attempted after it.
func checkAnnounces(t *testing.T, e *env, r notified, d deliveryJSON) {
	t.Helper()
	end := terminalRow(t, e, r.ID)
	if d.TransitionSeq != end.Seq || d.RecordVersion != end.ToVersion || d.RecordVersion != r.Version {
		t.Fatalf("delivery %+v announces seq %d v%d; the end is seq %d v%d", d, d.TransitionSeq, d.RecordVersion, end.Seq, end.ToVersion)
	}
	if !d.CreatedAt.Equal(end.At) || r.EndedAt == nil || !r.EndedAt.Equal(end.At) {
		t.Fatalf("delivery recorded at %s, the end at %s (record ended_at %v): not one transaction", d.CreatedAt, end.At, r.EndedAt)
	}
	if d.AttemptedAt == nil || d.AttemptedAt.Before(end.At) || d.FinishedAt == nil || d.FinishedAt.Before(*d.AttemptedAt) {
		t.Fatalf("delivery %+v was attempted before the end (%s) was recorded", d, end.At)
	}
}

func TestNotifyNormalEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	script, dir := e.recorder()
	var s struct {
		ID     string      `json:"id"`
		Notify *notifyJSON `json:"notify"`
	}
	e.ok(&s, "agent", "echo", "announce me", "--notify-command", script, "--notify-command", dir)
	if s.Notify == nil || s.Notify.URL != nil || len(s.Notify.Command) != 2 || s.Notify.Command[1] != dir {
		t.Fatalf("the submit result does not show the setting: %+v", s.Notify)
	}
	r := e.waitDeliveries(s.ID, 1)
	settle()
	got := e.bodies(dir)
	if len(got) != 1 || len(got[s.ID]) != 1 {
		t.Fatalf("bodies received: %v; want exactly one, for %s", got, s.ID)
	}
	d := r.Notify.Deliveries[0]
	if d.Channel != "command" || d.State != "delivered" || d.Attempts != 1 || d.LastError != nil {
		t.Fatalf("delivery = %+v", d)
	}
	if r.Notify.Command[0] != script || r.Notify.Timeout != "10s" || r.Notify.MaxAttempts != 3 {
		t.Fatalf("setting = %+v", r.Notify)
	}
	checkAnnounces(t, e, r, d)
	// The body is the terminal record in job status's shape.
	b := got[s.ID][0]
	if b.Status != "completed" || !b.Terminal || b.ReasonCode != "run.completed.exit_0" || b.Outcome != "succeeded" ||
		b.Version != r.Version || b.Kind != "invocation" || b.Children == nil || b.Notify == nil || b.Notify.Deliveries[0].State != "attempting" {
		t.Fatalf("body = %+v", b)
	}
	human, _, _ := e.run("job", "status", s.ID)
	if !strings.Contains(human, "command delivered after 1 of 3 attempts") {
		t.Fatalf("human job status does not show the delivery:\n%s", human)
	}
	e.assertNoProcesses(5 * time.Second)
}

func TestNotifyTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	script, dir := e.recorder()
	s := e.submit("agent", "echo:delay=30s", "too slow", "--timeout", "300ms", "--notify-command", script, "--notify-command", dir)
	r := e.waitDeliveries(s.ID, 1)
	settle()
	got := e.bodies(dir)[s.ID]
	if len(got) != 1 || got[0].Status != "timed_out" || got[0].ReasonCode != "run.timed_out.deadline" {
		t.Fatalf("bodies = %+v; want one, timed_out", got)
	}
	checkAnnounces(t, e, r, r.Notify.Deliveries[0])
	e.assertNoProcesses(5 * time.Second)
}

// TestNotifyKillOfPlayWithFanout: a kill reaps a play, its session and
// the session's three running invocations; each entity's end is announced
// exactly once, and the step that never started announces nothing.
func TestNotifyKillOfPlayWithFanout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("providers.yaml", slowProviders)
	e.writeFile("playbooks/fan3.playbook.yaml", `flow:
  steps:
    - {id: s1, model: slow, prompt: "one {{.prompt}}"}
    - {id: s2, model: slow, prompt: "two {{.prompt}}"}
    - {id: s3, model: slow, prompt: "three {{.prompt}}"}
    - {id: after, model: echo, prompt: "never", depends_on: [s1, s2, s3]}
`)
	script, dir := e.recorder()
	s := e.submit("play", "fan3", "go", "--notify-command", script, "--notify-command", dir)
	sess := e.waitChildrenStarted(s.Session, 3)
	var rep killReport
	e.ok(&rep, "kill", s.ID, "--grace", "3s")
	if len(rep.Reaped) != 5 || len(rep.NotReaped) != 0 {
		t.Fatalf("kill report = %+v", rep)
	}
	entities := append([]string{s.ID, s.Session}, sess.Children...)
	for _, id := range entities {
		r := e.waitDeliveries(id, 1)
		checkAnnounces(t, e, r, r.Notify.Deliveries[0])
	}
	settle()
	got := e.bodies(dir)
	if len(got) != 5 {
		t.Fatalf("bodies for %d records; want the 5 reaped entities", len(got))
	}
	for _, id := range entities {
		if len(got[id]) != 1 || got[id][0].Status != "cancelled" || got[id][0].ReasonCode != "run.cancelled.manual_kill" {
			t.Fatalf("entity %s announced %d times: %+v", id, len(got[id]), got[id])
		}
	}
	e.assertNoProcesses(5 * time.Second)
}

// TestNotifyFencedReap: the worker is SIGKILLed; the run is ended by the
// next observer (run.failed.process_gone), and that end is announced.
func TestNotifyFencedReap(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	script, dir := e.recorder()
	s := e.submit("agent", "echo:delay=60s", "vanish", "--notify-command", script, "--notify-command", dir)
	e.vanish(s.ID)
	e.assertNoProcesses(5 * time.Second)
	if n := e.notified(s.ID); n.Status != "running" || len(n.Notify.Deliveries) != 0 {
		t.Fatalf("before the reap: %s with deliveries %+v; nothing may be announced yet", n.Status, n.Notify.Deliveries)
	}
	e.ok(nil, "job", "observe", s.ID)
	n := e.waitDeliveries(s.ID, 1)
	settle()
	got := e.bodies(dir)[s.ID]
	if len(got) != 1 || got[0].ReasonCode != "run.failed.process_gone" || got[0].Status != "failed" {
		t.Fatalf("bodies = %+v", got)
	}
	checkAnnounces(t, e, n, n.Notify.Deliveries[0])
	e.assertNoProcesses(5 * time.Second)
}

// TestNotifyExactlyOnceUnderConcurrentReaps: 12 observers race to reap the
// same vanished run; one end, one delivery, one body.
func TestNotifyExactlyOnceUnderConcurrentReaps(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	script, dir := e.recorder()
	s := e.submit("agent", "echo:delay=60s", "vanish", "--notify-command", script, "--notify-command", dir)
	e.vanish(s.ID)
	e.assertNoProcesses(5 * time.Second)
	var wg sync.WaitGroup
	for i := 0; i < 12; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); e.ok(nil, "job", "observe", s.ID) }()
	}
	wg.Wait()
	n := e.waitDeliveries(s.ID, 1)
	settle()
	if got := e.bodies(dir)[s.ID]; len(got) != 1 {
		t.Fatalf("%d bodies for one end; want exactly 1", len(got))
	}
	checkAnnounces(t, e, n, n.Notify.Deliveries[0]) // and terminalRow proved one end
	e.assertNoProcesses(5 * time.Second)
}

// TestNotifyHangingCommandDelaysNothing: with a notify command that hangs,
// the commands that end runs — kill, job observe (the fenced reap) and the
// worker itself — return or exit while the notification is still being
// attempted; each attempt is stopped at the timeout with its process group,
// and the delivery is recorded failed with the reason.
func TestNotifyHangingCommandDelaysNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const timeout = 2 * time.Second
	hang := e.writeFile("bin/hang.sh", "#!/bin/sh\nsleep 60\n")
	os.Chmod(hang, 0o700)
	e.writeFile("config.yaml", "notify:\n  command: ["+hang+"]\n  timeout: 2s\n  attempts: 2\n")
	open := func(id string) bool {
		n := e.notified(id)
		return len(n.Notify.Deliveries) == 1 && n.Notify.Deliveries[0].State != "delivered" && n.Notify.Deliveries[0].State != "failed"
	}

	// Ended by kill.
	killed := e.submit("agent", "echo:delay=60s", "kill me")
	e.waitStarted(killed.ID)
	start := time.Now()
	e.ok(nil, "kill", killed.ID, "--grace", "2s")
	if took := time.Since(start); took >= timeout {
		t.Fatalf("kill took %s: it waited for the notify command (timeout %s)", took, timeout)
	}
	if !open(killed.ID) {
		t.Fatal("the delivery was already finished when kill returned: kill waited for it")
	}

	// Ended by the fenced reap.
	reaped := e.submit("agent", "echo:delay=60s", "vanish")
	r := e.vanish(reaped.ID)
	for deadline := time.Now().Add(5 * time.Second); procid.Check(procid.Identity{PID: *r.PID, StartTime: *r.StartTime}) != procid.Gone; {
		if time.Now().After(deadline) {
			t.Fatal("the killed worker did not go")
		}
		time.Sleep(20 * time.Millisecond)
	}
	start = time.Now()
	e.ok(nil, "job", "observe", reaped.ID)
	if took := time.Since(start); took >= timeout {
		t.Fatalf("job observe took %s: it waited for the notify command", took)
	}
	if n := e.notified(reaped.ID); n.ReasonCode != "run.failed.process_gone" || !open(reaped.ID) {
		t.Fatalf("after observe: %s, deliveries %+v", n.ReasonCode, n.Notify.Deliveries)
	}

	// Ended by its worker: the worker exits at once.
	quick := e.submit("agent", "echo", "quick")
	q := e.waitTerminal(quick.ID)
	for deadline := time.Now().Add(timeout); procid.Check(procid.Identity{PID: *q.PID, StartTime: *q.StartTime}) == procid.Alive; {
		if time.Now().After(deadline) {
			t.Fatal("the worker stayed alive while its notification hung")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !open(quick.ID) {
		t.Fatal("the delivery was finished before the worker exited")
	}

	for _, id := range []string{killed.ID, reaped.ID, quick.ID} {
		n := e.waitDeliveries(id, 1)
		d := n.Notify.Deliveries[0]
		if d.State != "failed" || d.Attempts != 2 || d.LastError == nil ||
			!strings.Contains(*d.LastError, "timed out after 2s; its process group was killed") {
			t.Fatalf("%s: delivery = %+v", id, d)
		}
		if n.Status == "running" || !n.Terminal {
			t.Fatalf("%s: the failed notification altered the end: %+v", id, n.record)
		}
	}
	e.assertNoProcesses(5 * time.Second) // the hanging commands (sh and sleep) were killed
}

func TestNotifyCommandThatFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	fail := e.writeFile("bin/fail.sh", "#!/bin/sh\ncat >/dev/null\necho 'receiver unavailable' >&2\nexit 3\n")
	os.Chmod(fail, 0o700)
	e.writeFile("config.yaml", "notify:\n  attempts: 2\n")
	s := e.submit("agent", "echo", "x", "--notify-command", fail)
	n := e.waitDeliveries(s.ID, 1)
	d := n.Notify.Deliveries[0]
	if d.State != "failed" || d.Attempts != 2 || d.LastError == nil || !strings.Contains(*d.LastError, "exit status 3: receiver unavailable") {
		t.Fatalf("delivery = %+v", d)
	}
	if n.Status != "completed" || n.ReasonCode != "run.completed.exit_0" {
		t.Fatalf("the failed notification altered the run: %+v", n.record)
	}
	human, _, _ := e.run("job", "status", s.ID)
	if !strings.Contains(human, "command failed after 2 of 2 attempts; last error:") {
		t.Fatalf("human job status:\n%s", human)
	}
	e.assertNoProcesses(5 * time.Second)
}

func TestNotifyCommandSucceedsOnRetry(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := filepath.Join(e.home, "received")
	os.MkdirAll(dir, 0o700)
	flaky := e.writeFile("bin/flaky.sh", `#!/bin/sh
n=$(cat "$1/count" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$1/count"
if [ "$n" -eq 1 ]; then echo "not ready yet" >&2; exit 1; fi
f=$(mktemp "$1/body.XXXXXX") && cat > "$f"
`)
	os.Chmod(flaky, 0o700)
	s := e.submit("agent", "echo", "x", "--notify-command", flaky, "--notify-command", dir)
	n := e.waitDeliveries(s.ID, 1)
	d := n.Notify.Deliveries[0]
	if d.State != "delivered" || d.Attempts != 2 || d.LastError == nil || !strings.Contains(*d.LastError, "not ready yet") {
		t.Fatalf("delivery = %+v; want delivered on the 2nd attempt, the 1st failure kept", d)
	}
	settle()
	if count, _ := os.ReadFile(filepath.Join(dir, "count")); strings.TrimSpace(string(count)) != "2" {
		t.Fatalf("the command ran %q times; want 2", count)
	}
	os.Remove(filepath.Join(dir, "count"))
	if got := e.bodies(dir)[s.ID]; len(got) != 1 {
		t.Fatalf("%d bodies delivered; want 1", len(got))
	}
	e.assertNoProcesses(5 * time.Second)
}

// TestNotifyHTTP: a POST to a loopback test server, from the flag and from
// $LIMCP_NOTIFY_URL (how the MCP server attaches its own notify).
func TestNotifyHTTP(t *testing.T) {
	t.Parallel()
	type post struct {
		path, contentType string
		body              notified
	}
	var mu sync.Mutex
	var posts []post
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var n notified
		if err := json.Unmarshal(b, &n); err != nil {
			t.Errorf("body is not one JSON object: %v\n%s", err, b)
		}
		mu.Lock()
		posts = append(posts, post{r.URL.Path, r.Header.Get("Content-Type"), n})
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	e := newEnv(t)
	flag := e.submit("agent", "echo", "by flag", "--notify-url", srv.URL+"/flag")

	cmd := execLimcp(e, []string{"LIMCP_NOTIFY_URL=" + srv.URL + "/env"}, "--home", e.home, "--json", "agent", "echo", "by environment")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Data submitted `json:"data"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Data.ID == "" {
		t.Fatalf("submit with the environment URL: %v\n%s", err, out.String())
	}
	byEnv := res.Data

	for _, id := range []string{flag.ID, byEnv.ID} {
		n := e.waitDeliveries(id, 1)
		if d := n.Notify.Deliveries[0]; d.Channel != "url" || d.State != "delivered" || d.Attempts != 1 {
			t.Fatalf("%s: delivery = %+v", id, d)
		}
		checkAnnounces(t, e, n, n.Notify.Deliveries[0])
	}
	settle()
	mu.Lock()
	defer mu.Unlock()
	if len(posts) != 2 {
		t.Fatalf("%d POSTs; want one per run", len(posts))
	}
	sort.Slice(posts, func(i, j int) bool { return posts[i].path < posts[j].path })
	for i, want := range []struct{ path, id string }{{"/env", byEnv.ID}, {"/flag", flag.ID}} {
		p := posts[i]
		if p.path != want.path || p.contentType != "application/json" || p.body.ID != want.id || p.body.Status != "completed" || !p.body.Terminal {
			t.Fatalf("POST %d = %s %s %+v; want %s for %s", i, p.path, p.contentType, p.body.record, want.path, want.id)
		}
	}
	if *e.notified(byEnv.ID).Notify.URL != srv.URL+"/env" {
		t.Fatal("the environment URL is not the run's setting")
	}
}

// TestNotifyRefusesBadSettingsAtSubmit: a non-loopback URL (flag,
// environment or config) or a missing command is refused with a clear
// error before anything is written; a schedule cannot store a notify flag.
func TestNotifyRefusesBadSettingsAtSubmit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.fail("invalid_argument", "agent", "echo", "x", "--notify-url", "http://example.com/hook")
	if !strings.Contains(r.Error.Message, `host "example.com" is not loopback`) || !strings.Contains(string(r.Error.Details), `"notify-url"`) {
		t.Fatalf("refusal = %s %s", r.Error.Message, r.Error.Details)
	}
	e.fail("invalid_argument", "fanout", "echo", "x", "-n", "2", "--notify-url", "http://10.0.0.1:80/")
	e.fail("invalid_argument", "agent", "echo", "x", "--notify-command", "/no/such/notifier")

	cmd := execLimcp(e, []string{"LIMCP_NOTIFY_URL=http://192.0.2.7/"}, "--home", e.home, "--json", "agent", "echo", "x")
	out, _ := cmd.Output()
	if !bytes.Contains(out, []byte(`"invalid_argument"`)) || !bytes.Contains(out, []byte("LIMCP_NOTIFY_URL")) {
		t.Fatalf("a non-loopback $LIMCP_NOTIFY_URL was not refused: %s", out)
	}

	e.writeFile("config.yaml", "notify:\n  url: http://example.org/\n")
	r = e.fail("invalid_config", "agent", "echo", "x")
	if !strings.Contains(string(r.Error.Details), `"field":"notify.url"`) {
		t.Fatalf("config refusal details = %s", r.Error.Details)
	}
	var doc struct {
		Healthy bool `json:"healthy"`
	}
	e.ok(&doc, "state", "doctor")
	if doc.Healthy {
		t.Fatal("state doctor calls a home with a bad config.yaml healthy")
	}
	os.Remove(filepath.Join(e.home, "config.yaml"))

	var list struct {
		Records []record `json:"records"`
	}
	e.ok(&list, "job", "list")
	if len(list.Records) != 0 {
		t.Fatalf("refused submits wrote %d records", len(list.Records))
	}
	r = e.fail("invalid_argument", "schedule", "add", "n", "--cron", "* * * * *", "--", "agent", "echo", "--notify-command", "/bin/sh", "x")
	if !strings.Contains(r.Error.Message, "may not be stored in a schedule") {
		t.Fatalf("schedule refusal = %s", r.Error.Message)
	}
}

// TestNotifyDefaultFromConfigCoversEveryPart: config.yaml's default applies
// to a run submitted without flags, and to every part of it: a fanout's
// session and each of its invocations is announced once.
func TestNotifyDefaultFromConfigCoversEveryPart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	script, dir := e.recorder()
	e.writeFile("config.yaml", "notify:\n  command: ["+script+", "+dir+"]\n")
	s := e.submit("fanout", "echo", "same", "-n", "2")
	sess := e.waitTerminal(s.ID)
	ids := append([]string{s.ID}, sess.Children...)
	for _, id := range ids {
		e.waitDeliveries(id, 1)
	}
	settle()
	got := e.bodies(dir)
	if len(got) != 3 {
		t.Fatalf("bodies for %d records; want the session and its 2 invocations", len(got))
	}
	for _, id := range ids {
		if len(got[id]) != 1 {
			t.Fatalf("%s announced %d times", id, len(got[id]))
		}
	}
	e.assertNoProcesses(5 * time.Second)
}

// TestNotifySweepRecoversAnUnstartedDelivery: an end committed by a
// process that died before starting its delivery (here: written in-process
// with no hook, a minute ago) is delivered after the next job observe.
func TestNotifySweepRecoversAnUnstartedDelivery(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	script, dir := e.recorder()
	ctx := context.Background()
	past, err := store.Open(ctx, filepath.Join(e.home, "state.db"), store.Options{Now: func() time.Time { return time.Now().Add(-time.Minute) }})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := past.Create(ctx, store.CreateOptions{}, store.NewRecord{Kind: store.KindInvocation,
		Notify: store.Notify{Command: []string{script, dir}, Timeout: 5 * time.Second, MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := past.Transition(ctx, store.Change{ID: recs[0].ID, Version: 1, To: store.StatusCancelled, Reason: "run.cancelled.manual_kill"}); err != nil {
		t.Fatal(err)
	}
	past.Close()
	var doc struct {
		Checks []struct{ Name, Status string } `json:"checks"`
	}
	e.ok(&doc, "state", "doctor")
	for _, c := range doc.Checks {
		if c.Name == "notifications" && c.Status != "warn" {
			t.Fatalf("state doctor does not report the stuck notification: %+v", doc.Checks)
		}
	}
	e.ok(nil, "job", "observe", recs[0].ID)
	e.waitDeliveries(recs[0].ID, 1)
	if got := e.bodies(dir)[recs[0].ID]; len(got) != 1 || got[0].Status != "cancelled" {
		t.Fatalf("bodies = %+v", got)
	}
	e.assertNoProcesses(5 * time.Second)
}

// TestNotifyAfterMigratingAVersion2Store: a store from before terminal
// notify asks for migrate; after it, notify works.
func TestNotifyAfterMigratingAVersion2Store(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if err := store.CreateAt(context.Background(), filepath.Join(e.home, "state.db"), 2); err != nil {
		t.Fatal(err)
	}
	script, dir := e.recorder()
	e.fail("schema_outdated", "agent", "echo", "x", "--notify-command", script, "--notify-command", dir)
	var m struct{ From, To int }
	e.ok(&m, "state", "migrate")
	if m.From != 2 || m.To != 3 {
		t.Fatalf("migrate = %+v", m)
	}
	s := e.submit("agent", "echo", "x", "--notify-command", script, "--notify-command", dir)
	if n := e.waitDeliveries(s.ID, 1); n.Notify.Deliveries[0].State != "delivered" {
		t.Fatalf("delivery after migrate = %+v", n.Notify.Deliveries[0])
	}
	e.assertNoProcesses(5 * time.Second)
}
