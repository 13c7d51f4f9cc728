//go:build unix

package dispatch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/verbsurface/verbsurface/dispatch"
)

// TestAllowlistEnv pins the rule, one row per clause of its documentation.
func TestAllowlistEnv(t *testing.T) {
	base := []string{
		"PATH=/usr/bin", "HOME=/home/me", "USER=me", "LANG=C.UTF-8", "LC_ALL=C", "LC_TIME=en_GB",
		"TZ=UTC", "TMPDIR=/tmp", "TERM=xterm", "AWS_SECRET_ACCESS_KEY=canary", "MYCLI_HOME=/srv",
		"MYCLI_TOKEN=t", "ANTHROPIC_API_KEY=k", "NOEQUALS", "=empty-name", "PATH=/bin",
	}
	tests := []struct {
		name  string
		names []string
		want  []string
	}{
		{"the default allowlist alone keeps no secret; a repeated name keeps the later value in the first place",
			nil, []string{"PATH=/bin", "HOME=/home/me", "USER=me", "LANG=C.UTF-8", "LC_ALL=C", "LC_TIME=en_GB", "TZ=UTC", "TMPDIR=/tmp", "TERM=xterm"}},
		{"an exact name is passed through", []string{"ANTHROPIC_API_KEY"},
			[]string{"PATH=/bin", "HOME=/home/me", "USER=me", "LANG=C.UTF-8", "LC_ALL=C", "LC_TIME=en_GB", "TZ=UTC", "TMPDIR=/tmp", "TERM=xterm", "ANTHROPIC_API_KEY=k"}},
		{"a prefix admits every name it starts", []string{"MYCLI_*"},
			[]string{"PATH=/bin", "HOME=/home/me", "USER=me", "LANG=C.UTF-8", "LC_ALL=C", "LC_TIME=en_GB", "TZ=UTC", "TMPDIR=/tmp", "TERM=xterm", "MYCLI_HOME=/srv", "MYCLI_TOKEN=t"}},
		{"a name that is only a prefix of a variable admits nothing else", []string{"ANTHROPIC"},
			[]string{"PATH=/bin", "HOME=/home/me", "USER=me", "LANG=C.UTF-8", "LC_ALL=C", "LC_TIME=en_GB", "TZ=UTC", "TMPDIR=/tmp", "TERM=xterm"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := dispatch.AllowlistEnv(base, tt.names...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("AllowlistEnv(%v) (-want +got):\n%s", tt.names, diff)
			}
		})
	}
}

// TestAllowlistEnvReachesTheChild: a runner given the allowlisted
// environment starts a child that does not see the canary.
func TestAllowlistEnvReachesTheChild(t *testing.T) {
	env := dispatch.AllowlistEnv([]string{"PATH=/usr/bin:/bin", "CANARY_SECRET=s3cr3t", "KEEP=1"}, "KEEP")
	r, err := dispatch.NewRunner("/bin/sh", &dispatch.Options{Env: env,
		LeadingArgs: []string{"-c", `printf '{"result_version":1,"ok":true,"data":"%s|%s"}' "${CANARY_SECRET-unset}" "${KEEP-unset}"`, "sh"}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := r.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	if err := json.Unmarshal(data, &got); err != nil || got != "unset|1" {
		t.Fatalf("child saw %s (%v); want the canary unset and KEEP=1", data, err)
	}
}

func ExampleAllowlistEnv() {
	server := []string{"PATH=/usr/bin", "HOME=/home/me", "MYCLI_HOME=/srv/mycli",
		"MYCLI_TOKEN=secret", "AWS_SECRET_ACCESS_KEY=secret", "ANTHROPIC_API_KEY=key"}
	env := dispatch.AllowlistEnv(server, "MYCLI_*", "ANTHROPIC_API_KEY")
	// Withhold the one variable the prefix admits that children must not see.
	kept := env[:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "MYCLI_TOKEN=") {
			kept = append(kept, kv)
		}
	}
	fmt.Println(strings.Join(kept, "\n"))
	// Output:
	// PATH=/usr/bin
	// HOME=/home/me
	// MYCLI_HOME=/srv/mycli
	// ANTHROPIC_API_KEY=key
}
