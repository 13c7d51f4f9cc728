//go:build unix

package notify

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/quota"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/textfile"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/yamldoc"
)

// The names by which a notify setting is given per run.
//
// These two flags are privileged: a notify command is arbitrary code run
// with the user's rights, and a notify URL makes limcp POST run records to
// a local port of the caller's choosing. They exist for a person at a
// terminal; the MCP server leaves them out of the projected surface BY
// NAME, so their names must never change (and no other flag may set a
// notify target). The server attaches its own notify through EnvURL
// instead, in the environment of the limcp subprocesses it runs.
const (
	FlagURL     = "notify-url"
	FlagCommand = "notify-command"
)

// Flags lists the privileged notify flags (what the MCP server excludes).
var Flags = []string{FlagURL, FlagCommand}

// EnvURL is the environment variable read at submit as the run's notify
// URL when --notify-url is not given.
const EnvURL = "LIMCP_NOTIFY_URL"

// ConfigFile is the state home's configuration file.
const ConfigFile = "config.yaml"

// Defaults and bounds of a setting's delivery policy.
const (
	DefaultTimeout     = 10 * time.Second
	MaxTimeout         = 10 * time.Minute
	DefaultMaxAttempts = 3
	MaxAttempts        = 10
)

// Config is <home>/config.yaml: the notify section (this package's) and
// the limits section (package quota's, resolved by quota.Resolve).
type Config struct {
	Notify ConfigNotify `yaml:"notify"`
	Limits quota.Config `yaml:"limits"`
}

// ConfigNotify is the default notify setting of every run submitted with
// this home, and the delivery policy of every setting.
type ConfigNotify struct {
	URL      string   `yaml:"url"`
	Command  []string `yaml:"command"`
	Timeout  string   `yaml:"timeout"`  // per attempt, a Go duration; "" → DefaultTimeout
	Attempts int      `yaml:"attempts"` // per channel; 0 → DefaultMaxAttempts
}

// MaxConfigBytes bounds the configuration file: it is a few lines.
const MaxConfigBytes = 256 << 10

// LoadConfig reads <home>/config.yaml. A missing file is an empty config.
// Errors are invalid_config machine errors naming the file and the field.
func LoadConfig(home string) (Config, error) {
	path := filepath.Join(home, ConfigFile)
	b, err := textfile.Read(path, MaxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, configErr(path, "", "reading it: %v", err)
	}
	var c Config
	if err := yamldoc.Decode(b, &c); err != nil && !errors.Is(err, yamldoc.ErrEmpty) {
		return Config{}, configErr(path, "", "%v", err)
	}
	return c, nil
}

// Limits returns the bounds of home's config.yaml (package quota): the
// defaults for what it does not set. A config.yaml that does not load, or
// a limits value that is not acceptable, is invalid_config.
func Limits(home string) (quota.Limits, error) {
	cfg, err := LoadConfig(home)
	if err != nil {
		return quota.Defaults, err
	}
	l, err := quota.Resolve(cfg.Limits)
	var fe *quota.FieldError
	if errors.As(err, &fe) {
		return quota.Defaults, configErr(filepath.Join(home, ConfigFile), fe.Field, "%s", fe.Msg)
	}
	return l, err
}

func configErr(path, field, format string, args ...any) error {
	where := path
	if field != "" {
		where += ": field " + field
	}
	return machine.Errorf(machine.InvalidConfig, map[string]any{"file": path, "field": field},
		"invalid config %s: %s", where, fmt.Sprintf(format, args...))
}

// PerRun is a setting given for one run (the spawn command's flags).
type PerRun struct {
	URL     string   // --notify-url
	Command []string // --notify-command, repeated: the argv
}

// Resolve decides the notify setting of a run being submitted, per
// channel, in this order:
//
//   - URL: --notify-url; else $LIMCP_NOTIFY_URL; else config notify.url;
//   - command: --notify-command; else config notify.command;
//   - timeout and attempts: config notify.timeout and notify.attempts, else
//     DefaultTimeout and DefaultMaxAttempts.
//
// A URL must be http or https on a loopback host ([CheckURL]); a command's
// argv[0] must be found now (on PATH, or a path) and is stored as an
// absolute path, so delivery does not depend on the environment of
// whichever process ends the run. Errors say which source was wrong:
// invalid_argument for a flag or the environment, invalid_config for
// config.yaml. Resolve writes nothing.
func Resolve(home string, p PerRun, getenv func(string) string) (store.Notify, error) {
	cfg, err := LoadConfig(home)
	if err != nil {
		return store.Notify{}, err
	}
	path := filepath.Join(home, ConfigFile)
	n := store.Notify{Timeout: DefaultTimeout, MaxAttempts: DefaultMaxAttempts}
	if t := cfg.Notify.Timeout; t != "" {
		d, err := time.ParseDuration(t)
		if err != nil || d <= 0 || d > MaxTimeout {
			return store.Notify{}, configErr(path, "notify.timeout", "%q is not a duration in (0, %s]", t, MaxTimeout)
		}
		n.Timeout = d
	}
	if a := cfg.Notify.Attempts; a != 0 {
		if a < 1 || a > MaxAttempts {
			return store.Notify{}, configErr(path, "notify.attempts", "%d is out of range 1..%d", a, MaxAttempts)
		}
		n.MaxAttempts = a
	}

	switch {
	case p.URL != "":
		if err := CheckURL(p.URL); err != nil {
			return store.Notify{}, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": FlagURL},
				"--%s %q: %v", FlagURL, p.URL, err)
		}
		n.URL = p.URL
	case getenv(EnvURL) != "":
		u := getenv(EnvURL)
		if err := CheckURL(u); err != nil {
			return store.Notify{}, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": FlagURL, "source": "$" + EnvURL},
				"$%s %q: %v", EnvURL, u, err)
		}
		n.URL = u
	case cfg.Notify.URL != "":
		if err := CheckURL(cfg.Notify.URL); err != nil {
			return store.Notify{}, configErr(path, "notify.url", "%q: %v", cfg.Notify.URL, err)
		}
		n.URL = cfg.Notify.URL
	}

	switch {
	case len(p.Command) > 0:
		argv, err := resolveCommand(p.Command)
		if err != nil {
			return store.Notify{}, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": FlagCommand},
				"--%s %q: %v", FlagCommand, p.Command, err)
		}
		n.Command = argv
	case len(cfg.Notify.Command) > 0:
		argv, err := resolveCommand(cfg.Notify.Command)
		if err != nil {
			return store.Notify{}, configErr(path, "notify.command", "%q: %v", cfg.Notify.Command, err)
		}
		n.Command = argv
	}
	if n.Empty() {
		return store.Notify{}, nil
	}
	return n, nil
}

func resolveCommand(argv []string) ([]string, error) {
	if argv[0] == "" {
		return nil, errors.New("the first word must name a command")
	}
	p, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("command %q cannot be found or is not executable: %w", argv[0], err)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, err
	}
	return append([]string{abs}, argv[1:]...), nil
}

// CheckURL accepts an http or https URL whose host is loopback: "localhost"
// or an IP literal in 127.0.0.0/8 or ::1. It refuses any other host name
// even if it resolves to loopback today (a name can be re-pointed; the
// delivery's dialer checks the address again at connect time), and a URL
// carrying credentials (job status shows the setting).
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("not a URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("scheme %q is not http or https", u.Scheme)
	}
	if u.User != nil {
		return errors.New("a notify URL may not carry credentials (job status shows it)")
	}
	host := u.Hostname()
	if host == "" {
		return errors.New("the URL has no host")
	}
	if !loopbackHost(host) {
		return fmt.Errorf("host %q is not loopback: a notify URL must be on this machine (localhost, 127.0.0.0/8 or [::1])", host)
	}
	return nil
}

func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
