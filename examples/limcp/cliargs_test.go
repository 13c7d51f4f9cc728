//go:build unix

package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCLIRefusalNamesTheParameter: limcp's usage errors name the flag whose
// value its type refused (details.argument), as its invalid_argument errors
// already name theirs.
func TestCLIRefusalNamesTheParameter(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct {
		code, argument string
		args           []string
	}{
		{"usage_error", "limit", []string{"job", "list", "--limit=many"}},
		{"invalid_argument", "cursor", []string{"job", "list", "--cursor", "nonsense"}},
	} {
		r := e.fail(tc.code, tc.args...)
		var d struct{ Argument string }
		if err := json.Unmarshal(r.Error.Details, &d); err != nil || d.Argument != tc.argument {
			t.Errorf("limcp %v: details %s, want argument %q", tc.args, r.Error.Details, tc.argument)
		}
	}
}

// TestMCPCLIRefusalTeaches: a value the schema admits but the CLI itself
// refuses (a cursor that is not one of limcp's) comes back through the
// surface as invalid_args naming the parameter, with the schema, its
// fingerprint and the help call, like any argument error, over a real MCP
// session with the built binary.
func TestMCPCLIRefusalTeaches(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.dialStdio(nil, nil)
	o := c.fail("invalid_args", "job.list", map[string]any{"cursor": "nonsense"}, "")
	if len(o.Error.Problems) != 1 || o.Error.Problems[0]["param"] != "cursor" || o.Error.Problems[0]["rule"] != "cli_refused" {
		t.Fatalf("problems: %s", o.raw)
	}
	if reason, _ := o.Error.Problems[0]["reason"].(string); !strings.Contains(reason, "the CLI refused this value") {
		t.Errorf("reason %q", reason)
	}
	if !strings.HasPrefix(o.Error.SchemaFingerprint, "sf1-") || len(o.Error.Schema) == 0 || !jsonEqual(o.Error.HelpCall, []byte(`{"help":"job.list"}`)) {
		t.Fatalf("the refusal does not teach: %s", o.raw)
	}
	// An error about no parameter still passes through as cli_error.
	c.fail("cli_error", "job.status", map[string]any{"ids": []any{"ffffffffffff"}}, "")
}
