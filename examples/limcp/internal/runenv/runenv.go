//go:build unix

package runenv

import (
	"slices"
	"strings"

	"github.com/verbsurface/verbsurface/dispatch"
)

// Withheld is the one LIMCP_* variable never passed on: the HTTP bearer
// token of `limcp mcp` (server.TokenEnv; a test holds them equal). A run
// that saw it could call the server as any client.
const Withheld = "LIMCP_MCP_TOKEN"

// Prefix admits limcp's own variables (LIMCP_HOME, LIMCP_NOTIFY_URL, …):
// they say where state lives and how a run reports its end.
const Prefix = "LIMCP_*"

// Build returns base filtered by the rule, with the variables named in pass
// also kept. It never adds a variable and never keeps [Withheld], even
// when pass names it.
func Build(base []string, pass ...string) []string {
	env := dispatch.AllowlistEnv(base, append([]string{Prefix}, pass...)...)
	out := env[:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, Withheld+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// CommandOnly are the LIMCP_* variables a server sets for the one command
// it runs (its timeout, its own pid: cli.CommandTimeoutEnv,
// cli.ParentPIDEnv). They say nothing about a run, and a limcp command an
// agent runs inside one must not take them for its own: [ForRun] drops
// them.
var CommandOnly = []string{"LIMCP_COMMAND_TIMEOUT", "LIMCP_PARENT_PID"}

// ForRun is [Build] without [CommandOnly]: the environment of what
// outlives the command that started it (a run's worker, a delivery).
func ForRun(base []string, pass ...string) []string {
	env := Build(base, pass...)
	out := env[:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(CommandOnly, name) {
			out = append(out, kv)
		}
	}
	return out
}
