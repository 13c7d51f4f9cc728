// Command figures measures the server figures of the README (issue 8)
// against a freshly built limcp, side by side in one run, and prints them
// beside their targets:
//
//   - the advertised tools/list entry of the one tool, in bytes, against
//     the 8,683 bytes a seven-tool server advertised (target < 1,024);
//   - the catalog ({"help": true}) bytes per verb (target < 90);
//   - a job.status round trip through a persistent stdio MCP session
//     against running `limcp job status --json` directly, interleaved, and
//     the server's overhead as the ratio of the medians (target < 10 %);
//     and the whole `limcp call` cold path (start a server, one request);
//   - job.wait latency from a run's recorded end to the wait's answer with a
//     1 s poll interval, median over several runs (target < 100 ms);
//   - the resident memory (VmRSS) of an idle `limcp mcp` (target < 30 MB).
//
// Run it through bench/run, which also runs the CLI benchmarks. Every
// process it starts ends before it returns; its state home is temporary.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// baselineToolsBytes is what the seven-tool v1 server advertised.
const baselineToolsBytes = 8683

func main() {
	n := flag.Int("n", 30, "round trips per side for the job.status figures")
	waits := flag.Int("waits", 9, "runs for the job.wait latency median")
	bin := flag.String("limcp", "", "a built limcp binary (default: build ./examples/limcp)")
	flag.Parse()
	if *n < 1 || *waits < 1 {
		fmt.Fprintf(os.Stderr, "bench/figures: -n (%d) and -waits (%d) must be at least 1: a median needs a sample\n", *n, *waits)
		os.Exit(2)
	}
	if err := run(*bin, *n, *waits); err != nil {
		fmt.Fprintln(os.Stderr, "bench/figures:", err)
		os.Exit(1)
	}
}

type figure struct{ name, value, target string }

func run(bin string, n, waits int) error {
	tmp, err := os.MkdirTemp("", "limcp-figures-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if bin == "" {
		bin = filepath.Join(tmp, "limcp")
		build := exec.Command("go", "build", "-o", bin, "./examples/limcp")
		// limcp needs no cgo (modernc.org/sqlite is pure Go): a static binary
		// skips the dynamic loader, a few ms of every cold start.
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building limcp: %w", err)
		}
	}
	home := filepath.Join(tmp, "home")
	ctx := context.Background()

	srvCmd := exec.Command(bin, "--home", home, "mcp")
	srvCmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "figures", Version: "v1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: srvCmd}, nil)
	if err != nil {
		return fmt.Errorf("starting limcp mcp: %w", err)
	}
	defer cs.Close()
	time.Sleep(300 * time.Millisecond)
	rssFresh, err := vmRSS(srvCmd.Process.Pid)
	if err != nil {
		return err
	}

	var figs []figure
	add := func(name, value, target string) { figs = append(figs, figure{name, value, target}) }

	// tools/list.
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	if len(tools.Tools) != 1 {
		return fmt.Errorf("tools/list lists %d tools", len(tools.Tools))
	}
	entry, _ := json.Marshal(tools.Tools[0])
	add("tools/list entry of the one tool", fmt.Sprintf("%d B", len(entry)),
		fmt.Sprintf("< 1,024 B; seven tools: 8,683 B (%.1fx smaller)", float64(baselineToolsBytes)/float64(len(entry))))

	// The catalog.
	resp, err := request(ctx, cs, `{"help": true}`)
	if err != nil {
		return err
	}
	var cat struct {
		Help struct {
			Verbs []string `json:"verbs"`
		} `json:"help"`
	}
	if err := json.Unmarshal(resp, &cat); err != nil || len(cat.Help.Verbs) == 0 {
		return fmt.Errorf("catalog: %s", resp)
	}
	lines := 0
	for _, l := range cat.Help.Verbs {
		lines += len(l)
	}
	add(fmt.Sprintf("catalog bytes per verb (%d verbs)", len(cat.Help.Verbs)),
		fmt.Sprintf("%.1f B (lines); %.1f B (whole response)", float64(lines)/float64(len(cat.Help.Verbs)), float64(len(resp))/float64(len(cat.Help.Verbs))),
		"< 90 B")

	// A record to read: one echo run, submitted by the CLI.
	out, err := exec.Command(bin, "--home", home, "--json", "agent", "echo", "figures").Output()
	if err != nil {
		return fmt.Errorf("limcp agent: %w: %s", err, out)
	}
	var sub struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &sub); err != nil || sub.Data.ID == "" {
		return fmt.Errorf("limcp agent: %s", out)
	}
	id := sub.Data.ID
	statusReq := `{"ops":[{"op":"job.status","args":{"ids":["` + id + `"]}}]}`

	// job.status: in-session vs direct, interleaved.
	var session, direct []time.Duration
	for i := 0; i < n+3; i++ {
		t0 := time.Now()
		if _, err := request(ctx, cs, statusReq); err != nil {
			return err
		}
		d1 := time.Since(t0)
		t0 = time.Now()
		if out, err := exec.Command(bin, "--home", home, "--json", "job", "status", id).Output(); err != nil {
			return fmt.Errorf("limcp job status: %w: %s", err, out)
		}
		d2 := time.Since(t0)
		if i >= 3 { // warm-up
			session, direct = append(session, d1), append(direct, d2)
		}
	}
	ms, md := median(session), median(direct)
	add("job.status through the MCP session", fmt.Sprintf("median %s (n=%d)", msec(ms), n), "")
	add("limcp job status --json, direct", fmt.Sprintf("median %s (n=%d)", msec(md), n), "")
	add("server overhead (session / direct - 1)", fmt.Sprintf("%+.1f %%", (float64(ms)/float64(md)-1)*100), "< 10 %")

	var cold []time.Duration
	coldN := max(n/3, 5)
	for i := 0; i < coldN; i++ {
		t0 := time.Now()
		if out, err := exec.Command(bin, "--home", home, "call", statusReq).Output(); err != nil {
			return fmt.Errorf("limcp call: %w: %s", err, out)
		}
		cold = append(cold, time.Since(t0))
	}
	add("limcp call cold path (server start + job.status)", fmt.Sprintf("median %s (n=%d)", msec(median(cold)), coldN), "")

	// job.wait latency from the run's end, poll 1 s.
	fpResp, err := request(ctx, cs, `{"help":"agent.submit"}`)
	if err != nil {
		return err
	}
	var fp struct {
		Help struct {
			FP string `json:"schema_fingerprint"`
		} `json:"help"`
	}
	if err := json.Unmarshal(fpResp, &fp); err != nil || fp.Help.FP == "" {
		return fmt.Errorf("help agent.submit: %s", fpResp)
	}
	var lates []time.Duration
	for i := 0; i < waits; i++ {
		resp, err := request(ctx, cs, `{"ops":[{"op":"agent.submit","args":{"model":"echo:delay=400ms","prompt":"wait"},"fingerprint":"`+fp.Help.FP+`"}]}`)
		if err != nil {
			return err
		}
		var s struct {
			Results []struct {
				Result struct {
					ID string `json:"id"`
				} `json:"result"`
			} `json:"results"`
		}
		if err := json.Unmarshal(resp, &s); err != nil || len(s.Results) != 1 || s.Results[0].Result.ID == "" {
			return fmt.Errorf("agent.submit: %s", resp)
		}
		rid := s.Results[0].Result.ID
		resp, err = request(ctx, cs, `{"ops":[{"op":"job.wait","args":{"ids":["`+rid+`"],"poll_interval_seconds":1,"max_wait_seconds":20}}]}`)
		arrived := time.Now()
		if err != nil {
			return err
		}
		if !strings.Contains(string(resp), `"all_terminal":true`) {
			return fmt.Errorf("job.wait: %s", resp)
		}
		ended, err := endedAt(bin, home, rid)
		if err != nil {
			return err
		}
		lates = append(lates, arrived.Sub(ended))
	}
	add("job.wait answer after the run's end (poll 1 s)", fmt.Sprintf("median %s (n=%d; max %s)", msec(median(lates)), waits, msec(maxOf(lates))), "< 100 ms")

	time.Sleep(time.Second)
	rssWorked, err := vmRSS(srvCmd.Process.Pid)
	if err != nil {
		return err
	}
	add("idle limcp mcp resident memory", fmt.Sprintf("%.1f MB fresh; %.1f MB after the above", rssFresh, rssWorked), "< 30 MB")

	w := 0
	for _, f := range figs {
		w = max(w, len(f.name))
	}
	fmt.Printf("verbsurface figures — %s, %s\n", time.Now().UTC().Format(time.RFC3339), strings.TrimSpace(loadavg()))
	for _, f := range figs {
		fmt.Printf("  %-*s  %-44s  %s\n", w, f.name, f.value, f.target)
	}
	return nil
}

// request sends one tools/call and returns the response object's JSON.
func request(ctx context.Context, cs *mcp.ClientSession, req string) ([]byte, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "request", Arguments: json.RawMessage(req)})
	if err != nil {
		return nil, err
	}
	if len(res.Content) == 0 {
		return nil, errors.New("empty tool result")
	}
	t, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return nil, fmt.Errorf("tool result content is %T", res.Content[0])
	}
	return []byte(t.Text), nil
}

func endedAt(bin, home, id string) (time.Time, error) {
	out, err := exec.Command(bin, "--home", home, "--json", "job", "status", id).Output()
	if err != nil {
		return time.Time{}, fmt.Errorf("limcp job status: %w", err)
	}
	var d struct {
		Data struct {
			Records []struct {
				EndedAt time.Time `json:"ended_at"`
			} `json:"records"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &d); err != nil || len(d.Data.Records) != 1 || d.Data.Records[0].EndedAt.IsZero() {
		return time.Time{}, fmt.Errorf("no end recorded for %s: %s", id, out)
	}
	return d.Data.Records[0].EndedAt, nil
}

// vmRSS reads a process's resident set size in MB.
func vmRSS(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				return 0, err
			}
			return kb / 1024, nil
		}
	}
	return 0, errors.New("no VmRSS")
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return "load " + strings.Join(f[:3], " ")
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func maxOf(ds []time.Duration) time.Duration {
	m := ds[0]
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}

func msec(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
