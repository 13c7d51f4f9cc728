package clientconfig

import (
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Server is the MCP server a client is connected to: a stdio command, or
// an HTTP endpoint.
type Server struct {
	// Name is the name the client knows the server by: letters, digits,
	// '-' and '_' (what every client accepts; Codex refuses the rest).
	Name string
	// Command (an absolute path) and Args start a stdio server; Env is
	// set in its environment.
	Command string
	Args    []string
	Env     map[string]string
	// URL is a streamable HTTP server's endpoint, for a server the client
	// reaches instead of starting (Command is then empty).
	URL string
	// TokenEnv names the environment variable the client reads the
	// bearer token from ("" for a server that takes none); TokenHint says
	// where the token is, for the line that tells the person what to
	// export ("the token is the first line of /home/u/.local/state/limcp/mcp-token").
	TokenEnv  string
	TokenHint string
}

var (
	namePattern   = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	envVarPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// HTTP reports whether the server is reached over HTTP.
func (s *Server) HTTP() bool { return s.URL != "" }

// InvalidServerError is a Server no client can be given; Field names the
// part at fault ("name", "command", "url", "token_env", "env", "args").
type InvalidServerError struct {
	Field, Msg string
}

func (e *InvalidServerError) Error() string { return e.Msg }

func (s *Server) validate() error {
	field := "command"
	bad := func(format string, a ...any) error {
		return &InvalidServerError{Field: field, Msg: fmt.Sprintf("server %q: "+format, append([]any{s.Name}, a...)...)}
	}
	if !namePattern.MatchString(s.Name) {
		return &InvalidServerError{Field: "name", Msg: fmt.Sprintf("server name %q: use 1 to 64 letters, digits, '-' and '_' (what every client accepts)", s.Name)}
	}
	if s.URL != "" {
		field = "url"
	}
	switch {
	case s.URL != "" && s.Command != "":
		return bad("both a command and a URL; a server is one or the other")
	case s.URL != "":
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("URL %q is not an http:// or https:// URL with a host", s.URL)
		}
		if u.User != nil {
			return bad("URL %q carries credentials; the token goes in the header, from $%s", s.URL, s.TokenEnv)
		}
		if s.TokenEnv != "" && !envVarPattern.MatchString(s.TokenEnv) {
			field = "token_env"
			return bad("token variable %q is not an environment variable name", s.TokenEnv)
		}
		if len(s.Env) > 0 || len(s.Args) > 0 {
			return bad("an HTTP server has no arguments or environment to pass")
		}
	case s.Command == "":
		return bad("neither a command nor a URL")
	default:
		if !filepath.IsAbs(s.Command) {
			return bad("command %q is not an absolute path: the client starts it from directories of its own", s.Command)
		}
		for k, v := range s.Env {
			if !envVarPattern.MatchString(k) {
				return bad("environment variable name %q", k)
			}
			if strings.ContainsAny(v, "\x00\n\r") {
				return bad("environment variable %s holds a NUL or a line break", k)
			}
		}
		for _, a := range append([]string{s.Command}, s.Args...) {
			if strings.ContainsAny(a, "\x00\n\r") {
				return bad("argument %q holds a NUL or a line break", a)
			}
		}
	}
	return nil
}

// envPairs returns Env as sorted KEY=VALUE words.
func (s *Server) envPairs() []string {
	keys := make([]string, 0, len(s.Env))
	for k := range s.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + "=" + s.Env[k]
	}
	return out
}

// bearer is the Authorization header value with the token replaced by the
// client's reference to it (ref formats the variable name).
func (s *Server) bearer(ref string) string { return "Bearer " + ref }
