//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The corpus's cobra programs whose help flag or help layout is their own
// (issue 34): gh and podman (their own help flag and layout), etcdctl (its
// own layout and flag format), docker (its own help flag, and its usage
// line on the title's line). Each is read by the cobra-binary reader
// from completion and what its help prints in cobra's and pflag's words,
// and one op of each is compared byte for byte with the program run
// directly.
func init() {
	corpusPrograms = append(corpusPrograms,
		corpusProgram{
			name: "gh", bin: "gh",
			version: []string{"--version"}, want: "gh version 2.23.0", install: "apt-get install gh",
			spot: "config.get",
			setup: func(t *testing.T, dir string) []string {
				return []string{"GH_CONFIG_DIR=" + filepath.Join(dir, "gh")}
			},
			ops: func(t *testing.T, c *client, dir string) {
				env := []string{"GH_CONFIG_DIR=" + filepath.Join(dir, "gh")}
				for _, tc := range []struct{ op, args string }{
					{`{"op":"config.list"}`, "config list"},
					{`{"op":"config.get","args":{"key":"git_protocol"}}`, "config get git_protocol"},
					{`{"op":"alias.list"}`, "alias list"},
					{`{"op":"shell.completion","args":{"shell":"bash"}}`, "completion --shell=bash"},
				} {
					got := textOf(t, resultOf(t, c.op(tc.op)))
					if want := runProgram(t, dir, env, "gh", strings.Fields(tc.args)...); got != want {
						t.Errorf("%s: %q, want what gh %s prints: %q", tc.op, short(got), tc.args, short(want))
					}
				}
				// Unknown parameters are refused, not handed to gh.
				if r := c.op(`{"op":"config.get","args":{"key":"editor","token":"x"}}`); code(r) != "invalid_args" {
					t.Errorf("an unknown parameter: %v", r)
				}
			},
		},
		corpusProgram{
			name: "podman", bin: "podman",
			version: []string{"--version"}, want: "podman version 4.3.1", install: "apt-get install podman",
			spot: "image.list",
			setup: func(t *testing.T, dir string) []string {
				conf := filepath.Join(dir, "storage.conf")
				writeFiles(t, dir, map[string]string{"storage.conf": fmt.Sprintf("[storage]\ndriver = \"vfs\"\ngraphroot = %q\nrunroot = %q\n",
					filepath.Join(dir, "graph"), filepath.Join(dir, "run"))})
				return []string{"CONTAINERS_STORAGE_CONF=" + conf}
			},
			ops: func(t *testing.T, c *client, dir string) {
				env := []string{"CONTAINERS_STORAGE_CONF=" + filepath.Join(dir, "storage.conf")}
				if got, want := textOf(t, resultOf(t, c.op(`{"op":"version"}`))), runProgram(t, dir, env, "podman", "version"); got != want {
					t.Errorf("version: %q, want what podman version prints: %q", got, want)
				}
				// The listings are JSON, which the front decodes: compared
				// as values with what podman prints.
				for _, tc := range []struct{ op, args string }{
					{`{"op":"image.list","args":{"all":true}}`, "images --all=true --format=json"},
					{`{"op":"container.list","args":{"all":true}}`, "ps --all=true --format=json"},
					{`{"op":"volume.list"}`, "volume ls --format=json"},
				} {
					var got, want any
					outputOf(t, resultOf(t, c.op(tc.op)), &got)
					if err := json.Unmarshal([]byte(runProgram(t, dir, env, "podman", strings.Fields(tc.args)...)), &want); err != nil {
						t.Fatalf("podman %s: %v", tc.args, err)
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("%s: %v, want what podman %s prints: %v", tc.op, got, tc.args, want)
					}
				}
				// The output format is the front's: a caller's template is refused.
				if r := c.op(`{"op":"image.list","args":{"format":"{{.ID}}"}}`); code(r) != "invalid_args" {
					t.Errorf("format: %v", r)
				}
			},
		},
		corpusProgram{
			name: "etcdctl", bin: "etcdctl",
			version: []string{"version"}, want: "etcdctl version: 3.4.23", install: "apt-get install etcd-client",
			spot: "version",
			ops: func(t *testing.T, c *client, dir string) {
				for _, tc := range []struct{ op, args string }{
					{`{"op":"version"}`, "version"},
					{`{"op":"shell.completion.bash"}`, "completion bash"},
				} {
					got := textOf(t, resultOf(t, c.op(tc.op)))
					if want := runProgram(t, dir, nil, "etcdctl", strings.Fields(tc.args)...); got != want {
						t.Errorf("%s: %q, want what etcdctl %s prints: %q", tc.op, short(got), tc.args, short(want))
					}
				}
				if r := c.op(`{"op":"version","args":{"endpoints":["10.0.0.1:2379"]}}`); code(r) != "invalid_args" {
					t.Errorf("endpoints, excluded: %v", r)
				}
			},
		},
		corpusProgram{
			name: "docker", bin: "docker",
			version: []string{"--version"}, want: "Docker version 20.10.24", install: "apt-get install docker.io",
			spot: "context.list",
			setup: func(t *testing.T, dir string) []string {
				if err := os.Mkdir(filepath.Join(dir, "docker"), 0o700); err != nil {
					t.Fatal(err)
				}
				return []string{"DOCKER_CONFIG=" + filepath.Join(dir, "docker")}
			},
			ops: func(t *testing.T, c *client, dir string) {
				env := []string{"DOCKER_CONFIG=" + filepath.Join(dir, "docker")}
				// context ls prints a JSON object a line, which the
				// front decodes (jsonl); inspect prints a JSON array.
				var got, want []any
				outputOf(t, resultOf(t, c.op(`{"op":"context.list"}`)), &got)
				for _, l := range strings.Split(strings.TrimSpace(runProgram(t, dir, env, "docker", "context", "ls", "--format={{json .}}")), "\n") {
					var v any
					if err := json.Unmarshal([]byte(l), &v); err != nil {
						t.Fatalf("docker context ls: %q: %v", l, err)
					}
					want = append(want, v)
				}
				if len(want) == 0 || !reflect.DeepEqual(got, want) {
					t.Errorf("context.list: %v, want what docker context ls prints: %v", got, want)
				}
				var gotI, wantI any
				outputOf(t, resultOf(t, c.op(`{"op":"context.inspect","args":{"context":"default"}}`)), &gotI)
				if err := json.Unmarshal([]byte(runProgram(t, dir, env, "docker", "context", "inspect", "default")), &wantI); err != nil {
					t.Fatalf("docker context inspect default: %v", err)
				}
				if !reflect.DeepEqual(gotI, wantI) {
					t.Errorf("context.inspect: %v, want what docker context inspect default prints: %v", gotI, wantI)
				}
				// The output format is the front's: a caller's template is refused.
				if r := c.op(`{"op":"context.inspect","args":{"format":"{{.Name}}"}}`); code(r) != "invalid_args" {
					t.Errorf("format: %v", r)
				}
			},
		},
	)
}

// short is s cut for a message.
func short(s string) string {
	if len(s) > 300 {
		return s[:300] + fmt.Sprintf("… (%d bytes)", len(s))
	}
	return s
}
