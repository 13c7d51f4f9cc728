//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"time"

	"github.com/verbsurface/verbsurface/bench/internal/synth"
	"github.com/verbsurface/verbsurface/internal/procstat"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// growthRow is one size of the synthetic CLI.
type growthRow struct {
	commands          int
	start             time.Duration // exec to the answer of the MCP initialize request
	startCPU          time.Duration // the server's CPU time by then
	catalog, help     time.Duration // round trips through the session
	op                time.Duration // one op's validate+render, in process
	opAllocs, opBytes float64
	rssMB             float64 // the server's, after a catalog
	cachedPerVerb     float64 // heap bytes the projection cache holds per verb, in process
}

// growth fills the growth table: for each size, starts the synthetic
// server (bench/synthcli mcp) starts times and keeps the median (wall
// clock to the initialize answer, and the server's CPU time by then),
// times a catalog and a help through the session (rawSession: the
// server's answer, not a client's decoding of it), reads the server's
// RSS, and measures one op and the per-verb cache in process.
func growth(ctx context.Context, bin string, sizes []int, starts int, g *goals) (*table, error) {
	var rows []growthRow
	for _, n := range sizes {
		r := growthRow{commands: n}
		var st, stCPU []time.Duration
		var srv *rawSession
		for i := range starts {
			cmd := exec.Command(bin, "mcp")
			cmd.Env = append(os.Environ(), synth.CommandsEnv+"="+strconv.Itoa(n))
			t0 := time.Now()
			s, err := startRaw(cmd)
			if err != nil {
				return nil, fmt.Errorf("synthcli mcp (%d commands): %w", n, err)
			}
			st = append(st, time.Since(t0))
			c, err := procstat.CPUTime(cmd.Process.Pid)
			if err != nil {
				return nil, err
			}
			stCPU = append(stCPU, c)
			if i < starts-1 {
				s.close()
			} else {
				srv = s
			}
		}
		r.start, r.startCPU = median(st), median(stCPU)
		var cat, help []time.Duration
		last := fmt.Sprintf("g%d.c%d", (n-1)/synth.GroupSize, n-1)
		for range 5 {
			t0 := time.Now()
			if _, err := srv.request(`{"help":true}`); err != nil {
				return nil, err
			}
			cat = append(cat, time.Since(t0))
			t0 = time.Now()
			if _, err := srv.request(`{"help":"` + last + `"}`); err != nil {
				return nil, err
			}
			help = append(help, time.Since(t0))
		}
		r.catalog, r.help = median(cat), median(help)
		var err error
		if r.rssMB, err = procstat.StatusMB(srv.cmd.Process.Pid, "VmRSS"); err != nil {
			return nil, err
		}
		srv.close()
		rows = append(rows, r)
	}
	if err := inProcess(ctx, rows); err != nil {
		return nil, err
	}
	t := &table{title: "growth: a synthetic cobra CLI, 8 flags a command (bench/synthcli; start, catalog and help through a stdio session, medians; one op in process)"}
	t.add("commands", "start      (CPU)      catalog    help      one op     allocs/op  B/op     RSS       cached/verb", "")
	for _, r := range rows {
		t.add(strconv.Itoa(r.commands), fmt.Sprintf("%-10s %-10s %-10s %-9s %-10s %-10.0f %-8.0f %-9s %.1f KB",
			msec(r.start), msec(r.startCPU), msec(r.catalog), msec(r.help), usec(r.op), r.opAllocs, r.opBytes, fmt.Sprintf("%.0f MB", r.rssMB), r.cachedPerVerb/1024), "")
	}
	first, last := rows[0], rows[len(rows)-1]
	if len(rows) > 1 {
		perVerb := (last.rssMB - rows[len(rows)-2].rssMB) * 1024 / float64(last.commands-rows[len(rows)-2].commands)
		t.add("RSS per verb", fmt.Sprintf("%.1f KB (between the two largest sizes)", perVerb), "")
		opRatio := float64(last.op) / float64(first.op)
		t.add(fmt.Sprintf("one op, %d vs %d commands", last.commands, first.commands), fmt.Sprintf("%.2fx", opRatio), "≤ 1.5x")
		if last.commands >= 5000 {
			g.check(fmt.Sprintf("%d-command CLI: server start", last.commands), msec(last.start), "≤ 250 ms", last.start <= 250*time.Millisecond)
			g.check(fmt.Sprintf("%d-command CLI: catalog", last.commands), msec(last.catalog), "≤ 40 ms", last.catalog <= 40*time.Millisecond)
			g.check(fmt.Sprintf("%d-command CLI: one op's validate+render vs %d commands", last.commands, first.commands),
				fmt.Sprintf("%.2fx (%s vs %s)", opRatio, usec(last.op), usec(first.op)), "≤ 1.5x", opRatio <= 1.5)
			g.check(fmt.Sprintf("%d-command CLI: cached projection per verb", last.commands), fmt.Sprintf("%.1f KB", last.cachedPerVerb/1024), "≤ 25 KB", last.cachedPerVerb <= 25*1024)
		}
	}
	return t, nil
}

// inProcess builds the surface over each size's tree in this process, with
// a runner that answers at once, and measures: the heap the projections of
// every verb hold once cached (after Check and one op on each verb, which
// compiles its validator), and one op on the last verb
// (the surface's envelope, resolve, projection lookup, validation,
// normalisation, rendering, response). The op is timed in batches, the
// sizes in turn within each round, so that the machine's drift falls on
// every size alike and their ratio is side by side.
func inProcess(ctx context.Context, rows []growthRow) error {
	type subject struct {
		s   *verbsurface.Surface
		req json.RawMessage
		per []time.Duration
	}
	subjects := make([]*subject, len(rows))
	for i := range rows {
		r := &rows[i]
		t, err := synth.Walk(r.commands)
		if err != nil {
			return err
		}
		reg, err := synth.Registry(t)
		if err != nil {
			return err
		}
		answer := json.RawMessage(`{"command":"synth","count":3}`)
		s, err := verbsurface.New(reg, &verbsurface.Options{Source: verbsurface.StaticTree(t), Machine: verbsurface.Machine{Args: []string{"--json"}},
			Runner: verbsurface.RunnerFunc(func(context.Context, []string) (json.RawMessage, error) { return answer, nil })})
		if err != nil {
			return err
		}
		before := heap()
		if bad := s.Check(ctx); len(bad) > 0 {
			return fmt.Errorf("%s: %s", bad[0].Verb, bad[0].Reason)
		}
		// Check leaves each verb's command and signature cached; its
		// validator is compiled by the verb's first op. Every verb runs
		// once, so the figure is what a server holds once every verb has
		// been used.
		for i := range r.commands {
			verb := fmt.Sprintf("g%d.c%d", i/synth.GroupSize, i)
			if resp := s.Handle(ctx, json.RawMessage(`{"ops":[{"op":"`+verb+`","args":{"name":"abc"}}]}`), nil); resp.Status != verbsurface.StatusSuccess {
				return fmt.Errorf("%s: %s", verb, resp.JSON())
			}
		}
		r.cachedPerVerb = float64(heap()-before) / float64(r.commands)
		verb := fmt.Sprintf("g%d.c%d", (r.commands-1)/synth.GroupSize, r.commands-1)
		req := json.RawMessage(`{"ops":[{"op":"` + verb + `","args":{"name":"abc","count":3,"verbose":true,"tags":["a","b"],"timeout":"30s","note":"a note"}}]}`)
		if resp := s.Handle(ctx, req, nil); resp.Status != verbsurface.StatusSuccess {
			return fmt.Errorf("%s: %s", verb, resp.JSON())
		}
		subjects[i] = &subject{s: s, req: req}
	}
	const batch, rounds = 200, 31
	for k := range rounds {
		for j := range subjects {
			sj := subjects[(j+k)%len(subjects)]
			t0 := time.Now()
			for range batch {
				sj.s.Handle(ctx, sj.req, nil).JSON()
			}
			sj.per = append(sj.per, time.Since(t0)/batch)
		}
	}
	for i, sj := range subjects {
		rows[i].op = median(sj.per)
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		for range batch {
			sj.s.Handle(ctx, sj.req, nil).JSON()
		}
		runtime.ReadMemStats(&m1)
		rows[i].opAllocs = float64(m1.Mallocs-m0.Mallocs) / batch
		rows[i].opBytes = float64(m1.TotalAlloc-m0.TotalAlloc) / batch
	}
	return nil
}

// heap is the live heap after a collection.
func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
