//go:build unix

package cli

import (
	"strings"
	"testing"
)

func TestMember(t *testing.T) {
	doc := []byte(`{"status":"success","results":[{"ok":true,"result":{"id":"d62cd0c5c7ca9b5d","n":3,"tags":["a"]}}],"help":{"schema_fingerprint":"sf1-0123"}}`)
	for _, tc := range []struct {
		path, want, err string
	}{
		{"status", "success", ""},
		{"results.0.result.id", "d62cd0c5c7ca9b5d", ""},
		{"results.0.result.n", "3", ""},
		{"results.0.result.tags", `["a"]`, ""},
		{"results.0.ok", "true", ""},
		{"help.schema_fingerprint", "sf1-0123", ""},
		{"results.1.result", "", `"results" has 1 items; "1" is not one of its indices`},
		{"help.verbs", "", `"help" has no member "verbs"`},
		{"status.x", "", `"status" is not an object or an array`},
	} {
		got, err := member(doc, tc.path)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one saying %s", tc.path, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.path, got, err, tc.want)
		}
	}
}
