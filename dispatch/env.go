//go:build unix

package dispatch

import "strings"

// DefaultEnvAllowlist is the environment a command keeps from its base when
// nothing else is named: enough for a program to find its tools, its home,
// its locale, its time zone and its temporary directory, and nothing that
// is commonly a secret. "LC_*" stands for every LC_ variable.
var DefaultEnvAllowlist = []string{"PATH", "HOME", "USER", "LANG", "LC_*", "TZ", "TMPDIR", "TERM"}

// AllowlistEnv returns the entries of base ("NAME=value", as os.Environ
// gives them) whose name is in [DefaultEnvAllowlist] or in names, in base's
// order. A name ending in "*" admits every name with that prefix
// ("MYCLI_*"). Entries without "=" and entries whose name is admitted by
// no rule are dropped; when a name occurs twice, the later entry wins, as
// for os/exec.
//
// It is the rule for starting a subprocess on behalf of an untrusted
// caller: a server's environment holds its own secrets (a bearer token,
// cloud credentials), and a child that inherits them can hand them to
// whoever reads its output. AllowlistEnv never adds a variable; a program
// that must set one appends "NAME=value" to the result. It does not
// remove anything a name admits: a program that must withhold one
// variable a prefix admits (a token among "MYCLI_*") filters the result.
func AllowlistEnv(base []string, names ...string) []string {
	out := make([]string, 0, len(DefaultEnvAllowlist)+len(names))
	at := make(map[string]int, cap(out))
	for _, kv := range base {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || !(envAdmitted(name, DefaultEnvAllowlist) || envAdmitted(name, names)) {
			continue
		}
		if i, dup := at[name]; dup {
			out[i] = kv
			continue
		}
		at[name] = len(out)
		out = append(out, kv)
	}
	return out
}

func envAdmitted(name string, rules []string) bool {
	for _, r := range rules {
		if prefix, ok := strings.CutSuffix(r, "*"); ok {
			if strings.HasPrefix(name, prefix) {
				return true
			}
		} else if r == name {
			return true
		}
	}
	return false
}
