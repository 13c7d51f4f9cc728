//go:build unix

package runenv

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBuild(t *testing.T) {
	base := []string{"PATH=/bin", "HOME=/h", "LIMCP_HOME=/s", "LIMCP_MCP_TOKEN=tok", "LIMCP_NOTIFY_URL=http://127.0.0.1:1/x",
		"AWS_SECRET_ACCESS_KEY=canary", "ANTHROPIC_API_KEY=k", "LC_ALL=C"}
	tests := []struct {
		name string
		pass []string
		want []string
	}{
		{"LIMCP_* is kept, the token and every unnamed secret are not", nil,
			[]string{"PATH=/bin", "HOME=/h", "LIMCP_HOME=/s", "LIMCP_NOTIFY_URL=http://127.0.0.1:1/x", "LC_ALL=C"}},
		{"a passed name is kept", []string{"ANTHROPIC_API_KEY"},
			[]string{"PATH=/bin", "HOME=/h", "LIMCP_HOME=/s", "LIMCP_NOTIFY_URL=http://127.0.0.1:1/x", "ANTHROPIC_API_KEY=k", "LC_ALL=C"}},
		{"the token stays withheld even when passed by name", []string{Withheld},
			[]string{"PATH=/bin", "HOME=/h", "LIMCP_HOME=/s", "LIMCP_NOTIFY_URL=http://127.0.0.1:1/x", "LC_ALL=C"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Build(base, tt.pass...)); diff != "" {
				t.Errorf("Build (-want +got):\n%s", diff)
			}
		})
	}
}

// TestForRun: what outlives a command never carries the server's
// per-command variables, which would make a limcp an agent runs stop at
// once (its parent is not the server).
func TestForRun(t *testing.T) {
	base := []string{"PATH=/bin", "LIMCP_HOME=/s", "LIMCP_COMMAND_TIMEOUT=30s", "LIMCP_PARENT_PID=1234", "LIMCP_MCP_TOKEN=tok"}
	if diff := cmp.Diff([]string{"PATH=/bin", "LIMCP_HOME=/s"}, ForRun(base)); diff != "" {
		t.Errorf("ForRun (-want +got):\n%s", diff)
	}
	if got := Build(base); len(got) != 4 {
		t.Errorf("Build dropped a command's variable: %v", got)
	}
}
