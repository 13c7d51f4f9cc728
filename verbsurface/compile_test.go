package verbsurface

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestCompileValidatorErrors: a schema outside the projected subset is
// refused with an error that wraps ErrSchemaSubset, speaks with the
// package's prefix, names the keyword, and cites no internal contract.
func TestCompileValidatorErrors(t *testing.T) {
	for _, s := range []*jsonschema.Schema{nil, {Type: "object", Title: "x"}} {
		_, err := CompileValidator(s)
		if !errors.Is(err, ErrSchemaSubset) || !strings.HasPrefix(err.Error(), "verbsurface: CompileValidator: ") || strings.Contains(err.Error(), "contract") {
			t.Errorf("schema %+v: %v", s, err)
		}
	}
	if _, err := CompileValidator(&jsonschema.Schema{Type: "object", Title: "x"}); err == nil || !strings.Contains(err.Error(), `"title"`) {
		t.Errorf("the error does not name the keyword: %v", err)
	}
}
