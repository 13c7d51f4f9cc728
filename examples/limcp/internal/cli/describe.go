//go:build unix

package cli

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/projector/fromcobra"
)

// paramDescriptions are the descriptions a model reads in each verb's
// schema, by command path and parameter (schema name): what the parameter
// is, its format and range, an example where the format is not obvious.
// Cobra has no help text for the words of a Use line, and a flag's usage
// line is written for a person at a terminal; these are written for a
// caller that has nothing but the schema. The CLI's own --help is
// unchanged. (The model parameters' descriptions are live, from the
// server: the providers usable now.)
var paramDescriptions = map[string]map[string]string{
	"agent": {
		"prompt": "the prompt text the agent runs on (or give prompt_file instead; at most 1 MiB)",
	},
	"fanout": {
		"prompt": "the prompt every invocation runs on (or give prompt_file instead; at most 1 MiB)",
		"count":  "how many invocations to run concurrently, 1 to 64",
	},
	"flow": {
		"prompt": "the prompt the flow's steps see as {{.prompt}} (or give prompt_file instead)",
		"spec":   "path of the flow spec: YAML with steps [{id, model, prompt, depends_on}]; a file under the server's roots, at most 1 MiB",
	},
	"play": {
		"playbook": "the playbook's name (its file is playbooks/NAME.playbook.yaml in the state home); help {\"verb\": \"play.submit\", \"playbook\": NAME} adds its own args",
		"prompt":   "the prompt the playbook's steps see as {{.prompt}} (or give prompt_file instead)",
	},
	"job status": {
		"ids": "run ids, each the full 16-hex-digit id or a unique prefix of at least 8, e.g. [\"d62cd0c5\"]; at most 256, no repeats",
	},
	"job output": {
		"id":   "a run id: the full 16-hex-digit id or a unique prefix of at least 8",
		"tail": "only the last N lines of each stream; 0 (the default) keeps everything up to 64 KiB, the end kept",
	},
	"job wait": {
		"ids":                   "run ids to wait for, each the full 16-hex-digit id or a unique prefix of at least 8; at most 256, no repeats",
		"max_wait_seconds":      "how long to wait at most, in seconds, 0 to 300 (default 25; 0 takes one snapshot); expiry is a result, not an error",
		"poll_interval_seconds": "seconds between observations, 0.25 to 30 (default 1); a run's end wakes the wait earlier",
	},
	"kill": {
		"id":    "the run to stop: the full 16-hex-digit id or a unique prefix of at least 8; a play, session or invocation (a show is refused)",
		"grace": "how long the run's processes get between SIGTERM and SIGKILL, a duration such as 5s or 500ms (default 5s)",
	},
	"schedule add": {
		"name":    "the schedule's name: 1 to 64 letters, digits, '.', '_' or '-'",
		"command": "the spawn command to run, as limcp argv words without the program, e.g. [\"agent\", \"echo\", \"nightly check\"]; it must start with agent, fanout, flow or play",
	},
	"schedule show":   {"name": "the schedule's name (schedule.list lists them)"},
	"schedule remove": {"name": "the schedule's name (schedule.list lists them)"},
	"team create":     {"name": "the team board's name: 1 to 64 letters, digits, '.', '_' or '-'"},
	"team post": {
		"team":    "the team board to post on (team.list lists them)",
		"message": "the message text",
	},
	"team read": {"team": "the team board to read (team.list lists them)"},
}

// describe records paramDescriptions on the tree's commands. A path or
// parameter that no longer exists makes the walk refuse that command with
// the annotation named (fromcobra.Constrain), so the table cannot drift
// silently.
func describe(root *cobra.Command) {
	for path, params := range paramDescriptions {
		c, _, err := root.Find(strings.Fields(path))
		if err != nil || c == root {
			panic("cli: paramDescriptions names no command " + path)
		}
		for name, d := range params {
			fromcobra.Constrain(c, name, fromcobra.Constraint{Description: d})
		}
	}
}
