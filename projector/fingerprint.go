package projector

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaFingerprintPrefix and ContentFingerprintPrefix version the two
// fingerprint formats; a change of canonical form changes the prefix, so an
// old fingerprint can never match a new one by accident.
const (
	SchemaFingerprintPrefix  = "sf1-"
	ContentFingerprintPrefix = "pf1-"
)

// Fingerprint returns the schema fingerprint of verb with schema: a short
// prefix plus the first 16 hex digits of SHA-256 over canonical JSON of
// {"verb": verb, "schema": schema}.
//
// Canonical JSON here is: object keys sorted bytewise, no insignificant
// whitespace, no HTML escaping, numbers as jsonschema-go marshals them. So
// the value depends only on the schema's content (not on property order or
// on the process), and any change to a parameter's name, type, default,
// choices, arity or requiredness changes it. It proves the schema a caller
// validated against is the schema that runs; it does not prove the caller
// read it.
func Fingerprint(verb string, schema *jsonschema.Schema) (string, error) {
	if schema == nil {
		return "", fmt.Errorf("projector: fingerprint of verb %q: nil schema", verb)
	}
	canon, err := canonicalFingerprintInput(verb, schema)
	if err != nil {
		return "", fmt.Errorf("projector: fingerprint of verb %q: %w", verb, err)
	}
	sum := sha256.Sum256(canon)
	return SchemaFingerprintPrefix + hex.EncodeToString(sum[:8]), nil
}

// ContentFingerprint returns the fingerprint of dynamic-parameter content
// (a playbook file's bytes): "pf1-" plus the first 16 hex digits of its
// SHA-256. An inject function (see [Injector]) returns it for what it read.
func ContentFingerprint(content []byte) string {
	sum := sha256.Sum256(content)
	return ContentFingerprintPrefix + hex.EncodeToString(sum[:8])
}

// canonicalFingerprintInput returns the canonical JSON of
// {"schema": schema, "verb": verb}: written directly when the schema keeps to
// the emitted keywords, through canonicalJSON otherwise.
func canonicalFingerprintInput(verb string, schema *jsonschema.Schema) ([]byte, error) {
	b := make([]byte, 0, 2048)
	b = append(b, `{"schema":`...)
	if b, ok := appendCanonicalSchema(b, schema); ok {
		b = append(b, `,"verb":`...)
		b = appendString(b, verb)
		return append(b, '}'), nil
	}
	return canonicalJSON(map[string]any{"verb": verb, "schema": schema})
}

// canonicalJSON marshals v, then re-encodes the result with sorted keys
// (encoding/json sorts map keys) and numbers kept verbatim.
func canonicalJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(generic); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
