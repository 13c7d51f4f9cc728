//go:build unix

package verbsurface

import (
	"strings"
	"testing"
)

// TestStaleFingerprintMessageSaysDiffers: a stale fingerprint's message
// says the schemas differ, not that the schema changed since the caller
// read it: the server cannot tell a change from a fingerprint read from
// another server or environment (a description that lists what is on the
// server's PATH differs between two of them).
func TestStaleFingerprintMessageSaysDiffers(t *testing.T) {
	fx := newFixture(t)
	resp := fx.do(t, `{"ops":[{"op":"agent.submit","args":{"model":"m","prompt":"p"},"fingerprint":"sf1-0000000000000000"}]}`)
	r := result(t, resp, 0)
	if errCode(r) != CodeStaleFingerprint {
		t.Fatalf("result %v", r)
	}
	msg, _ := r["error"].(map[string]any)["message"].(string)
	if !strings.Contains(msg, "differs") || strings.Contains(msg, "changed since") {
		t.Errorf("message %q: want it to say the schema differs, not that it changed", msg)
	}
}
