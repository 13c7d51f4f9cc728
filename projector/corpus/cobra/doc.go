// Package cobracorpus measures the projector on real third-party cobra
// CLIs, each pinned by version in this module's go.mod: yq
// (github.com/mikefarah/yq/v4), kind (sigs.k8s.io/kind), crane
// (github.com/google/go-containerregistry) and kustomize
// (sigs.k8s.io/kustomize/kustomize/v5).
//
// # In-process
//
// fromcobra walks each CLI's root command in-process, exactly as a fork
// fronting one of them would. The tests pin the share of each CLI's
// offerable commands that project cleanly (testdata/report.golden.json,
// at least 90 % each), name the reason of every command that does not,
// and run the round-trip property (generated valid args → RenderArgv →
// the CLI's own cobra tree → the same values) over every command that
// does.
//
// # From the installed binary
//
// The same CLIs are built from the same module versions (`go build -o
// FILE MAIN` from this directory, once: the binaries are kept in
// $VERBSURFACE_CORPUS_BIN, else the user's cache directory under
// verbsurface/cobra-corpus, named with their version) and read by
// fromcobrabin from their completion protocol and --help alone. The
// help-derived tree is compared command by command with the in-process
// walk (TestHelpAgreesWithInProcess; testdata/help.golden.json holds the
// report, every difference named): the same commands, and for each the
// same runnable-ness, aliases, parameters and option strings, and the
// same schema once descriptions are removed — same names, kinds,
// arities, defaults, bounds, patterns and positionals. What help cannot
// show is listed in the report (unknowables) and cleared from the
// in-process tree first: required flags, flag groups, choices,
// annotations, descriptions, and the Args validator where it departs
// from the Use line (counted apart: identical_strict is the share
// without clearing that one). The goals are every command found and none
// invented, at least 95 % identical, and no flag whose value-ness (boolean
// or value) differs. TestHelpRoundTrip runs the round-trip property over
// the help-derived trees, parsing with the in-process roots.
//
// It is a module of its own (with a replace directive to the library) so
// that the library's module graph stays small: the CLIs' dependencies are
// fetched and compiled only to run this corpus. Run it from this directory
// with `go vet ./... && go test ./...` (.ci/run does).
package cobracorpus
