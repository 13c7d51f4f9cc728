//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// requireProgram skips when prog is not installed, and fails instead where
// VERBSURFACE_REQUIRE_COBRA_DEBIAN=1 (.ci/run installs restic and skopeo
// from Debian's packages and sets it).
func requireProgram(t *testing.T, prog string) string {
	t.Helper()
	path, err := exec.LookPath(prog)
	if err != nil {
		msg := prog + " is not installed (.ci/run installs it with apt): " + err.Error()
		if os.Getenv("VERBSURFACE_REQUIRE_COBRA_DEBIAN") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return path
}

// helpFlagLine is the simplest reading of a pflag flag line: its long
// name, and whether a word follows it (a value) or the padding does (a
// bool). It is deliberately not fromcobrabin's reader.
var helpFlagLine = regexp.MustCompile(`^  (?:-\S, |    )--([^\s\[=]+)( [^\s])?`)

// ownHelpFlags runs PROG PATH --help and returns its flags: name → takes
// a value.
func ownHelpFlags(t *testing.T, prog string, path []string) map[string]bool {
	t.Helper()
	out, err := exec.Command(prog, append(append([]string{}, path...), "--help")...).Output()
	if err != nil {
		t.Fatalf("%s %v --help: %v", prog, path, err)
	}
	flags := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		if m := helpFlagLine.FindStringSubmatch(l); m != nil {
			flags[m[1]] = m[2] != ""
		}
	}
	if len(flags) == 0 {
		t.Fatalf("%s %v --help lists no flags", prog, path)
	}
	return flags
}

// Cobra programs installed from Debian's packages, fronted from YAML
// alone by source: {cobra: [PROGRAM]}: check passes for their read-only
// verbs, and help on each verb gives a schema whose flags are the ones
// the program's own --help lists, each a boolean exactly where the help
// shows no value word.
func TestDebianCobraPrograms(t *testing.T) {
	for _, tc := range []struct {
		prog    string
		config  string
		exclude []string // flags the configuration excludes or the surface owns
	}{
		{"restic", "testdata/debian/restic.yaml", []string{"help", "json", "password-command"}},
		{"skopeo", "testdata/debian/skopeo.yaml", []string{"help", "password", "creds"}},
	} {
		t.Run(tc.prog, func(t *testing.T) {
			bin := requireProgram(t, tc.prog)
			out, errOut, status := runVS(t, "check", "-c", tc.config)
			if status != 0 || !strings.Contains(out, ": ok: ") {
				t.Fatalf("check: status %d\n%s%s", status, out, errOut)
			}
			c, err := LoadConfig(filepath.FromSlash(tc.config))
			if err != nil {
				t.Fatal(err)
			}
			srv := serve(t, tc.config)
			for _, v := range c.Verbs {
				schema, _ := srv.help(v.Name)
				props := schema["properties"].(map[string]any)
				own := ownHelpFlags(t, bin, v.Path)
				for name, value := range own {
					if contains(tc.exclude, name) {
						if _, ok := props[snake(name)]; ok {
							t.Errorf("%s: excluded flag --%s offered", v.Name, name)
						}
						continue
					}
					p, ok := props[snake(name)].(map[string]any)
					if !ok {
						t.Errorf("%s: --%s from %s's own help is not in the schema", v.Name, name, tc.prog)
						continue
					}
					if isBool := p["type"] == "boolean"; isBool == value {
						t.Errorf("%s: --%s: schema type %v, but the help shows it %s", v.Name, name, p["type"], map[bool]string{true: "with a value word", false: "without one"}[value])
					}
				}
				for name := range props {
					if _, ok := own[dashed(name)]; !ok && !positionalIn(t, bin, v.Path, name) {
						t.Errorf("%s: schema property %s is neither a flag of %s's help nor a word of its usage line", v.Name, name, tc.prog)
					}
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func snake(flag string) string { return strings.NewReplacer("-", "_", ".", "_").Replace(flag) }

func dashed(name string) string { return strings.ReplaceAll(name, "_", "-") }

// positionalIn reports whether name is a word of the command's usage line
// (its positionals are named after them, letters compared without case
// or punctuation, a repeated name numbered), or the generic name of more
// of a variadic word ("args").
func positionalIn(t *testing.T, prog string, path []string, name string) bool {
	out, _ := exec.Command(prog, append(append([]string{}, path...), "--help")...).Output()
	letters := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' {
				return r
			}
			return -1
		}, strings.ToLower(s))
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), filepath.Base(prog)+" "+strings.Join(path, " ")) {
			return name == "args" || strings.Contains(letters(l), letters(name))
		}
	}
	return false
}
