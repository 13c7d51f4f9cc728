//go:build unix

// Command compare times job.status through `limcp mcp` for several limcp
// builds side by side: one stdio server per build over one state home,
// asked in turn (the order rotating each round), and prints each server's
// CPU time per op (its own, every thread's, from the scheduler's
// accounting) and its median round trip. It is how a change to the server
// is measured against the build before it on a machine too busy for
// absolute figures:
//
//	go build -o /tmp/limcp-old ./examples/limcp   # at the old commit
//	go build -o /tmp/limcp-new ./examples/limcp
//	go run ./bench/compare -n 400 /tmp/limcp-old /tmp/limcp-new
//
// A build may carry environment settings after a comma:
// /tmp/limcp-new,GOMAXPROCS=2. The first build submits the record read.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/verbsurface/verbsurface/internal/procstat"
)

func main() {
	n := flag.Int("n", 300, "ops per build")
	flag.Parse()
	if flag.NArg() < 1 || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: compare [-n OPS] LIMCP[,ENV=VALUE...] ...")
		os.Exit(2)
	}
	if err := run(*n, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "bench/compare:", err)
		os.Exit(1)
	}
}

type build struct {
	spec string
	cs   *mcp.ClientSession
	pid  int
	cpu0 time.Duration
	wall []time.Duration
}

func run(n int, specs []string) error {
	home, err := os.MkdirTemp("", "limcp-compare-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	first, _, _ := strings.Cut(specs[0], ",")
	out, err := exec.Command(first, "--home", home, "--json", "agent", "echo", "compare").Output()
	if err != nil {
		return fmt.Errorf("limcp agent: %w: %s", err, out)
	}
	var sub struct{ Data struct{ ID string } }
	if err := json.Unmarshal(out, &sub); err != nil || sub.Data.ID == "" {
		return fmt.Errorf("limcp agent: %s", out)
	}
	req := json.RawMessage(`{"ops":[{"op":"job.status","args":{"ids":["` + sub.Data.ID + `"]}}]}`)
	ctx := context.Background()
	var builds []*build
	defer func() {
		for _, b := range builds {
			b.cs.Close()
		}
	}()
	for _, spec := range specs {
		parts := strings.Split(spec, ",")
		cmd := exec.Command(parts[0], "--home", home, "mcp")
		cmd.Env = append(os.Environ(), parts[1:]...)
		cmd.Stderr = os.Stderr
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "compare", Version: "v1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			return fmt.Errorf("%s mcp: %w", spec, err)
		}
		builds = append(builds, &build{spec: spec, cs: cs, pid: cmd.Process.Pid})
	}
	call := func(b *build) error {
		res, err := b.cs.CallTool(ctx, &mcp.CallToolParams{Name: "request", Arguments: req})
		if err == nil && res.IsError {
			err = fmt.Errorf("%s: the op failed", b.spec)
		}
		return err
	}
	for range 5 { // warm every server
		for _, b := range builds {
			if err := call(b); err != nil {
				return err
			}
		}
	}
	for _, b := range builds {
		if b.cpu0, err = procstat.CPUTime(b.pid); err != nil {
			return err
		}
	}
	for i := range n {
		for k := range builds {
			b := builds[(i+k)%len(builds)]
			t0 := time.Now()
			if err := call(b); err != nil {
				return err
			}
			b.wall = append(b.wall, time.Since(t0))
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("job.status through limcp mcp, %d ops per build, interleaved; load %s\n", n, strings.Join(strings.Fields(string(load))[:3], " "))
	for _, b := range builds {
		cpu, err := procstat.CPUTime(b.pid)
		if err != nil {
			return err
		}
		slices.Sort(b.wall)
		fmt.Printf("  %-50s server CPU %7.3f ms/op  round trip median %7.2f ms\n", b.spec,
			float64((cpu-b.cpu0).Microseconds())/1000/float64(n), float64(b.wall[len(b.wall)/2].Microseconds())/1000)
	}
	return nil
}
