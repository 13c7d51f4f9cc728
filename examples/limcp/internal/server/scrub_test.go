//go:build unix

package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/dispatch"
)

// TestScrubber: an error's words and details lose the server's paths and
// keep everything else: the code, the details' shape, errors.Is.
func TestScrubber(t *testing.T) {
	s := newScrubber("/opt/tools/bin/limcp", "/srv/state/limcp")
	for _, tt := range []struct {
		name        string
		err         error
		msg         string
		code        string
		coded       bool
		detailsWant string
	}{
		{name: "a dispatch failure names the program as limcp, without dispatch's prefix",
			err: &dispatch.Error{Kind: dispatch.KindTimeout, Program: "/opt/tools/bin/limcp", Args: []string{"--json", "job", "list"}, Problem: "did not finish"},
			msg: "limcp --json job list: did not finish", code: "timeout", coded: true, detailsWant: "limcp --json job list"},
		{name: "a CLI error's message and details lose the home",
			err: &dispatch.CLIError{Code: "invalid_config", Message: "invalid config /srv/state/limcp/config.yaml: bad",
				Details: []byte(`{"file":"/srv/state/limcp/config.yaml"}`), Program: "/opt/tools/bin/limcp"},
			msg: "", code: "cli_error", coded: true, detailsWant: "$LIMCP_HOME/config.yaml"},
		{name: "a plain error stays uncoded", err: fmt.Errorf("reading /srv/state/limcp/x: %w", context.Canceled),
			msg: "reading $LIMCP_HOME/x: context canceled"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := s.err(tt.err)
			if !errors.Is(got, tt.err) {
				t.Error("errors.Is no longer reaches the original")
			}
			if tt.msg != "" && got.Error() != tt.msg {
				t.Errorf("message %q; want %q", got.Error(), tt.msg)
			}
			if strings.Contains(got.Error(), "/srv/") || strings.Contains(got.Error(), "/opt/") {
				t.Errorf("message %q names a server path", got.Error())
			}
			var c interface{ ErrorCode() string }
			if errors.As(got, &c) != tt.coded || (tt.coded && c.ErrorCode() != tt.code) {
				t.Errorf("code: coded %v; want coded %v with %q", errors.As(got, &c), tt.coded, tt.code)
			}
			var d interface{ ErrorDetails() map[string]any }
			if tt.coded {
				if !errors.As(got, &d) {
					t.Fatal("the details are gone")
				}
				text := fmt.Sprint(d.ErrorDetails())
				if strings.Contains(text, "/srv/") || strings.Contains(text, "/opt/") || !strings.Contains(text, tt.detailsWant) {
					t.Errorf("details %s; want %q and no server path", text, tt.detailsWant)
				}
			}
		})
	}
	if s.err(nil) != nil {
		t.Error("a nil error became one")
	}
}
