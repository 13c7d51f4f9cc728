//go:build unix

package server_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/server"
)

// TestCommandEnvironment: the CLI commands the server runs see the
// environment rule — no canary secret, no bearer token — but the server's
// home and notify URL and LIMCP_*; the names providers.yaml passes
// through reach only the commands that start runs (agent.submit here),
// never an observe command. The "CLI" is a script that reports what it
// sees as a machine result.
func TestCommandEnvironment(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "providers.yaml"),
		[]byte("providers:\n  - name: p\n    argv: [cat]\n    env: [ANTHROPIC_API_KEY]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "fake-limcp")
	if err := os.WriteFile(script, []byte(`#!/bin/sh
printf '{"result_version":1,"ok":true,"data":{"canary":"%s","token":"%s","declared":"%s","home":"%s","notify":"%s","other":"%s","path":"%s"}}\n' \
  "${CANARY_SECRET-unset}" "${LIMCP_MCP_TOKEN-unset}" "${ANTHROPIC_API_KEY-unset}" "${LIMCP_HOME-unset}" \
  "${LIMCP_NOTIFY_URL-unset}" "${LIMCP_OTHER-unset}" "${PATH-unset}"
`), 0o700); err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Options{Home: home, Executable: script, NewRoot: freshRoot, NoStoreSignal: true,
		Env: []string{"PATH=/usr/bin:/bin", "CANARY_SECRET=canary", "LIMCP_MCP_TOKEN=tok", "ANTHROPIC_API_KEY=key",
			"LIMCP_OTHER=kept", "LIMCP_HOME=/not/the/home"}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var help struct {
		Help struct {
			SchemaFingerprint string `json:"schema_fingerprint"`
		} `json:"help"`
	}
	if err := json.Unmarshal(srv.Surface().Handle(context.Background(), json.RawMessage(`{"help":"agent.submit"}`), nil).JSON(), &help); err != nil {
		t.Fatal(err)
	}
	resp := srv.Surface().Handle(context.Background(), json.RawMessage(`{"ops":[{"op":"job.status","args":{"ids":["abcdefgh"]}},`+
		`{"op":"agent.submit","args":{"model":"echo","prompt":"x"},"fingerprint":"`+help.Help.SchemaFingerprint+`"}]}`), nil)
	if len(resp.Results) != 2 || !resp.Results[0].OK || !resp.Results[1].OK {
		t.Fatalf("job.status, agent.submit: %s", resp.JSON())
	}
	for i, declared := range []string{"unset", "key"} {
		var got map[string]string
		if err := json.Unmarshal(resp.Results[i].Result, &got); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"canary": "unset", "token": "unset", "declared": declared, "home": home,
			"notify": srv.NotifyURL(), "other": "kept", "path": "/usr/bin:/bin"}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: the CLI command sees %s = %q; want %q", resp.Results[i].Op, k, got[k], v)
			}
		}
	}
}
