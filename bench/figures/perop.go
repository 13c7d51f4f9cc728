//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"time"

	"github.com/verbsurface/verbsurface/internal/procstat"
)

// side is one way of running job.status, timed in turn with the others.
type side struct {
	name string
	run  func() error
	pid  int // the server's, for its CPU time; 0 for the direct CLI
	wall []time.Duration
	cpu  time.Duration
}

// perOp times job.status four ways, interleaved (each iteration runs every
// side once, in an order that rotates, so drift and ordering effects fall
// on all alike): through limcp mcp as shipped, through the minimal go-sdk
// server running the same command, the command run directly, and through
// limcp mcp with GOMAXPROCS given as 1 and as the machine's CPUs (the
// measurement behind limcp's choice for stdio).
func perOp(ctx context.Context, b bins, home, id string, n int, g *goals) (*table, error) {
	req := `{"ops":[{"op":"job.status","args":{"ids":["` + id + `"]}}]}`
	shipped, err := startServer(ctx, exec.Command(b.limcp, "--home", home, "mcp"))
	if err != nil {
		return nil, err
	}
	defer shipped.close()
	// The same server with GOMAXPROCS given: one, as limcp mcp sets it for
	// stdio, and the machine's CPUs, the runtime's default.
	procs := map[int]*server{}
	for _, n := range []int{1, runtime.NumCPU()} {
		cmd := exec.Command(b.limcp, "--home", home, "mcp")
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(n))
		srv, err := startServer(ctx, cmd)
		if err != nil {
			return nil, err
		}
		defer srv.close()
		procs[n] = srv
	}
	minimal, err := startServer(ctx, exec.Command(b.minimal, b.limcp, "--home", home, "--json", "job", "status"))
	if err != nil {
		return nil, err
	}
	defer minimal.close()

	through := func(s *server) func() error {
		return func() error { _, err := s.request(ctx, req); return err }
	}
	sides := []*side{
		{name: "limcp mcp (as shipped)", run: through(shipped), pid: shipped.pid},
		{name: "minimal go-sdk server, same command", pid: minimal.pid, run: func() error {
			_, err := callText(ctx, minimal.cs, "run", map[string]any{"args": []string{id}})
			return err
		}},
		{name: "limcp job status --json, direct", run: func() error {
			out, err := exec.Command(b.limcp, "--home", home, "--json", "job", "status", id).Output()
			if err != nil {
				return fmt.Errorf("limcp job status: %w: %s", err, out)
			}
			return nil
		}},
		{name: "limcp mcp, GOMAXPROCS=1", run: through(procs[1]), pid: procs[1].pid},
		{name: fmt.Sprintf("limcp mcp, GOMAXPROCS=%d", runtime.NumCPU()), run: through(procs[runtime.NumCPU()]), pid: procs[runtime.NumCPU()].pid},
	}
	for range 3 { // warm every path
		for _, s := range sides {
			if err := s.run(); err != nil {
				return nil, err
			}
		}
	}
	before := make([]time.Duration, len(sides))
	for i, s := range sides {
		if s.pid != 0 {
			if before[i], err = procstat.CPUTime(s.pid); err != nil {
				return nil, err
			}
		}
	}
	for i := range n {
		for k := range sides {
			s := sides[(i+k)%len(sides)]
			t0 := time.Now()
			if err := s.run(); err != nil {
				return nil, fmt.Errorf("%s: %w", s.name, err)
			}
			s.wall = append(s.wall, time.Since(t0))
		}
	}
	for i, s := range sides {
		if s.pid != 0 {
			after, err := procstat.CPUTime(s.pid)
			if err != nil {
				return nil, err
			}
			s.cpu = (after - before[i]) / time.Duration(n)
		}
	}
	t := &table{title: fmt.Sprintf("per op: job.status, interleaved, n=%d (medians; CPU is the server process's own, per op)", n)}
	for _, s := range sides {
		v := "median " + msec(median(s.wall))
		if s.pid != 0 {
			v += ", server CPU " + msec(s.cpu)
		}
		t.add(s.name, v, "")
	}
	ms, mm, md := median(sides[0].wall), median(sides[1].wall), median(sides[2].wall)
	m1, mp := median(sides[3].wall), median(sides[4].wall)
	ratio := func(a, b time.Duration) float64 { return float64(a) / float64(b) }
	t.add("through limcp mcp / direct", fmt.Sprintf("%.3fx (%+.2f ms)", ratio(ms, md), float64((ms-md).Microseconds())/1000), "")
	t.add("minimal go-sdk server / direct", fmt.Sprintf("%.3fx (%+.2f ms)", ratio(mm, md), float64((mm-md).Microseconds())/1000), "the floor of a go-sdk server")
	t.add("through limcp mcp / minimal go-sdk server", fmt.Sprintf("%.3fx", ratio(ms, mm)), "≤ 1.05x")
	t.add(fmt.Sprintf("GOMAXPROCS=1 / GOMAXPROCS=%d", runtime.NumCPU()), fmt.Sprintf("%.3fx wall, %.2fx server CPU", ratio(m1, mp), float64(sides[3].cpu)/float64(max(sides[4].cpu, 1))), "")
	g.check("server CPU per op (limcp mcp, job.status)", msec(sides[0].cpu), "≤ 0.9 ms", sides[0].cpu <= 900*time.Microsecond)
	g.check("op through limcp mcp / minimal go-sdk server", fmt.Sprintf("%.3fx", ratio(ms, mm)), "≤ 1.05x", ratio(ms, mm) <= 1.05)
	return t, nil
}

// coldPath times `limcp call '{"help":true}'` (start a server, one
// request, exit) against a static hello-world, interleaved.
func coldPath(b bins, home string, n int, g *goals) (*table, error) {
	var call, hello []time.Duration
	for i := range n + 2 {
		t0 := time.Now()
		if out, err := exec.Command(b.limcp, "--home", home, "call", `{"help":true}`).Output(); err != nil {
			return nil, fmt.Errorf("limcp call: %w: %s", err, out)
		}
		d1 := time.Since(t0)
		t0 = time.Now()
		if out, err := exec.Command(b.hello).Output(); err != nil {
			return nil, fmt.Errorf("hello: %w: %s", err, out)
		}
		d2 := time.Since(t0)
		if i >= 2 {
			call, hello = append(call, d1), append(hello, d2)
		}
	}
	mc, mh := median(call), median(hello)
	t := &table{title: fmt.Sprintf("cold path, interleaved, n=%d (medians)", n)}
	t.add(`limcp call '{"help":true}'`, "median "+msec(mc), "")
	t.add("static hello-world", "median "+msec(mh), "")
	r := float64(mc) / float64(mh)
	t.add("limcp call / hello-world", fmt.Sprintf("%.1fx", r), "≤ 8x")
	g.check(`limcp call '{"help":true}' / static hello-world`, fmt.Sprintf("%.1fx (%s vs %s)", r, msec(mc), msec(mh)), "≤ 8x", r <= 8)
	return t, nil
}
