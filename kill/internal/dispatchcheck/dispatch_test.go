//go:build unix

package dispatchcheck

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/dispatch"
	"github.com/verbsurface/verbsurface/internal/procid"
	"github.com/verbsurface/verbsurface/kill"
)

func buildFixture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fixturecli")
	if out, err := exec.Command("go", "build", "-o", path, "../fixturecli").CombinedOutput(); err != nil {
		t.Fatalf("building the fixture CLI: %v\n%s", err, out)
	}
	return path
}

// startGroup starts a shell in a new process group that writes DIR/term on
// SIGTERM, and records the group as the server would.
func startGroup(t *testing.T) (kill.Group, string) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", `trap 'touch "$KDIR/term"; exit 0' TERM; while :; do sleep 0.05; done`)
	cmd.Env = append(os.Environ(), "KDIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	g, err := kill.LeaderGroup(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return g, dir
}

func TestRunnerOverDispatch(t *testing.T) {
	fixture := buildFixture(t)
	for _, tc := range []struct {
		name, id string
		code     string // "" for success
		cliCode  string
	}{
		{"success", "ok-1", "", ""},
		{"failed", "fail-1", "cli_error", "kill_failed"},
		{"timed out", "hang-1", "timeout", ""},
		{"partial reap", "partial-1", "cli_error", "kill_partial"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "calls.jsonl")
			runner, err := dispatch.NewRunner(fixture, &dispatch.Options{
				Env:     append(os.Environ(), "FIXTURECLI_LOG="+log),
				Timeout: 700 * time.Millisecond,
				Grace:   200 * time.Millisecond,
			})
			if err != nil {
				t.Fatal(err)
			}
			g, dir := startGroup(t)
			rec := kill.Record{Kind: kill.KindPlay, ID: tc.id, Group: &g, ServerCreatedGroup: true}
			res, err := kill.NewKiller(runner, nil).Kill(context.Background(), rec)

			if tc.code == "" {
				if err != nil || res.Delegated == nil || !res.Delegated.OK {
					t.Fatalf("Kill = %+v, %v; want a successful delegation", res, err)
				}
				var printed struct {
					Data json.RawMessage `json:"data"`
				}
				json.Unmarshal(onlyStdout(t, log), &printed)
				if !bytes.Equal(printed.Data, res.Delegated.Data) {
					t.Errorf("data %s, the CLI printed %s", res.Delegated.Data, printed.Data)
				}
			} else {
				var coded interface{ ErrorCode() string }
				if !errors.As(err, &coded) || coded.ErrorCode() != tc.code {
					t.Fatalf("Kill error = %v, want code %s", err, tc.code)
				}
				if res.Delegated == nil || res.Delegated.Error == nil || res.Delegated.Error.Code != tc.code {
					t.Fatalf("delegated %+v, want error code %s", res.Delegated, tc.code)
				}
				if tc.cliCode != "" && res.Delegated.Error.Details["code"] != tc.cliCode {
					t.Errorf("details %v, want the CLI's code %s", res.Delegated.Error.Details, tc.cliCode)
				}
			}
			if res.Signalled != nil {
				t.Errorf("signalled: %+v", res.Signalled)
			}
			time.Sleep(200 * time.Millisecond)
			if procid.Check(g.Leader) != procid.Alive {
				t.Error("the record's group leader is not alive: it was signalled")
			}
			if _, err := os.Stat(filepath.Join(dir, "term")); err == nil {
				t.Error("the record's group received SIGTERM")
			}
		})
	}
}

func onlyStdout(t *testing.T, log string) []byte {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	for sc := bufio.NewScanner(bytes.NewReader(b)); sc.Scan(); {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	if len(lines) != 1 {
		t.Fatalf("%d calls logged, want 1", len(lines))
	}
	var c struct {
		Stdout json.RawMessage `json:"stdout"`
	}
	if err := json.Unmarshal(lines[0], &c); err != nil {
		t.Fatal(err)
	}
	return c.Stdout
}
