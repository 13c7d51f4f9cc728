//go:build unix

package verbsurface

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHelpTrueAsString: an older client's help "true" (the string) gets
// the catalog, exactly as help true does; only that exact spelling does,
// every other string stays a verb name.
func TestHelpTrueAsString(t *testing.T) {
	fx := newFixture(t)
	catalog := fx.do(t, `{"help":true}`)
	tests := []struct {
		rule, req   string
		wantCatalog bool
	}{
		{"the string true is the catalog", `{"help":"true"}`, true},
		{"the string true beside ops is the catalog", `{"ops":[{"op":"job.list"}],"help":"true"}`, true},
		{"another case is a verb name", `{"help":"True"}`, false},
		{"padded is a verb name", `{"help":" true"}`, false},
		{"yes is a verb name", `{"help":"yes"}`, false},
		{"the object form's verb true is a verb name", `{"help":{"verb":"true"}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			resp := fx.do(t, tt.req)
			if tt.wantCatalog {
				if d := cmp.Diff(catalog["help"], resp["help"]); d != "" || resp["status"] != StatusSuccess {
					t.Fatalf("status %v; help differs from help true's catalog (-true +\"true\"):\n%s", resp["status"], d)
				}
				return
			}
			h, _ := resp["help"].(map[string]any)
			e, _ := h["error"].(map[string]any)
			if e["code"] != CodeUnknownVerb {
				t.Fatalf("response %v; want unknown_verb", resp)
			}
		})
	}
}

// TestRegisterRefusesTrue: no verb or synonym may be named "true", which
// help reads as the catalog.
func TestRegisterRefusesTrue(t *testing.T) {
	for _, v := range []Verb{
		{Name: "true", Class: ClassObserve, Path: []string{"true"}, Summary: "s"},
		{Name: "job.truth", Class: ClassObserve, Path: []string{"truth"}, Summary: "s", Synonyms: []string{"true"}},
	} {
		r, err := NewRegistry(nil)
		if err != nil {
			t.Fatal(err)
		}
		err = r.Register(v)
		if err == nil || !strings.Contains(err.Error(), `"true" is reserved`) {
			t.Errorf("Register(%s, synonyms %q) = %v; want the name refused as reserved", v.Name, v.Synonyms, err)
		}
	}
}
