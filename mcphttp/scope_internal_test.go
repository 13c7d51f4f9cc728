//go:build unix

package mcphttp

import (
	"slices"
	"testing"
)

// TestMissingScopes: the scope gate refuses a tools/call of the tool only
// when no op of it may run, naming every scope missing; anything else
// goes on to the surface.
func TestMissingScopes(t *testing.T) {
	scopes := map[string][]string{"job.kill": {"w"}, "agent.submit": {"w", "spawn"}}
	opScopes := func(op string) []string { return scopes[op] }
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"request","arguments":` + args + `}}`
	}
	for _, c := range []struct {
		name, body string
		granted    []string
		want       []string
	}{
		{"every op lacks a scope", call(`{"ops":[{"op":"job.kill"},{"op":"agent.submit"}]}`), nil, []string{"w", "spawn"}},
		{"one op lacks only what another has", call(`{"ops":[{"op":"agent.submit"}]}`), []string{"w"}, []string{"spawn"}},
		{"one op may run", call(`{"ops":[{"op":"job.status"},{"op":"job.kill"}]}`), nil, nil},
		{"granted", call(`{"ops":[{"op":"job.kill"}]}`), []string{"w"}, nil},
		{"help only", call(`{"help":true}`), nil, nil},
		{"another method", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil, nil},
		{"another tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"other","arguments":{"ops":[{"op":"job.kill"}]}}}`, nil, nil},
		{"a batch", `[` + call(`{"ops":[{"op":"job.kill"}]}`) + `]`, nil, nil},
		{"not JSON", `{`, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := missingScopes([]byte(c.body), opScopes, c.granted); !slices.Equal(got, c.want) {
				t.Errorf("missingScopes = %q; want %q", got, c.want)
			}
		})
	}
}
