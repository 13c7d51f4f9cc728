//go:build unix

// Package provider resolves a model name to the thing that runs an agent
// invocation, and runs it.
//
// # Model names
//
//	echo                          the built-in echo provider, default options
//	echo:delay=2s,exit=3,stderr=x the built-in echo provider with options
//	NAME                          the command provider NAME from providers.yaml
//	NAME:MODEL                    the same, with {model} = MODEL in its argv
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
// Resolution snapshots the provider into a [Resolved] that the run record
// stores: a run executes the provider as it was configured when submitted.
package provider
