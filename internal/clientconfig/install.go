package clientconfig

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Options configure [Client.Install] and [Client.Print]. A nil *Options
// is the zero value.
type Options struct {
	// Force replaces a server of the same name the client already has
	// (in the scope being written). Without it, Install refuses.
	Force bool
	// Environ is the environment the clients' programs run in, and in
	// which their files are found (HOME, PATH, XDG_CONFIG_HOME,
	// GEMINI_CLI_HOME, ...); nil means os.Environ().
	Environ []string
	// GOOS selects the platform's file locations (VS Code's profile
	// directory); "" means runtime.GOOS.
	GOOS string
	// TrustFolder, for Gemini CLI, is a directory (absolute) to add to
	// its trusted folders (~/.gemini/trustedFolders.json) besides the
	// server: with folder trust on, which is its default, Gemini runs MCP
	// servers only in folders it trusts. Other clients ignore it.
	TrustFolder string
	// Out receives one line per thing Install did, as it does it; nil
	// discards them (Install returns them too).
	Out io.Writer
}

// Client is one MCP client Install knows how to connect.
type Client struct {
	// Name is the name on the command line: claude, codex, gemini,
	// cursor, vscode.
	Name string
	// Title is the client's product name ("Claude Code").
	Title string
	impl  clientImpl
}

// clientImpl is what differs between clients.
type clientImpl interface {
	// program is the client's command-line program, "" if it has none
	// Install uses.
	program(r *runner) string
	// find reports the server of s.Name the client already has (nil if
	// none), in the scope Install writes or in one that shadows it.
	find(ctx context.Context, r *runner, s *Server) (*existing, error)
	// steps are what adds s; have is the server being replaced, or nil.
	steps(r *runner, s *Server, have *existing) ([]step, error)
	// check is the command (or place) that shows the server connected.
	check(s *Server) string
	// stores says what the client keeps in place of an HTTP server's
	// token, and how it resolves it.
	stores(s *Server) string
}

// existing is a server of the same name the client has.
type existing struct {
	scope string // "user", or where it shadows ("local config in this directory")
	// replaceable: Force may replace it (it is in the scope written).
	replaceable bool
}

// step is one thing Install does: run a program, or edit a file.
type step struct {
	argv []string
	edit *fileEdit
	says string // what it did, for the line that reports it
}

// Clients returns the clients Install knows, in the order documented.
func Clients() []*Client {
	return []*Client{
		{Name: "claude", Title: "Claude Code", impl: claudeCode{}},
		{Name: "codex", Title: "Codex CLI", impl: codexCLI{}},
		{Name: "gemini", Title: "Gemini CLI", impl: geminiCLI{}},
		{Name: "cursor", Title: "Cursor", impl: cursor{}},
		{Name: "vscode", Title: "VS Code", impl: vscode{}},
	}
}

// Names returns the clients' names, for usage lines and errors.
func Names() []string {
	var out []string
	for _, c := range Clients() {
		out = append(out, c.Name)
	}
	return out
}

// Lookup returns the client named name, or an error listing the names.
func Lookup(name string) (*Client, error) {
	for _, c := range Clients() {
		if c.Name == name {
			return c, nil
		}
	}
	return nil, fmt.Errorf("clientconfig: no client %q: choose one of %s", name, strings.Join(Names(), ", "))
}

// ClashError is Install's refusal to replace a server of the same name.
type ClashError struct {
	Client, Name, Scope string
	// Replaceable reports whether --force would replace it.
	Replaceable bool
}

func (e *ClashError) Error() string {
	if e.Replaceable {
		return fmt.Sprintf("%s already has an MCP server named %q (%s): run again with --force to replace it, or with --name OTHER to add this one beside it",
			e.Client, e.Name, e.Scope)
	}
	return fmt.Sprintf("%s already has an MCP server named %q (%s), which takes precedence over the user scope this would write: run again with --name OTHER, or remove that one first",
		e.Client, e.Name, e.Scope)
}

// ClientError is a client's program that failed, or answered in a way
// Install does not recognise; Msg has its answer and, where Install could
// not tell whether the server is there, the lines to run by hand.
type ClientError struct {
	Client, Msg string
}

func (e *ClientError) Error() string { return e.Msg }

// Install connects the client to s: it looks for a server of the same
// name (refusing without o.Force, and refusing even with it one that
// shadows the scope written), then runs the client's program or edits its
// file, and reports one line per step to o.Out. It returns the lines.
//
// It does not start the client, check the server, or log in anywhere:
// the last line names the client's own command that shows the server
// connected.
func (c *Client) Install(ctx context.Context, s *Server, o *Options) ([]string, error) {
	if o == nil {
		o = &Options{}
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	r := newRunner(o)
	var lines []string
	say := func(format string, a ...any) {
		line := fmt.Sprintf(format, a...)
		lines = append(lines, line)
		if o.Out != nil {
			fmt.Fprintln(o.Out, line)
		}
	}
	if prog := c.impl.program(r); prog != "" {
		if _, err := r.lookPath(prog); err != nil {
			return nil, fmt.Errorf("%s (%s) is not on PATH: install it, or run with --print to see what to run or write", prog, c.Title)
		}
	}
	have, err := c.impl.find(ctx, r, s)
	var unrecognised *unrecognisedError
	if errors.As(err, &unrecognised) {
		return nil, &ClientError{Client: c.Title, Msg: err.Error() + "\n" + c.manual(r, s)}
	}
	if err != nil {
		return nil, err
	}
	if have != nil && (!o.Force || !have.replaceable) {
		return nil, &ClashError{Client: c.Title, Name: s.Name, Scope: have.scope, Replaceable: have.replaceable}
	}
	steps, err := c.impl.steps(r, s, have)
	if err != nil {
		return nil, err
	}
	for _, st := range steps {
		if st.edit != nil {
			if _, err := st.edit.apply(); err != nil {
				return lines, err
			}
			say("%s: %s", c.Title, st.says)
			continue
		}
		res, err := r.run(ctx, st.argv)
		if err != nil {
			return lines, err
		}
		if res.exit != 0 {
			return lines, &ClientError{Client: c.Title, Msg: fmt.Sprintf("%s failed (exit status %d): %s", formatArgv(st.argv), res.exit, res.output())}
		}
		say("%s: %s: %s", c.Title, st.says, formatArgv(st.argv))
	}
	if s.HTTP() && s.TokenEnv != "" {
		say("%s: stores %s", c.Title, c.impl.stores(s))
	}
	say("%s: check it with: %s", c.Title, c.impl.check(s))
	return lines, nil
}

// manual is what to run by hand when Install cannot: the lines that add
// s, after making sure the client has no server of that name.
func (c *Client) manual(r *runner, s *Server) string {
	steps, err := c.impl.steps(r, s, nil)
	if err != nil {
		return "add the server by hand: docs/clients.md"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "add it by hand, after checking that %s has no server named %q:", c.Title, s.Name)
	for _, st := range steps {
		if st.argv != nil {
			b.WriteString("\n  " + formatArgv(st.argv))
		}
	}
	return b.String()
}

// Print returns what Install would run or write for s, without looking
// at the client or running anything: the command lines, or the file and
// the JSON to merge into it.
func (c *Client) Print(s *Server, o *Options) (string, error) {
	if o == nil {
		o = &Options{}
	}
	if err := s.validate(); err != nil {
		return "", err
	}
	r := newRunner(o)
	var b strings.Builder
	var steps []step
	var err error
	if p, ok := c.impl.(printer); ok {
		steps, err = p.printSteps(r, s)
	} else {
		steps, err = c.impl.steps(r, s, nil)
	}
	if err != nil {
		return "", err
	}
	for i, st := range steps {
		if i > 0 {
			b.WriteString("\n")
		}
		if st.edit == nil {
			b.WriteString(formatArgv(st.argv) + "\n")
			continue
		}
		if i > 0 {
			b.WriteString("# or, without it, ")
		} else {
			b.WriteString("# ")
		}
		fmt.Fprintf(&b, "merge into %s:\n", st.edit.path)
		snippet, _, err := st.edit.merge(nil)
		if err != nil {
			return "", err
		}
		b.Write(snippet)
	}
	if s.HTTP() && s.TokenEnv != "" {
		fmt.Fprintf(&b, "# %s stores %s\n", c.Title, c.impl.stores(s))
	}
	fmt.Fprintf(&b, "# check it with: %s\n", c.impl.check(s))
	return b.String(), nil
}

// printer is a client whose printed form differs from what Install does
// here (VS Code: both the `code` line and the file).
type printer interface {
	printSteps(r *runner, s *Server) ([]step, error)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // maps of strings and slices of strings always marshal
	}
	return b
}

// tokenExport is the hint of what to export for an HTTP server's token.
func tokenExport(s *Server) string {
	if s.TokenHint == "" {
		return "$" + s.TokenEnv + " set where the client starts"
	}
	return "$" + s.TokenEnv + " set where the client starts (" + s.TokenHint + ")"
}

// HTTPHint is what a server started with --http prints for connecting a
// client to it: the export of s.TokenEnv from tokenFile (none when the
// token came from the variable already), the install command (install is
// the front's, "limcp mcp install", with CLIENT where the client's name
// goes if not last), under the name s.Name-http, and the Claude Code line by hand, the
// header quoted so that the shell passes ${VAR} through and the client
// stores the reference, never the token. Each line is indented by two
// spaces and ends in a newline.
func HTTPHint(install string, s *Server, tokenFile string) string {
	var b strings.Builder
	if tokenFile != "" {
		fmt.Fprintf(&b, "  export %s=\"$(cat %s)\"\n", s.TokenEnv, shellQuote(tokenFile))
	}
	line := install + " claude"
	if strings.Contains(install, "CLIENT") {
		line = strings.Replace(install, "CLIENT", "claude", 1)
	}
	// Under a name of its own: the stdio server, installed first as a
	// rule, has s.Name, and a second install under it is refused.
	name := s.Name + "-http"
	fmt.Fprintf(&b, "  %s --http %s --name %s    # or codex, gemini, cursor, vscode (docs/clients.md)\n", line, shellQuote(s.URL), name)
	by := []string{"claude", "mcp", "add", name, "--scope", "user", "--transport", "http", s.URL}
	if s.TokenEnv != "" {
		by = append(by, "--header", "Authorization: Bearer ${"+s.TokenEnv+"}")
	}
	fmt.Fprintf(&b, "  # by hand: %s\n", formatArgv(by))
	return b.String()
}
