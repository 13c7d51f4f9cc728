//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/internal/clientconfig"
	"github.com/verbsurface/verbsurface/mcphttp"
)

// tokenEnv holds the bearer token of `verbsurface serve --http`
// (--token-file is the other way to give it).
const tokenEnv = "VERBSURFACE_TOKEN"

// tokenFileName is the generated token's file in tokenDir.
const tokenFileName = "mcp-token"

// httpFlags are serve's HTTP flags, the same as `limcp mcp`'s.
type httpFlags struct {
	addr, tokenFile string
	insecureNoAuth  bool
	allowOrigins    []string
	sessionTimeout  time.Duration
	maxSessions     int
	// bounds are the connection and body bounds (mcphttp.Options'
	// MaxConns, ReadTimeout, WriteTimeout, IdleTimeout, MaxBodyBytes,
	// MaxDecodingBytes).
	bounds mcphttp.Options
	oauth  oauthFlags
}

// boundFlags are the flags of the connection and body bounds, the same
// as `limcp mcp`'s.
var boundFlags = []string{"max-conns", "read-timeout", "write-timeout", "idle-timeout", "max-body-bytes", "max-decoding-bytes"}

func (h *httpFlags) register(c *cobra.Command) {
	fs := c.Flags()
	fs.StringVar(&h.addr, "http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8765) instead of stdio")
	fs.StringVar(&h.tokenFile, "token-file", "", "file holding the HTTP bearer token, mode 0600 (default $"+tokenEnv+", else generated into $XDG_STATE_HOME/verbsurface/NAME/"+tokenFileName+")")
	fs.BoolVar(&h.insecureNoAuth, "insecure-no-auth", false, "serve HTTP on loopback without a bearer token: any local user can call the tool")
	fs.StringArrayVar(&h.allowOrigins, "allow-origin", nil, "admit browser requests from this origin (scheme://host[:port]; repeatable)")
	fs.DurationVar(&h.sessionTimeout, "session-timeout", mcphttp.DefaultSessionTimeout, "close an HTTP session idle this long")
	fs.IntVar(&h.maxSessions, "max-sessions", mcphttp.DefaultMaxSessions, "most HTTP sessions open at once")
	b := &h.bounds
	fs.IntVar(&b.MaxConns, "max-conns", mcphttp.DefaultMaxConns, "most HTTP connections open at once (those without the token are closed first to make room)")
	fs.DurationVar(&b.ReadTimeout, "read-timeout", mcphttp.DefaultReadTimeout, "close an HTTP connection whose request body takes longer than this to arrive")
	fs.DurationVar(&b.WriteTimeout, "write-timeout", mcphttp.DefaultWriteTimeout, "close an HTTP connection whose client takes longer than this to accept one write of an answer")
	fs.DurationVar(&b.IdleTimeout, "idle-timeout", mcphttp.DefaultIdleTimeout, "close an HTTP connection idle this long between requests")
	fs.Int64Var(&b.MaxBodyBytes, "max-body-bytes", mcphttp.DefaultMaxBodyBytes, "largest HTTP request body (413 beyond)")
	fs.Int64Var(&b.MaxDecodingBytes, "max-decoding-bytes", mcphttp.DefaultMaxDecodingBytes, "bytes of HTTP request bodies decoded and answered at once; the rest wait, unread (bounds memory)")
	h.oauth.register(c)
}

// checkBounds refuses a bound that would turn its limit off or make it
// unsatisfiable, naming the flag.
func (h *httpFlags) checkBounds() error {
	b := h.bounds
	switch {
	case b.MaxConns < 1:
		return fmt.Errorf("--max-conns %d: must be at least 1", b.MaxConns)
	case b.ReadTimeout <= 0:
		return fmt.Errorf("--read-timeout %s: must be positive", b.ReadTimeout)
	case b.WriteTimeout <= 0:
		return fmt.Errorf("--write-timeout %s: must be positive", b.WriteTimeout)
	case b.IdleTimeout <= 0:
		return fmt.Errorf("--idle-timeout %s: must be positive", b.IdleTimeout)
	case b.MaxBodyBytes < 1:
		return fmt.Errorf("--max-body-bytes %d: must be at least 1", b.MaxBodyBytes)
	case b.MaxDecodingBytes < b.MaxBodyBytes:
		return fmt.Errorf("--max-decoding-bytes %d is below --max-body-bytes %d: the largest request could never be decoded", b.MaxDecodingBytes, b.MaxBodyBytes)
	}
	return nil
}

// options checks the HTTP flags before anything is opened and returns the
// handler's options (Token empty when it is to be generated, or with
// --insecure-no-auth); nil without --http.
func (h *httpFlags) options(c *cobra.Command, getenv func(string) string) (*mcphttp.Options, error) {
	if h.addr == "" {
		for _, name := range append([]string{"token-file", "insecure-no-auth", "allow-origin", "session-timeout", "max-sessions"}, append(boundFlags, oauthFlagNames...)...) {
			if c.Flags().Changed(name) {
				return nil, fmt.Errorf("--%s applies to --http only", name)
			}
		}
		return nil, nil
	}
	var token string
	if h.tokenFile != "" {
		t, err := mcphttp.ReadTokenFile(h.tokenFile)
		if err != nil {
			return nil, fmt.Errorf("--token-file: %w", err)
		}
		token = t
	} else {
		token = strings.TrimSpace(getenv(tokenEnv))
	}
	if h.insecureNoAuth && token != "" {
		return nil, fmt.Errorf("--insecure-no-auth with a bearer token configured ($%s or --token-file): choose one", tokenEnv)
	}
	if h.sessionTimeout <= 0 {
		return nil, fmt.Errorf("--session-timeout %s: must be positive (sessions that never expire are what the cap is for)", h.sessionTimeout)
	}
	if h.maxSessions < 1 {
		return nil, fmt.Errorf("--max-sessions %d: must be at least 1", h.maxSessions)
	}
	if err := h.checkBounds(); err != nil {
		return nil, err
	}
	o := h.bounds
	o.Token, o.SessionTimeout, o.MaxSessions, o.Name, o.Realm = token, h.sessionTimeout, h.maxSessions, "verbsurface serve", "verbsurface"
	for _, v := range h.allowOrigins {
		canon, err := mcphttp.ParseOrigin(v)
		if err != nil {
			return nil, err
		}
		o.AllowOrigins = append(o.AllowOrigins, canon)
	}
	return &o, nil
}

// safeName is a configuration name usable as a directory name.
var safeName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`)

// tokenDir is where a generated token is kept: $XDG_STATE_HOME/verbsurface/
// NAME (default ~/.local/state/verbsurface/NAME), one per configuration
// name, never beside the configuration (a checkout or a shared directory
// is no place for a secret). The directory is created 0700 and must stay
// private: owned by the server's user, no group or other bits, not a
// symbolic link.
func tokenDir(name string, getenv func(string) string) (string, error) {
	dir, err := tokenDirPath(name, getenv)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("token directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("token directory: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("token directory %s is not a directory (%s)", dir, fi.Mode().Type())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return "", fmt.Errorf("token directory %s is owned by uid %d, not by this server's user (uid %d)", dir, st.Uid, os.Geteuid())
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return "", fmt.Errorf("token directory %s has mode %04o; it must be private to you: chmod 700 %s", dir, perm, dir)
	}
	return dir, nil
}

// tokenDirPath is tokenDir's path, nothing created or checked.
func tokenDirPath(name string, getenv func(string) string) (string, error) {
	if !safeName.MatchString(name) {
		return "", fmt.Errorf("the configuration's name %q cannot name the directory of a generated token; give one with --token-file or $%s", name, tokenEnv)
	}
	base := getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(base) { // the XDG rule: a relative value is ignored
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return "", fmt.Errorf("no home directory for a generated token (%v); give one with --token-file or $%s", err, tokenEnv)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "verbsurface", name), nil
}

// private is where serve keeps its secret under these flags, for
// verbsurface.Options.Private: the token file, or the directory of a
// generated token; nothing on stdio, with the token in the environment or
// with --insecure-no-auth.
func (h *httpFlags) private(o *mcphttp.Options, name string, getenv func(string) string) []string {
	switch {
	case o == nil || h.insecureNoAuth:
		return nil
	case h.tokenFile != "":
		return []string{absPath(h.tokenFile)}
	case o.Token != "":
		return nil
	}
	if dir, err := tokenDirPath(name, getenv); err == nil {
		return []string{dir}
	}
	return nil // tokenDir fails the same way, later, saying why
}

// serveHTTP serves the front's one tool over streamable HTTP with every
// check of package mcphttp, until ctx ends. It prints where it serves and
// the client line on stderr: where the token is, never the token.
func serveHTTP(ctx context.Context, f *front, server *mcp.Server, hf *httpFlags, o *mcphttp.Options, getenv func(string) string, stderr io.Writer) error {
	if slices.Contains(f.cfg.Env.Pass, tokenEnv) {
		return fmt.Errorf("%s: env.pass lists %s: the CLI would see the bearer token; remove it", f.cfg.file, tokenEnv)
	}
	if oc, err := hf.oauth.resolve(f.cfg.OAuth, f.cfg.dir); err != nil || oc != nil {
		if err != nil {
			return fmt.Errorf("serve --http %s: %w", hf.addr, err)
		}
		return serveOAuth(ctx, f, server, hf, o, oc, stderr)
	}
	ln, err := mcphttp.Listen(hf.addr, o.Token)
	if err != nil {
		if hf.insecureNoAuth && errors.Is(err, mcphttp.ErrNonLoopback) {
			return fmt.Errorf("serve --http %s --insecure-no-auth: %s is not a loopback address; --insecure-no-auth serves loopback only (beyond it, configure a bearer token)", hf.addr, hf.addr)
		}
		if errors.Is(err, mcphttp.ErrNonLoopback) {
			return fmt.Errorf("serve --http %s: %w; set $%s (or --token-file)", hf.addr, err, tokenEnv)
		}
		return fmt.Errorf("serve --http %s: %w", hf.addr, err)
	}
	url := fmt.Sprintf("http://%s%s", ln.Addr(), mcphttp.Path)
	source, tokenPath := "", ""
	switch {
	case hf.insecureNoAuth:
	case hf.tokenFile != "":
		abs, err := filepath.Abs(hf.tokenFile) // the client line runs elsewhere
		if err != nil {
			abs = hf.tokenFile
		}
		source, tokenPath = "from --token-file "+hf.tokenFile, abs
	case o.Token != "":
		source = "from $" + tokenEnv
	default:
		dir, err := tokenDir(f.cfg.Name, getenv)
		if err == nil {
			var path, tok string
			var generated bool
			path, tok, generated, err = mcphttp.EnsureTokenFile(dir, tokenFileName)
			o.Token = tok
			source, tokenPath = "read from "+path+" (yours, no group or other access)", path
			if generated {
				source = "generated into " + path + " (mode 0600)"
			}
		}
		if err != nil {
			ln.Close()
			return fmt.Errorf("serve --http %s: %w", hf.addr, err)
		}
	}
	files := "no file access (roots: in the configuration allows it)"
	if len(f.cfg.Roots) > 0 {
		roots := make([]string, len(f.cfg.Roots))
		for i, r := range f.cfg.Roots {
			roots[i] = f.cfg.path(r)
		}
		files = "files under " + strings.Join(roots, ", ")
	}
	if hf.insecureNoAuth {
		fmt.Fprintf(stderr, "verbsurface serve: serving %s as streamable HTTP on %s (NO AUTHENTICATION; %s)\n", f.cfg.Name, url, files)
		fmt.Fprintf(stderr, "verbsurface serve: WARNING: --insecure-no-auth: every local user and every process on this machine can call the tool as you. Use it only on a single-user machine.\n")
	} else {
		fmt.Fprintf(stderr, "verbsurface serve: serving %s as streamable HTTP on %s (bearer token required; %s)\n", f.cfg.Name, url, files)
		fmt.Fprintf(stderr, "verbsurface serve: bearer token %s; a client connects with it from $%s (its configuration keeps only that name):\n%s",
			source, tokenEnv, clientconfig.HTTPHint("verbsurface install CLIENT -c "+shellQuote(absPath(f.cfg.file)), &clientconfig.Server{Name: clientName(f.cfg.Name), URL: url, TokenEnv: tokenEnv}, tokenPath))
	}
	return mcphttp.Serve(ctx, ln, server, o)
}

// shellQuote quotes a word for the printed client line when it holds
// anything a shell would read specially.
func shellQuote(s string) string {
	for _, r := range s {
		if !(r == '/' || r == '.' || r == '_' || r == '-' || r == '+' || r == ':' || r == ',' || r == '@' ||
			('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
