package portablejson

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, tc := range []struct {
		name, data, want string // want: a word of the error, "" for none
	}{
		{"plain values pass", `{"a":[1,-2.5e10,"x",true,null]}`, ""},
		{"a surrogate pair passes", `"\ud83d\ude00"`, ""},
		{"a number beyond a double", `{"n":1e400}`, "beyond the range"},
		{"a negative one", `[-1e400]`, "beyond the range"},
		{"a tiny number passes (it is zero)", `1e-400`, ""},
		{"a lone high surrogate", `["\ud800"]`, "half a surrogate"},
		{"a high surrogate before a non-surrogate", `"\ud800\u0041"`, "half a surrogate"},
		{"a lone low surrogate", `"a\udc00"`, "half a surrogate"},
		{"an escaped backslash before u is no escape", `"\\ud800"`, ""},
		{"nesting at the bound passes", deep(MaxDepth), ""},
		{"nesting past it", deep(MaxDepth + 1), "deeper than 512"},
		{"brackets in strings do not nest", `"` + strings.Repeat("[", 2000) + `"`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check([]byte(tc.data))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Check: %v; want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Check: %v; want an error saying %q", err, tc.want)
			}
		})
	}
}
