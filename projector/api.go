package projector

// SCAFFOLD: signatures pinned so packages can build against them in
// parallel. The projector helper replaces these bodies (and may move them
// to project.go, fingerprint.go, render.go, dynamic.go) without changing the
// signatures.

import (
	"github.com/google/jsonschema-go/jsonschema"
)

// Find returns the command at path (matching aliases of each element), or nil.
func (t *Tree) Find(path ...string) *Command { panic("projector: scaffold") }

// Project returns the closed JSON Schema (draft 2020-12) of cmd's args.
// If cmd or any of its parameters is unrepresentable the error is an
// *UnavailableError and the schema is nil.
func Project(cmd *Command) (*jsonschema.Schema, error) { panic("projector: scaffold") }

// UnavailableError says why a command cannot be offered, naming the command
// path, the parameter (if one is to blame) and the offending action or type.
type UnavailableError struct {
	Path   []string
	Param  string
	Action string
	Type   string
	Reason string
}

func (e *UnavailableError) Error() string { panic("projector: scaffold") }

// Fingerprint returns the schema fingerprint of verb with schema: a short
// prefix plus the first 16 hex digits of SHA-256 over canonical JSON of
// {"verb": verb, "schema": schema}.
func Fingerprint(verb string, schema *jsonschema.Schema) (string, error) { panic("projector: scaffold") }

// RenderArgv renders validated args as the argv tail that follows the
// command path: options as --flag=value, then "--" and the positionals.
// It never lets a caller value occupy an option position.
func RenderArgv(t Dialect, cmd *Command, args map[string]any) ([]string, error) {
	panic("projector: scaffold")
}

// Injector performs a CLI's dynamic-parameter injection (a playbook name
// adding the playbook's declared args): given the dynamic parameter's value
// it returns the command as the CLI would parse it after injection, and a
// content fingerprint of what was injected.
type Injector func(value string) (cmd *Command, contentFingerprint string, err error)
