package main

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// probeTimeout bounds one connection check. The real clients use a few
// seconds; limcp's first projection under a loaded test machine can take
// longer, and a check that gives up early would report a working server
// as failed.
const probeTimeout = 60 * time.Second

// endpoint is a server as a client starts or reaches it, after the
// client's own variable expansion.
type endpoint struct {
	command string
	args    []string
	env     map[string]string
	url     string
	headers map[string]string
}

// probe connects to the server as an MCP client (initialize, then
// tools/list) and reports whether that worked, with the error.
func probe(e endpoint) error {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	var t mcp.Transport
	if e.url != "" {
		t = &mcp.StreamableClientTransport{Endpoint: e.url, MaxRetries: -1, DisableStandaloneSSE: true,
			HTTPClient: &http.Client{Transport: headerTransport{e.headers}}}
	} else {
		cmd := exec.Command(e.command, e.args...)
		cmd.Env = os.Environ()
		for k, v := range e.env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		t = &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fakeclient-probe", Version: "0"}, nil).Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	_, err = cs.ListTools(ctx, nil)
	return err
}

type headerTransport struct{ headers map[string]string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}
