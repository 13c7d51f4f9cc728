//go:build unix

package notify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
)

func TestCheckURL(t *testing.T) {
	tests := []struct {
		name    string
		url     string
		wantErr string // "" → accepted
	}{
		{name: "127.0.0.1 is loopback", url: "http://127.0.0.1:8080/hook"},
		{name: "all of 127.0.0.0/8 is loopback", url: "http://127.3.4.5/"},
		{name: "localhost is loopback", url: "http://LocalHost:9/x?y=1"},
		{name: "IPv6 ::1 is loopback", url: "https://[::1]:8443/"},
		{name: "IPv4-mapped loopback is loopback", url: "http://[::ffff:127.0.0.1]/"},
		{name: "a public host is refused", url: "http://example.com/hook", wantErr: "not loopback"},
		{name: "a private address is refused", url: "http://10.0.0.1/", wantErr: "not loopback"},
		{name: "the unspecified address is refused", url: "http://0.0.0.0:80/", wantErr: "not loopback"},
		{name: "a name that merely starts like loopback is refused", url: "http://127.0.0.1.example.com/", wantErr: "not loopback"},
		{name: "a name resolving to loopback is still refused", url: "http://localtest.me/", wantErr: "not loopback"},
		{name: "a numeric host is refused", url: "http://2130706433/", wantErr: "not loopback"},
		{name: "another scheme is refused", url: "ftp://127.0.0.1/", wantErr: "not http or https"},
		{name: "no scheme is refused", url: "127.0.0.1:80", wantErr: "not a URL"},
		{name: "a scheme-less host is refused", url: "//127.0.0.1/", wantErr: "scheme"},
		{name: "credentials are refused", url: "http://u:p@127.0.0.1/", wantErr: "credentials"},
		{name: "no host is refused", url: "http:///path", wantErr: "no host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckURL(tt.url)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("CheckURL(%q) = %v; want accepted", tt.url, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("CheckURL(%q) = %v; want an error containing %q", tt.url, err, tt.wantErr)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	truePath, err := filepathLook("true")
	if err != nil {
		t.Skip("no true(1) on PATH")
	}
	tests := []struct {
		name   string
		config string
		flags  PerRun
		env    string
		want   store.Notify
		code   machine.Code // expected error code
		field  string       // and the field (config) or argument (flags)
	}{
		{name: "nothing anywhere is no setting", want: store.Notify{}},
		{name: "a flag URL is taken with the default policy", flags: PerRun{URL: "http://127.0.0.1:1/a"},
			want: store.Notify{URL: "http://127.0.0.1:1/a", Timeout: DefaultTimeout, MaxAttempts: DefaultMaxAttempts}},
		{name: "the environment URL is used when no flag is given", env: "http://localhost:2/e",
			config: "notify: {url: 'http://127.0.0.1:3/c'}",
			want:   store.Notify{URL: "http://localhost:2/e", Timeout: DefaultTimeout, MaxAttempts: DefaultMaxAttempts}},
		{name: "the flag wins over the environment and the config", flags: PerRun{URL: "http://127.0.0.1:1/f"}, env: "http://localhost:2/e",
			config: "notify: {url: 'http://127.0.0.1:3/c'}",
			want:   store.Notify{URL: "http://127.0.0.1:1/f", Timeout: DefaultTimeout, MaxAttempts: DefaultMaxAttempts}},
		{name: "the config is the default, with its policy", config: "notify:\n  url: http://127.0.0.1:3/c\n  command: [true, x]\n  timeout: 2s\n  attempts: 5\n",
			want: store.Notify{URL: "http://127.0.0.1:3/c", Command: []string{truePath, "x"}, Timeout: 2 * time.Second, MaxAttempts: 5}},
		{name: "channels are chosen separately: a flag command keeps the config URL", config: "notify: {url: 'http://127.0.0.1:3/c', command: [nonexistent-xyz]}",
			flags: PerRun{Command: []string{"true", "--flag"}},
			want:  store.Notify{URL: "http://127.0.0.1:3/c", Command: []string{truePath, "--flag"}, Timeout: DefaultTimeout, MaxAttempts: DefaultMaxAttempts}},
		{name: "a non-loopback flag URL is an invalid argument", flags: PerRun{URL: "http://192.0.2.1/"}, code: machine.InvalidArgument, field: FlagURL},
		{name: "a non-loopback environment URL is an invalid argument", env: "http://example.com/", code: machine.InvalidArgument, field: FlagURL},
		{name: "a non-loopback config URL is an invalid config naming the field", config: "notify: {url: 'http://example.com/'}", code: machine.InvalidConfig, field: "notify.url"},
		{name: "a flag command that cannot be found is an invalid argument", flags: PerRun{Command: []string{"nonexistent-xyz"}}, code: machine.InvalidArgument, field: FlagCommand},
		{name: "a config command that cannot be found names the field", config: "notify: {command: [nonexistent-xyz]}", code: machine.InvalidConfig, field: "notify.command"},
		{name: "a bad timeout names the field", config: "notify: {timeout: soon}", code: machine.InvalidConfig, field: "notify.timeout"},
		{name: "a timeout above the bound is refused", config: "notify: {timeout: 1h}", code: machine.InvalidConfig, field: "notify.timeout"},
		{name: "attempts out of range name the field", config: "notify: {attempts: 11}", code: machine.InvalidConfig, field: "notify.attempts"},
		{name: "an unknown key is refused", config: "notify: {urls: []}", code: machine.InvalidConfig, field: ""},
		{name: "a second document is refused, not ignored", config: "notify: {url: 'http://127.0.0.1:3/c'}\n---\nnotify: {command: [nonexistent-xyz]}\n", code: machine.InvalidConfig, field: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if tt.config != "" {
				if err := os.WriteFile(filepath.Join(home, ConfigFile), []byte(tt.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			getenv := func(k string) string {
				if k == EnvURL {
					return tt.env
				}
				return ""
			}
			got, err := Resolve(home, tt.flags, getenv)
			if tt.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(tt.want, got); d != "" {
					t.Fatalf("setting (-want +got):\n%s", d)
				}
				return
			}
			me, ok := machine.As(err)
			if !ok || me.Code != tt.code {
				t.Fatalf("Resolve = %v; want %s", err, tt.code)
			}
			d := me.Details.(map[string]any)
			key := "argument"
			if tt.code == machine.InvalidConfig {
				key = "field"
				if d["file"] != filepath.Join(home, ConfigFile) {
					t.Fatalf("details %v do not name the file", d)
				}
			}
			if d[key] != tt.field {
				t.Fatalf("details %v; want %s %q", d, key, tt.field)
			}
		})
	}
}
