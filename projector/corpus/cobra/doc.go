// Package cobracorpus walks real third-party cobra CLIs with fromcobra,
// in-process, exactly as a fork fronting one of them would: yq
// (github.com/mikefarah/yq/v4), kind (sigs.k8s.io/kind) and crane
// (github.com/google/go-containerregistry). Its tests pin the share of each
// CLI's offerable commands that project cleanly (a golden report, at least
// 90 % each), name the reason of every command that does not, and run the
// round-trip property (generated valid args → RenderArgv → the CLI's own
// cobra tree → the same values) over every command that does.
//
// It is a module of its own (with a replace directive to the library) so
// that the library's module graph stays small: the CLIs' dependencies are
// fetched and compiled only to run this corpus. Run it from this directory
// with `go vet ./... && go test ./...` (.ci/run does).
package cobracorpus
