//go:build unix

// Package provider resolves a model name to the thing that runs an agent
// invocation, and runs it.
//
// # Model names
//
//	echo                          the built-in echo provider, default options
//	echo:delay=2s,exit=3,stderr=x the built-in echo provider with options
//	claude, codex, gemini[:MODEL] a built-in preset (below), when its program is on PATH
//	NAME                          the command provider NAME from providers.yaml
//	NAME:MODEL                    the same, with {model} = MODEL in its argv
//
// A name is looked up in providers.yaml first (where an entry may override
// or disable a preset of the same name), then among the presets.
//
// The echo provider is deterministic and never touches the network: it
// waits delay (a Go duration, default 0), writes the prompt verbatim to
// stdout, writes the stderr option (if any) to stderr, and exits with the
// exit option (default 0). It runs inside the worker process, so the
// worker is the whole process group.
//
// # Command providers
//
// A command provider is declared in <home>/providers.yaml:
//
//	providers:
//	  - name: local
//	    argv: ["my-agent", "--model", "{model}", "--quiet"]
//
// Each argv element may use the placeholders {model}, {id} (the record id),
// {cwd} (the run's working directory) and {run_dir}; no others. The prompt
// is written to the command's stdin. argv[0] is found on PATH (or taken as
// a path, relative to the submitter's directory) and made absolute when the
// model is resolved, so a provider whose command does not exist is refused
// at submit time, not discovered later by the worker, and the run's --cwd
// cannot change which program runs.
//
// An entry's env names variables passed through from limcp's environment
// (beyond the rule of package runenv), set adds fixed ones, and output
// names the format of its stdout ([OutputFormats]): a JSON format makes the
// worker extract the final answer and the reported error ([Extract]).
//
// # Presets
//
// [Presets] are command providers for the agent programs people already
// have — Claude Code (claude), Codex CLI (codex), Gemini CLI (gemini) —
// each the program's documented non-interactive invocation, cited beside
// its definition, with the prompt on stdin, the program's JSON output and
// its API key variables passed through. No preset passes a flag that skips
// permission prompts, approvals or a sandbox: only an operator's
// providers.yaml override can add one, and a caller's model name cannot
// (it must match [ModelPattern], and [Resolved.Expand] refuses a slot
// value starting with "-"). A preset whose program is not on PATH is
// provider_not_found at submit, naming the program. [Availabilities]
// reports which presets and providers are usable now and why not, and
// [ModelHelp] words it as a model parameter's description.
//
// Resolution snapshots the provider into a [Resolved] that the run record
// stores: a run executes the provider as it was configured when submitted.
package provider
