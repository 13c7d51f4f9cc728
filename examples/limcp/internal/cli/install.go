//go:build unix

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/server"
	"github.com/verbsurface/verbsurface/internal/clientconfig"
)

// mcpInstallCmd is `limcp mcp install CLIENT`: connect an MCP client to
// this limcp in one command (package clientconfig does the work). It is
// not a verb: changing a person's client configuration is theirs to do.
func (a *app) mcpInstallCmd() *cobra.Command {
	var name, httpURL, tokenEnv, trustFolder string
	var printOnly, force, readOnly bool
	c := &cobra.Command{
		Use:   "install CLIENT",
		Short: "connect an MCP client to limcp mcp: " + strings.Join(clientconfig.Names(), ", "),
		Long: `Add limcp's MCP server to a client's user-wide configuration, so every
session of that client, in any directory, can use the one tool "request":

  claude   Claude Code: claude mcp add --scope user (every directory, not only this one)
  codex    Codex CLI: codex mcp add
  gemini   Gemini CLI: gemini mcp add --scope user
  cursor   Cursor: merged into ~/.cursor/mcp.json
  vscode   VS Code: code --add-mcp, or merged into the user profile's mcp.json

The client starts "limcp mcp" by this executable's absolute path, with
LIMCP_HOME set to this state home, so it reaches the same runs as this shell
(the server's files root is the directory the client starts it in).
--http ADDR|URL connects to a running "limcp mcp --http" instead: the client
refers to the bearer token through $` + server.TokenEnv + ` (or --token-env VAR) and
never stores it; export the variable where the client starts.

A client that already has a server of that name is left alone: choose
another with --name, or replace it with --force. --print shows the command
or the file content instead of applying it. Each step is reported in one
line, then the client's own command that shows the server connected.
See docs/clients.md for every client's manual lines.`,
		Args: cobra.ExactArgs(1),
	}
	c.Flags().StringVar(&name, "name", "limcp", "the name the client knows the server by (letters, digits, - and _)")
	c.Flags().BoolVar(&printOnly, "print", false, "print the command or configuration instead of applying it")
	c.Flags().BoolVar(&force, "force", false, "replace a server of the same name the client already has")
	c.Flags().StringVar(&httpURL, "http", "", "connect to a running \"limcp mcp --http\" at this ADDR (as given to it) or URL, instead of starting limcp mcp")
	c.Flags().StringVar(&tokenEnv, "token-env", server.TokenEnv, "with --http: the environment variable the client reads the bearer token from")
	c.Flags().BoolVar(&readOnly, "read-only", false, "start the server with --read-only (observe verbs only)")
	c.Flags().StringVar(&trustFolder, "trust-folder", "", "gemini: also add this directory to Gemini CLI's trusted folders (folder trust is on by default: it runs servers only in folders it trusts)")
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		client, err := clientconfig.Lookup(args[0])
		if err != nil {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "client", "client": args[0]},
				"limcp mcp install %s: no such client; choose one of %s", args[0], strings.Join(clientconfig.Names(), ", "))
		}
		s, err := a.installedServer(cmd, name, httpURL, tokenEnv, readOnly)
		if err != nil {
			return err
		}
		if trustFolder != "" {
			if client.Name != "gemini" {
				return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "trust-folder"}, "--trust-folder applies to gemini only")
			}
			if trustFolder, err = filepath.Abs(trustFolder); err != nil {
				return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "trust-folder"}, "--trust-folder: %v", err)
			}
		}
		return a.install(cmd.Context(), client, s, printOnly, force, trustFolder)
	})
	return c
}

// installedServer is the server `limcp mcp install` gives a client, and
// `limcp mcp doctor` checks: this executable's `mcp` with LIMCP_HOME set,
// or the running HTTP server at httpURL with the token from $tokenEnv.
func (a *app) installedServer(cmd *cobra.Command, name, httpURL, tokenEnv string, readOnly bool) (*clientconfig.Server, error) {
	home, err := a.resolvedHome()
	if err != nil {
		return nil, err
	}
	s := &clientconfig.Server{Name: name}
	if httpURL != "" {
		if readOnly {
			return nil, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "read-only"},
				"--read-only with --http: the HTTP server's flags are its own; start it with `limcp mcp --http ADDR --read-only`")
		}
		s.URL = serverURL(httpURL)
		s.TokenEnv = tokenEnv
		s.TokenHint = "`limcp mcp --http` keeps a generated one in " + filepath.Join(home, server.TokenFileName)
		return s, nil
	}
	if cmd.Flags().Changed("token-env") {
		return nil, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "token-env"}, "--token-env applies to --http only")
	}
	exe := a.opts.Executable
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return nil, machine.Errorf(machine.Internal, nil, "cannot find the limcp executable for the client to start: %v", err)
		}
	}
	s.Command, s.Args = exe, []string{"mcp"}
	if readOnly {
		s.Args = append(s.Args, "--read-only")
	}
	s.Env = map[string]string{HomeEnv: home}
	return s, nil
}

// mcpDoctorCmd is `limcp mcp doctor`: the check `limcp mcp install` ends
// with, alone: start the server as a client would, or reach the running
// one, and say whether a client will see the tool.
func (a *app) mcpDoctorCmd() *cobra.Command {
	var httpURL, tokenEnv string
	var readOnly bool
	c := &cobra.Command{
		Use:   "doctor",
		Short: "start limcp mcp as a client would (or reach --http URL) and say whether a client will see the tool",
		Long: `Start "limcp mcp" as "limcp mcp install" has a client start it (this
executable, LIMCP_HOME set to this state home), or reach a running
"limcp mcp --http" at --http ADDR|URL with the token from $` + server.TokenEnv + `
(--token-env VAR), and do what a client does first: initialize, then
tools/list. One line says whether a client will see the one tool
"request", or why not; the exit status is 1 when it will not.`,
		Args: cobra.NoArgs,
	}
	c.Flags().StringVar(&httpURL, "http", "", "check a running \"limcp mcp --http\" at this ADDR or URL instead")
	c.Flags().StringVar(&tokenEnv, "token-env", server.TokenEnv, "with --http: the environment variable holding the bearer token")
	c.Flags().BoolVar(&readOnly, "read-only", false, "start the server with --read-only, as install --read-only has it started")
	c.RunE = a.runE(func(cmd *cobra.Command, _ []string) error {
		s, err := a.installedServer(cmd, "limcp", httpURL, tokenEnv, readOnly)
		if err != nil {
			return err
		}
		line, err := clientconfig.Check(cmd.Context(), s, os.Environ())
		if err != nil {
			return machine.Errorf(machine.ClientFailed, map[string]any{"check": line}, "limcp mcp doctor: %s", line)
		}
		return a.ok(map[string]any{"check": line}, func(w io.Writer) { fmt.Fprintln(w, line) })
	})
	return c
}

// serverURL makes an ADDR, as `limcp mcp --http` takes it, the URL it
// serves; a URL is kept as given.
func serverURL(v string) string {
	if strings.Contains(v, "://") {
		return v
	}
	return "http://" + v + server.HTTPPath
}

func (a *app) install(ctx context.Context, client *clientconfig.Client, s *clientconfig.Server, printOnly, force bool, trustFolder string) error {
	data := map[string]any{"client": client.Name, "name": s.Name}
	if printOnly {
		text, err := client.Print(s, &clientconfig.Options{TrustFolder: trustFolder})
		if err != nil {
			return installError(client, s, err)
		}
		data["print"] = text
		return a.ok(data, func(w io.Writer) { fmt.Fprint(w, text) })
	}
	opts := &clientconfig.Options{Force: force, TrustFolder: trustFolder}
	if !a.json {
		opts.Out = a.opts.Stdout // each step's line as it happens
	}
	lines, err := client.Install(ctx, s, opts)
	if err != nil {
		if a.json {
			for _, l := range lines { // what was done before the failure
				fmt.Fprintln(a.opts.Stderr, l)
			}
		}
		return installError(client, s, err)
	}
	data["lines"] = lines
	// What the client will do first, done here: start or reach the server
	// as configured. A failure is reported, not an error: the client's
	// configuration is written, and the line says what stands in the way.
	check, err := clientconfig.Check(ctx, s, os.Environ())
	data["check"], data["sees_tool"] = check, err == nil
	return a.ok(data, func(w io.Writer) { fmt.Fprintln(w, check) })
}

func installError(client *clientconfig.Client, s *clientconfig.Server, err error) error {
	var clash *clientconfig.ClashError
	var invalid *clientconfig.InvalidServerError
	if errors.As(err, &invalid) {
		return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": invalid.Field, "client": client.Name}, "limcp mcp install %s: %v", client.Name, err)
	}
	if errors.As(err, &clash) {
		return machine.Errorf(machine.AlreadyExists, map[string]any{"name": s.Name, "client": client.Name, "scope": clash.Scope, "replaceable": clash.Replaceable},
			"limcp mcp install %s: %v", client.Name, err)
	}
	var failed *clientconfig.ClientError
	if errors.As(err, &failed) {
		return machine.Errorf(machine.ClientFailed, map[string]any{"client": client.Name}, "limcp mcp install %s: %v", client.Name, err)
	}
	return machine.Errorf(machine.Internal, map[string]any{"client": client.Name}, "limcp mcp install %s: %v", client.Name, err)
}
