// Package yamldoc decodes the state home's YAML files (playbooks, flow
// specs, providers.yaml, config.yaml) by one rule: exactly one document,
// and no field the Go type does not declare. A misspelt field (depends_on)
// or a second document after "---" would otherwise be ignored in silence,
// and a file that says more than the program reads is a file that lies.
package yamldoc

import (
	"bytes"
	"errors"
	"io"

	"go.yaml.in/yaml/v3"
)

// Errors of Decode other than YAML's own.
var (
	// ErrEmpty: the content holds no YAML document. For an optional
	// settings file this means "nothing set"; for a spec it is an error.
	ErrEmpty = errors.New("the file holds no YAML document")
	// ErrMultipleDocuments: a second document follows the first.
	ErrMultipleDocuments = errors.New("the file holds more than one YAML document")
)

// Decode decodes the one YAML document in b into v, refusing unknown
// fields. It returns ErrEmpty when b holds no document and
// ErrMultipleDocuments when it holds more than one; any other error is the
// YAML decoder's, which names the line.
func Decode(b []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return ErrEmpty
		}
		return err
	}
	if err := dec.Decode(new(yaml.Node)); !errors.Is(err, io.EOF) {
		return ErrMultipleDocuments
	}
	return nil
}
