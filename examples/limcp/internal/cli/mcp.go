//go:build unix

package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/server"
)

// mcpCmd is `limcp mcp`, the server face (package server).
func (a *app) mcpCmd() *cobra.Command {
	var httpAddr, tokenFile string
	var readOnly, noNotify bool
	c := &cobra.Command{
		Use:   "mcp",
		Short: `serve limcp's verbs as one MCP tool, "request" (stdio, or --http ADDR)`,
		Long: `Serve limcp to MCP clients as a single tool, "request", whose verbs
(agent.submit, job.wait, job.kill, ...) have schemas projected live from this
command tree. Every verb runs as a limcp subprocess against the same state
home; the server itself never writes the store.

By default the server speaks MCP on stdin/stdout. With --http ADDR it serves
streamable HTTP at http://ADDR/mcp: only on a loopback address unless a bearer
token is configured ($` + server.TokenEnv + ` or --token-file); with a token,
every request must carry "Authorization: Bearer TOKEN". --read-only admits
only observe verbs.

The runs the server submits notify it when they end ($` + server.NotifyURLEnv + `), which
wakes job.wait early. --no-notify leaves that out (job.wait then wakes on
store changes and polls): for a server that exits before the runs it
submits end, whose notifications could only fail (limcp call uses it).`,
		Args: cobra.NoArgs,
	}
	c.Flags().StringVar(&httpAddr, "http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8765) instead of stdio")
	c.Flags().StringVar(&tokenFile, "token-file", "", "file holding the HTTP bearer token (default $"+server.TokenEnv+")")
	c.Flags().BoolVar(&readOnly, "read-only", false, "admit only observe verbs (status, output, list, wait, ...)")
	c.Flags().BoolVar(&noNotify, "no-notify", false, "do not attach the server's terminal notify to the runs it submits")
	c.RunE = a.runWithStatus(func(cmd *cobra.Command, args []string) error {
		if httpAddr == "" && tokenFile != "" {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "token-file"}, "--token-file applies to --http only")
		}
		token, err := readToken(tokenFile, a.opts.Getenv)
		if err != nil {
			return err
		}
		home, err := a.resolvedHome()
		if err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		srv, err := server.New(server.Options{
			Home:       home,
			Executable: a.opts.Executable,
			ReadOnly:   readOnly,
			NoNotify:   noNotify,
			// The very tree this binary parses, fresh per call.
			NewRoot: func() *cobra.Command { return NewRoot(Options{}) },
		})
		if err != nil {
			return machine.Errorf(machine.Internal, nil, "%v", err)
		}
		defer srv.Close()
		if httpAddr == "" {
			a.emitted = true // stdout belongs to the MCP session now
			if err := srv.ServeStdio(ctx); err != nil && ctx.Err() == nil && !errors.Is(err, context.Canceled) {
				fmt.Fprintf(a.opts.Stderr, "limcp mcp: %v\n", err)
				return ExitStatus(1)
			}
			return nil
		}
		ln, err := server.Listen(httpAddr, token)
		if err != nil {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "http"}, "limcp mcp --http %s: %v", httpAddr, err)
		}
		auth := ""
		if token != "" {
			auth = ", bearer token required"
		}
		fmt.Fprintf(a.opts.Stderr, "limcp mcp: serving streamable HTTP on http://%s%s (home %s%s)\n", ln.Addr(), server.HTTPPath, home, auth)
		a.emitted = true
		if err := srv.ServeHTTP(ctx, ln, token); err != nil {
			fmt.Fprintf(a.opts.Stderr, "limcp mcp: %v\n", err)
			return ExitStatus(1)
		}
		return nil
	})
	return c
}

// readToken returns the HTTP bearer token: the first line of --token-file,
// else $LIMCP_MCP_TOKEN, else "". There is no --token flag: a flag's value
// is visible to every local user in the process list.
func readToken(file string, getenv func(string) string) (string, error) {
	if file == "" {
		return strings.TrimSpace(getenv(server.TokenEnv)), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "token-file"}, "reading the token file: %v", err)
	}
	tok := strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
	if tok == "" {
		return "", machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "token-file"}, "the token file %s is empty", file)
	}
	return tok, nil
}
