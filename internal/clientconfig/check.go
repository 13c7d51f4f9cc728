package clientconfig

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// checkTimeout bounds a check: starting the server (a fronted CLI's
// configuration is linted first) and two round trips.
const checkTimeout = time.Minute

// Check does what a client configured with s does first: it starts the
// server (s.Command with s.Args, in the environment env plus s.Env) or
// reaches it (s.URL, with "Authorization: Bearer" and the value of
// s.TokenEnv in env), then initialize and tools/list. It returns one line
// saying that a client will see the one tool "request", and a nil error;
// or a line saying why not, and the error.
//
// It does not run the client: a client that cannot start the server for
// reasons of its own (Gemini's untrusted folder, a variable the client's
// environment lacks) fails where Check passes. Install's callers run it
// after Install, and `verbsurface doctor` and `limcp mcp doctor` alone.
func Check(ctx context.Context, s *Server, env []string) (string, error) {
	if err := s.validate(); err != nil {
		return "check: " + err.Error(), err
	}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	r := &runner{env: env}
	var t mcp.Transport
	what := "started " + formatArgv(append([]string{s.Command}, s.Args...))
	if s.HTTP() {
		what = "reached " + s.URL
		hc := http.DefaultClient
		if s.TokenEnv != "" {
			token := r.getenv(s.TokenEnv)
			if token == "" {
				err := fmt.Errorf("$%s is not set here: a client started without it sends no token and is refused; export it where the client starts", s.TokenEnv)
				return "check: " + err.Error(), err
			}
			what += " with the token from $" + s.TokenEnv
			hc = &http.Client{Transport: bearer{token: token}}
		}
		t = &mcp.StreamableClientTransport{Endpoint: s.URL, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true}
	} else {
		cmd := exec.Command(s.Command, s.Args...)
		cmd.Env = append(append([]string(nil), env...), s.envPairs()...)
		t = &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	}
	fail := func(err error) (string, error) {
		first, _, _ := strings.Cut(err.Error(), "\n")
		return fmt.Sprintf("check: %s as the client will: a client will NOT see the tool: %s", what, first), err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "verbsurface-check", Version: "v1"}, nil).Connect(ctx, t, nil)
	if err != nil {
		return fail(fmt.Errorf("initialize: %w", err))
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		return fail(fmt.Errorf("tools/list: %w", err))
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if len(names) != 1 || names[0] != "request" {
		return fail(fmt.Errorf("tools/list has %v; want the one tool \"request\"", names))
	}
	server := "the server"
	if res := cs.InitializeResult(); res != nil && res.ServerInfo != nil {
		server = fmt.Sprintf("%s %s", res.ServerInfo.Name, res.ServerInfo.Version)
	}
	return fmt.Sprintf("check: %s as the client will; %s answered initialize and tools/list: a client will see the one tool \"request\"", what, server), nil
}

// bearer adds the Authorization header to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}
