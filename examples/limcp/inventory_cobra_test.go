//go:build unix

package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestInventoryCobraBinary: `limcp inventory --cobra BINARY` reads an
// installed cobra program's tree from its completion protocol and --help
// — here limcp's own binary, read from outside: its offered commands are
// found (its hidden ones are not), and the report names the source.
func TestInventoryCobraBinary(t *testing.T) {
	e := newEnv(t)
	var inv inventory
	e.ok(&inv, "inventory", "--cobra", limcpBin)
	if inv.Source != "cobra:"+limcpBin || inv.Commands < 10 || inv.Params.Total == 0 {
		t.Fatalf("inventory of limcp's binary:\n%s", mustJSON(t, inv))
	}
	if len(inv.Fenced) != 0 {
		t.Errorf("a cobra binary is fenced by default: %v", inv.Fenced)
	}
	var own inventory
	e.ok(&own, "inventory")
	if inv.Commands > own.Commands {
		t.Errorf("help shows %d commands, the in-process walk %d (hidden ones included)", inv.Commands, own.Commands)
	}
}

// TestInventoryCobraRefusals: a program that cannot be read is an
// inventory_failed error naming it and the kind of failure.
func TestInventoryCobraRefusals(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct{ name, bin, kind string }{
		{"no such program", filepath.Join(t.TempDir(), "nothing"), "launch"},
		{"not a cobra program", "/bin/echo", "protocol"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.fail("inventory_failed", "inventory", "--cobra", tc.bin)
			var d struct{ Target, Kind string }
			if err := json.Unmarshal(r.Error.Details, &d); err != nil || d.Kind != tc.kind || d.Target != tc.bin || !strings.Contains(r.Error.Message, tc.bin) {
				t.Fatalf("details = %s (%s), want kind %s and target %s", r.Error.Details, r.Error.Message, tc.kind, tc.bin)
			}
		})
	}
	e.fail("invalid_argument", "inventory", "--cobra", limcpBin, "--argparse", "zipfile:main")
}
