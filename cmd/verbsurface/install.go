//go:build unix

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/internal/clientconfig"
	"github.com/verbsurface/verbsurface/mcphttp"
)

// newInstallCmd is `verbsurface install CLIENT -c FILE`: connect an MCP
// client to `verbsurface serve -c FILE` in one command, as `limcp mcp
// install` does for limcp (package clientconfig does the work). file is
// the -c flag's value, which the caller registers.
func newInstallCmd(file *string, stdout io.Writer) *cobra.Command {
	var name, httpURL, tokenEnvName, trustFolder string
	var printOnly, force bool
	c := &cobra.Command{
		Use:   "install CLIENT -c FILE",
		Short: "connect an MCP client (" + strings.Join(clientconfig.Names(), ", ") + ") to serve -c FILE",
		Long: `Add "verbsurface serve -c FILE" to a client's user-wide configuration:
claude (Claude Code, user scope), codex, gemini (user scope), cursor
(~/.cursor/mcp.json) or vscode (code --add-mcp, or the user profile's
mcp.json). The client starts this executable by its absolute path with the
configuration's absolute path, under the configuration's name (--name to
choose another). --http ADDR|URL connects to a running "serve --http"
instead, the client reading the bearer token from $` + tokenEnv + ` (or
--token-env VAR) when it connects; the token is never stored.

A client that already has a server of that name is left alone unless
--force; --print shows the command or file content instead of applying it.
See docs/clients.md.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			client, err := clientconfig.Lookup(args[0])
			if err != nil {
				return err
			}
			s, err := installedServer(cmd, *file, name, httpURL, tokenEnvName)
			if err != nil {
				return err
			}
			if trustFolder != "" {
				if client.Name != "gemini" {
					return errors.New("--trust-folder applies to gemini only")
				}
				if trustFolder, err = filepath.Abs(trustFolder); err != nil {
					return err
				}
			}
			opts := &clientconfig.Options{Force: force, Out: stdout, TrustFolder: trustFolder}
			if printOnly {
				text, err := client.Print(s, opts)
				if err != nil {
					return err
				}
				_, err = fmt.Fprint(stdout, text)
				return err
			}
			if _, err = client.Install(cmd.Context(), s, opts); err != nil {
				return err
			}
			// What the client will do first, done here. A failure is
			// reported, not an error: the configuration is written, and
			// the line says what stands in the way.
			line, _ := clientconfig.Check(cmd.Context(), s, os.Environ())
			_, err = fmt.Fprintln(stdout, line)
			return err
		},
	}
	c.Flags().StringVar(&name, "name", "", "the name the client knows the server by (default: the configuration's name)")
	c.Flags().BoolVar(&printOnly, "print", false, "print the command or configuration instead of applying it")
	c.Flags().BoolVar(&force, "force", false, "replace a server of the same name the client already has")
	c.Flags().StringVar(&httpURL, "http", "", "connect to a running \"verbsurface serve --http\" at this ADDR (as given to it) or URL")
	c.Flags().StringVar(&trustFolder, "trust-folder", "", "gemini: also add this directory to Gemini CLI's trusted folders (folder trust is on by default: it runs servers only in folders it trusts)")
	c.Flags().StringVar(&tokenEnvName, "token-env", tokenEnv, "with --http: the environment variable the client reads the bearer token from")
	return c
}

// installedServer is the server `verbsurface install` gives a client, and
// `verbsurface doctor` checks: this executable's `serve -c /abs/FILE`, or
// the running HTTP server at httpURL with the token from $tokenEnvName.
func installedServer(cmd *cobra.Command, file, name, httpURL, tokenEnvName string) (*clientconfig.Server, error) {
	if file == "" {
		return nil, errors.New("-c FILE is required (the YAML configuration the client will serve)")
	}
	cfg, err := LoadConfig(file)
	if err != nil {
		return nil, err
	}
	if name == "" {
		name = clientName(cfg.Name)
	}
	s := &clientconfig.Server{Name: name}
	if httpURL != "" {
		s.URL = httpEndpoint(httpURL)
		s.TokenEnv = tokenEnvName
		s.TokenHint = "`verbsurface serve --http` keeps a generated one in " + tokenPathHint(cfg.Name)
		return s, nil
	}
	if cmd.Flags().Changed("token-env") {
		return nil, errors.New("--token-env applies to --http only")
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find the verbsurface executable for the client to start: %v", err)
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	s.Command, s.Args = exe, []string{"serve", "-c", abs}
	return s, nil
}

// newDoctorCmd is `verbsurface doctor -c FILE`: the check `install` ends
// with, alone.
func newDoctorCmd(file *string, stdout io.Writer) *cobra.Command {
	var httpURL, tokenEnvName string
	c := &cobra.Command{
		Use:   "doctor -c FILE",
		Short: "start serve -c FILE as a client would (or reach --http URL) and say whether a client will see the tool",
		Long: `Start "verbsurface serve -c FILE" as "verbsurface install" has a client
start it (this executable, the configuration's absolute path), or reach a
running "serve --http" at --http ADDR|URL with the token from $` + tokenEnv + `
(--token-env VAR), and do what a client does first: initialize, then
tools/list. One line says whether a client will see the one tool
"request", or why not; the exit status is 1 when it will not.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := installedServer(cmd, *file, "", httpURL, tokenEnvName)
			if err != nil {
				return err
			}
			line, err := clientconfig.Check(cmd.Context(), s, os.Environ())
			if err != nil {
				return errors.New(line)
			}
			_, err = fmt.Fprintln(stdout, line)
			return err
		},
	}
	c.Flags().StringVar(&httpURL, "http", "", "check a running \"verbsurface serve --http\" at this ADDR or URL instead")
	c.Flags().StringVar(&tokenEnvName, "token-env", tokenEnv, "with --http: the environment variable holding the bearer token")
	return c
}

var notClientName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// clientName is a configuration's name as every client accepts one
// (letters, digits, - and _): "notes.v2" becomes "notes-v2".
func clientName(name string) string {
	n := strings.Trim(notClientName.ReplaceAllString(name, "-"), "-")
	if n == "" {
		return "verbsurface"
	}
	return n
}

// httpEndpoint makes an ADDR, as `serve --http` takes it, the URL it
// serves; a URL is kept as given.
func httpEndpoint(v string) string {
	if strings.Contains(v, "://") {
		return v
	}
	return "http://" + v + mcphttp.Path
}

// tokenPathHint is where serve --http generates its token (tokenDir,
// without creating anything).
func tokenPathHint(name string) string {
	base := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(base) {
		base = "~/.local/state"
	}
	return filepath.Join(base, "verbsurface", name, tokenFileName)
}

// absPath is p made absolute for a line run elsewhere (p as given when
// that fails).
func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}
