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
