//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A cold start of serve on a cobra program of 200 commands, every one a
// verb (bench/synthcli, 205 command paths), its state directory empty:
// how long until initialize is answered, the catalog, and the help of
// one verb; read on demand (the default) and whole (source.read: all),
// in one run:
// `go test -run '^$' -bench ServeColdStart -benchtime 3x ./cmd/verbsurface`.
func BenchmarkServeColdStart(b *testing.B) {
	config, _ := synthFront(b, 200, "", nil)
	text, err := os.ReadFile(config)
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{readOnDemand, readAll} {
		b.Run(mode, func(b *testing.B) {
			yaml := strings.Replace(string(text), "source: {cobra: [", "source: {read: "+mode+", cobra: [", 1)
			file := config + "." + mode
			if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
				b.Fatal(err)
			}
			var initAt, catalogAt, helpAt time.Duration
			for b.Loop() {
				cmd := exec.Command(vsBin, "serve", "-c", file)
				cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+b.TempDir())
				start := time.Now()
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).
					Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
				if err != nil {
					b.Fatal(err)
				}
				initAt += time.Since(start)
				call := func(req string) map[string]any {
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "request", Arguments: json.RawMessage(req)})
					if err != nil {
						b.Fatal(err)
					}
					var r map[string]any
					if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &r); err != nil {
						b.Fatal(err)
					}
					return r
				}
				if r := call(`{"help":true}`); r["status"] != "success" {
					b.Fatal(r)
				}
				catalogAt += time.Since(start)
				if r := call(`{"help":"g3.c199"}`); r["status"] != "success" {
					b.Fatal(r)
				}
				helpAt += time.Since(start)
				b.StopTimer()
				cs.Close()
				b.StartTimer()
			}
			n := float64(b.N)
			b.ReportMetric(float64(initAt.Milliseconds())/n, "init-ms")
			b.ReportMetric(float64(catalogAt.Milliseconds())/n, "catalog-ms")
			b.ReportMetric(float64(helpAt.Milliseconds())/n, "help-ms")
		})
	}
}
