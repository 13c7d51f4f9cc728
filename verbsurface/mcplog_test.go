//go:build unix

package verbsurface

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLogRequests: a server with LogRequests logs one record per request a
// client sends, in order, naming the method, the client and (for
// tools/call) the tool, with the outcome; never the arguments.
func TestLogRequests(t *testing.T) {
	fx := newFixture(t)
	server := mcp.NewServer(&mcp.Implementation{Name: "fixture", Version: "v0"}, nil)
	AddRequestTool(server, fx.surface)
	var log syncBuffer
	LogRequests(server, slog.New(slog.NewJSONHandler(&log, nil)))
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "log-client", Version: "v9"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	secret := "a-value-the-log-must-not-hold"
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "request", Arguments: map[string]any{"help": secret}}); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	ss.Wait()

	type record struct {
		Level, Msg, Method, Client, ClientVersion, Tool, Outcome string
	}
	var got []record
	log.mu.Lock()
	lines := bytes.Split(bytes.TrimSpace(log.b.Bytes()), []byte("\n"))
	log.mu.Unlock()
	for _, line := range lines {
		if bytes.Contains(line, []byte(secret)) {
			t.Errorf("the log holds an argument: %s", line)
		}
		var r struct {
			Level, Msg, Method, Client, Tool, Outcome string
			ClientVersion                             string `json:"client_version"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		got = append(got, record{r.Level, r.Msg, r.Method, r.Client, r.ClientVersion, r.Tool, r.Outcome})
	}
	want := []record{
		// go-sdk's client speaks the stateless protocol: server/discover
		// in place of initialize, the client named in each request's _meta.
		{"INFO", "mcp request", "server/discover", "log-client", "v9", "", "ok"},
		{"INFO", "mcp request", "tools/list", "log-client", "v9", "", "ok"},
		{"INFO", "mcp request", "tools/call", "log-client", "v9", "request", "tool_error"},
	}
	if len(got) != len(want) {
		t.Fatalf("logged %+v; want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d: %+v; want %+v", i, got[i], want[i])
		}
	}
}
