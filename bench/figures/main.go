//go:build unix

// Command figures measures the figures of docs/figures.md in one run on
// this machine and prints each beside its target (bench/run runs it):
//
//   - the tool: the advertised tools/list entry of the one tool in bytes,
//     against the seven-tool v1 server and one tool per verb; the catalog
//     ({"help": true}) in bytes per verb;
//   - per op: job.status through a persistent `limcp mcp` stdio session,
//     against `limcp job status --json` run directly and against a minimal
//     go-sdk server that runs the same command (bench/minimal, the floor
//     any go-sdk server pays), interleaved, medians and ratios, and each
//     server's CPU time per op; the same session with GOMAXPROCS set to
//     the machine's CPUs, the setting limcp mcp's stdio server does not
//     use (see "GOMAXPROCS" in docs/figures.md);
//   - the cold path: `limcp call '{"help":true}'` against a static
//     hello-world (bench/hello);
//   - job.wait's answer after a run's recorded end with a 1 s poll, and the
//     idle server's memory;
//   - growth: a synthetic cobra CLI (bench/synthcli, package
//     bench/internal/synth) of 10, 100, 1,000 and 5,000 commands with
//     eight flags each: the server's start, a catalog, a verb's help, one
//     op's validate+render (in process, the surface's own cost with a
//     runner that answers at once), the server's resident memory, and the
//     bytes each verb's cached projection holds;
//   - discovery: the bytes an agent reads on the wire before its first
//     correct op on a named task, at each size of the synthetic CLI, by
//     the catalog by namespace and by search, against the flat catalog of
//     old and one tool per command;
//   - the goals of issue 29, each figure against its goal.
//
// Every process it starts ends before it returns; its state homes are
// temporary. Times are wall clock medians on a shared machine: read the
// ratios, which are measured side by side.
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
	"runtime"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/verbsurface/verbsurface/internal/docfigures"
	"github.com/verbsurface/verbsurface/internal/procstat"
)

// baselineToolsBytes is what the seven-tool v1 server advertised.
const baselineToolsBytes = 8683

type config struct {
	n, waits, cold, starts int
	sizes                  []int
	only                   map[string]bool // sections to run; empty: all
}

// on reports whether section runs.
func (c config) on(section string) bool { return len(c.only) == 0 || c.only[section] }

func main() {
	var c config
	flag.IntVar(&c.n, "n", 40, "round trips per side for the per-op figures")
	flag.IntVar(&c.waits, "waits", 9, "runs for the job.wait latency median")
	flag.IntVar(&c.cold, "cold", 15, "runs per side for the cold path")
	flag.IntVar(&c.starts, "starts", 3, "server starts per size for the growth table")
	sizes := flag.String("sizes", "10,100,1000,5000", "command counts of the growth table")
	only := flag.String("only", "", "run only these sections (comma-separated: tool, perop, cold, wait, growth, discovery)")
	flag.Parse()
	if *only != "" {
		c.only = map[string]bool{}
		for _, s := range strings.Split(*only, ",") {
			c.only[strings.TrimSpace(s)] = true
		}
	}
	for _, s := range strings.Split(*sizes, ",") {
		var k int
		if _, err := fmt.Sscan(s, &k); err != nil || k < 1 {
			fatal(fmt.Errorf("-sizes: %q is not a positive count", s))
		}
		c.sizes = append(c.sizes, k)
	}
	if c.n < 1 || c.waits < 1 || c.cold < 1 || c.starts < 1 {
		fmt.Fprintln(os.Stderr, "bench/figures: -n, -waits, -cold and -starts must be at least 1: a median needs a sample")
		os.Exit(2)
	}
	if err := run(c); err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "bench/figures:", err)
	os.Exit(1)
}

// bins are the programs the figures run, built once into a temporary
// directory: static (CGO_ENABLED=0), as limcp ships, so a cold start skips
// the dynamic loader.
type bins struct{ limcp, synth, minimal, hello string }

func build(dir string) (bins, error) {
	b := bins{
		limcp:   filepath.Join(dir, "limcp"),
		synth:   filepath.Join(dir, "synthcli"),
		minimal: filepath.Join(dir, "minimal"),
		hello:   filepath.Join(dir, "hello"),
	}
	for out, pkg := range map[string]string{b.limcp: "./examples/limcp", b.synth: "./bench/synthcli", b.minimal: "./bench/minimal", b.hello: "./bench/hello"} {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return b, fmt.Errorf("building %s: %w", pkg, err)
		}
	}
	return b, nil
}

// table is one section of the output: rows of figure, value, target.
type table struct {
	title string
	rows  [][3]string
}

func (t *table) add(name, value, target string) {
	t.rows = append(t.rows, [3]string{name, value, target})
}

func (t *table) print() {
	fmt.Printf("\n%s\n", t.title)
	w := [3]int{}
	for _, r := range t.rows {
		for i := range 2 {
			w[i] = max(w[i], len([]rune(r[i])))
		}
	}
	for _, r := range t.rows {
		fmt.Printf("  %s  %s  %s\n", pad(r[0], w[0]), pad(r[1], w[1]), r[2])
	}
}

func pad(s string, n int) string { return s + strings.Repeat(" ", max(0, n-len([]rune(s)))) }

// goals collects each goal's figure and verdict for the summary.
type goals struct{ rows [][3]string }

func (g *goals) check(name, value, target string, met bool) {
	verdict := "met"
	if !met {
		verdict = "MISSED"
	}
	g.rows = append(g.rows, [3]string{name, value + "  (goal " + target + ")", verdict})
}

func run(c config) error {
	tmp, err := os.MkdirTemp("", "verbsurface-figures-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	b, err := build(tmp)
	if err != nil {
		return err
	}
	fmt.Printf("verbsurface figures — %s, %s, %d CPUs, %s\n", time.Now().UTC().Format(time.RFC3339), strings.TrimSpace(loadavg()), runtime.NumCPU(), runtime.Version())
	var g goals
	ctx := context.Background()
	home := filepath.Join(tmp, "home")

	srv, err := startServer(ctx, exec.Command(b.limcp, "--home", home, "mcp"))
	if err != nil {
		return fmt.Errorf("starting limcp mcp: %w", err)
	}
	defer srv.close()
	time.Sleep(300 * time.Millisecond)
	rssFresh, err := procstat.StatusMB(srv.pid, "VmRSS")
	if err != nil {
		return err
	}

	if c.on("tool") {
		tool, err := toolFigures(ctx, srv)
		if err != nil {
			return err
		}
		tool.print()
	}
	if c.on("perop") {
		id, err := seedRecord(b.limcp, home)
		if err != nil {
			return err
		}
		op, err := perOp(ctx, b, home, id, c.n, &g)
		if err != nil {
			return err
		}
		op.print()
	}
	if c.on("cold") {
		cold, err := coldPath(b, home, c.cold, &g)
		if err != nil {
			return err
		}
		cold.print()
	}
	if c.on("wait") {
		wt, err := waitLatency(ctx, srv, b.limcp, home, c.waits)
		if err != nil {
			return err
		}
		time.Sleep(time.Second)
		rssWorked, err := procstat.StatusMB(srv.pid, "VmRSS")
		if err != nil {
			return err
		}
		wt.add("idle limcp mcp resident memory", fmt.Sprintf("%.1f MB fresh; %.1f MB after the above", rssFresh, rssWorked), "< 30 MB")
		wt.print()
	}
	if c.on("growth") {
		gr, err := growth(ctx, b.synth, c.sizes, c.starts, &g)
		if err != nil {
			return err
		}
		gr.print()
	}

	if c.on("discovery") {
		d, err := discovery(ctx, c.sizes)
		if err != nil {
			return err
		}
		d.print()
	}

	if len(g.rows) > 0 {
		fmt.Printf("\ngoals (issue 29)\n")
		for _, r := range g.rows {
			fmt.Printf("  %-7s %s: %s\n", r[2], r[0], r[1])
		}
	}
	return checkDocs(produced)
}

// produced holds the figures this run measured that docs/figures.md (or
// the README) may state as checked (<!-- figure: NAME -->); see
// package internal/docfigures.
var produced = map[string]float64{}

// checkDocs compares every checked figure of the pages with this run's
// measurement of it and fails on a difference: a page must not state a
// figure the code no longer produces. (The same figures are held by
// TestDocumentedFiguresAreTrue in CI.)
func checkDocs(got map[string]float64) error {
	var stale []string
	fmt.Printf("\nchecked figures of the docs\n")
	for _, page := range []string{"docs/figures.md", "README.md"} {
		figs, err := docfigures.ParseFile(page)
		if err != nil {
			return err
		}
		for _, f := range figs {
			v, ok := got[f.Name]
			switch {
			case !ok:
				fmt.Printf("  %s:%d %s = %s (not measured in this run)\n", page, f.Line, f.Name, f.Text)
			case f.Matches(v):
				fmt.Printf("  %s:%d %s = %s, as measured\n", page, f.Line, f.Name, f.Text)
			default:
				fmt.Printf("  %s:%d %s = %s, but this run measured %s: STALE\n", page, f.Line, f.Name, f.Text, f.Format(v))
				stale = append(stale, fmt.Sprintf("%s:%d %s", page, f.Line, f.Name))
			}
		}
	}
	if len(stale) > 0 {
		return fmt.Errorf("%d figures the docs state differ from this run: %s", len(stale), strings.Join(stale, ", "))
	}
	return nil
}

// server is a stdio MCP server child and the client session with it.
type server struct {
	cs  *mcp.ClientSession
	pid int
}

func startServer(ctx context.Context, cmd *exec.Cmd) (*server, error) {
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "figures", Version: "v1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, err
	}
	return &server{cs: cs, pid: cmd.Process.Pid}, nil
}

func (s *server) close() { s.cs.Close() }

// request sends one tools/call of the one tool and returns the response
// object's JSON.
func (s *server) request(ctx context.Context, req string) ([]byte, error) {
	return callText(ctx, s.cs, "request", json.RawMessage(req))
}

func callText(ctx context.Context, cs *mcp.ClientSession, tool string, args any) ([]byte, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
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
	if res.IsError {
		return []byte(t.Text), fmt.Errorf("tool error: %.300s", t.Text)
	}
	return []byte(t.Text), nil
}

func toolFigures(ctx context.Context, srv *server) (*table, error) {
	t := &table{title: "the tool (limcp mcp)"}
	tools, err := srv.cs.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	if len(tools.Tools) != 1 {
		return nil, fmt.Errorf("tools/list lists %d tools", len(tools.Tools))
	}
	entry, _ := json.Marshal(tools.Tools[0])
	resp, err := srv.request(ctx, `{"help": true}`)
	if err != nil {
		return nil, err
	}
	var cat struct {
		Help struct {
			Verbs []string `json:"verbs"`
		} `json:"help"`
	}
	if err := json.Unmarshal(resp, &cat); err != nil || len(cat.Help.Verbs) == 0 {
		return nil, fmt.Errorf("catalog: %s", resp)
	}
	perTool, err := oneToolPerVerb(ctx, srv, cat.Help.Verbs)
	if err != nil {
		return nil, err
	}
	produced["tool_bytes"] = float64(len(entry))
	produced["tool_ratio_v1"] = float64(baselineToolsBytes) / float64(len(entry))
	t.add("tools/list entry of the one tool", fmt.Sprintf("%d B", len(entry)),
		fmt.Sprintf("< 1,024 B; seven v1 tools: 8,683 B (%.1fx); one tool per verb: %.1f KB (%.0fx)",
			float64(baselineToolsBytes)/float64(len(entry)), float64(perTool)/1000, float64(perTool)/float64(len(entry))))
	lines := 0
	for _, l := range cat.Help.Verbs {
		lines += len(l)
	}
	nv := float64(len(cat.Help.Verbs))
	produced["catalog_verbs"] = nv
	produced["catalog_line_bytes"] = float64(lines) / nv
	produced["catalog_response_bytes"] = float64(len(resp)) / nv
	t.add(fmt.Sprintf("catalog bytes per verb (%d verbs)", len(cat.Help.Verbs)),
		fmt.Sprintf("%.1f B (lines); %.1f B (whole response)", float64(lines)/nv, float64(len(resp))/nv), "< 90 B")
	return t, nil
}

// oneToolPerVerb is what tools/list would carry if each verb were its own
// tool: its name, summary and args schema, as the help for it gives them.
func oneToolPerVerb(ctx context.Context, srv *server, lines []string) (int, error) {
	total := 0
	for _, l := range lines {
		verb, _, _ := strings.Cut(l, "(")
		resp, err := srv.request(ctx, fmt.Sprintf(`{"help": %q}`, verb))
		if err != nil {
			return 0, err
		}
		var h struct {
			Help struct {
				Summary string          `json:"summary"`
				Schema  json.RawMessage `json:"schema"`
			} `json:"help"`
		}
		if err := json.Unmarshal(resp, &h); err != nil {
			return 0, err
		}
		b, _ := json.Marshal(&mcp.Tool{Name: strings.ReplaceAll(verb, ".", "_"), Description: h.Help.Summary, InputSchema: h.Help.Schema})
		total += len(b)
	}
	return total, nil
}

// seedRecord submits one echo run through the CLI: a record to read.
func seedRecord(bin, home string) (string, error) {
	out, err := exec.Command(bin, "--home", home, "--json", "agent", "echo", "figures").Output()
	if err != nil {
		return "", fmt.Errorf("limcp agent: %w: %s", err, out)
	}
	var sub struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &sub); err != nil || sub.Data.ID == "" {
		return "", fmt.Errorf("limcp agent: %s", out)
	}
	return sub.Data.ID, nil
}
