package yamldoc

import (
	"errors"
	"strings"
	"testing"
)

type doc struct {
	Name  string   `yaml:"name"`
	Steps []string `yaml:"steps"`
}

// TestDecode: one row per rule of Decode.
func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     error  // a sentinel, or nil
		wantText string // a substring of another error
	}{
		{"one document decodes", "name: a\nsteps: [x, y]\n", nil, ""},
		{"empty content is ErrEmpty", "", ErrEmpty, ""},
		{"comments only are ErrEmpty", "# nothing here\n", ErrEmpty, ""},
		{"a second document is refused", "name: a\n---\nsteps: [x]\n", ErrMultipleDocuments, ""},
		{"an empty second document is refused too", "name: a\n---\n", ErrMultipleDocuments, ""},
		{"an unknown field is refused, naming it", "name: a\ndepnds_on: [b]\n", nil, "depnds_on"},
		{"a wrong type is refused", "steps: 3\n", nil, "cannot unmarshal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d doc
			err := Decode([]byte(tc.in), &d)
			switch {
			case tc.want != nil:
				if !errors.Is(err, tc.want) {
					t.Fatalf("Decode = %v, want %v", err, tc.want)
				}
			case tc.wantText != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantText) {
					t.Fatalf("Decode = %v, want an error mentioning %q", err, tc.wantText)
				}
			default:
				if err != nil || d.Name != "a" || len(d.Steps) != 2 {
					t.Fatalf("Decode = %v, %+v", err, d)
				}
			}
		})
	}
}

// TestErrorsQuoteOnlyExcerpts: a file that is not what it claims (a secret
// named as a spec) never comes back whole in a decoder error.
func TestErrorsQuoteOnlyExcerpts(t *testing.T) {
	type doc struct {
		Steps []string `yaml:"steps"`
	}
	secret := "root_SECRET_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	for _, body := range []string{
		secret + ": 1\n",
		"steps: []\n" + secret + ": 1\n" + secret + ": 2\n",
		"steps: [" + secret + ": {\n",
	} {
		err := Decode([]byte(body), &doc{})
		if err == nil {
			t.Fatalf("%q decoded", body)
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error quotes the whole line: %v", err)
		}
	}
	if got := Excerpt(strings.Repeat("é", 30)); len(got) > MaxExcerpt+len(`""…`)+1 {
		t.Errorf("Excerpt too long: %s", got)
	}
}
