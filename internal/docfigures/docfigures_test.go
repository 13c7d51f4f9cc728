package docfigures

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	page := "# Figures\n" +
		"| tools/list | <!-- figure: tool_bytes -->**947 B** (<!-- figure: tool_ratio -->9.2x) |\n" +
		"an unmarked 123 is not a figure\n" +
		"catalog <!--figure: catalog_line_bytes--> 56.2 B and <!-- figure: big -->8,683 B\n"
	got, err := Parse(page)
	if err != nil {
		t.Fatal(err)
	}
	want := []Figure{
		{"tool_bytes", "947", 947, 2},
		{"tool_ratio", "9.2", 9.2, 2},
		{"catalog_line_bytes", "56.2", 56.2, 4},
		{"big", "8,683", 8683, 4},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("figure %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestParseRefusesAMarkerWithoutANumber(t *testing.T) {
	_, err := Parse("a\n<!-- figure: lost --> no number <!-- figure: next -->5\n")
	if err == nil || !strings.Contains(err.Error(), `line 2: figure "lost"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestMatchesAtTheWrittenPrecision(t *testing.T) {
	for _, tc := range []struct {
		text string
		got  float64
		want bool
	}{
		{"56.2", 56.2391, true},
		{"56.2", 56.26, false},
		{"947", 947, true},
		{"947", 948, false},
		{"9.2", 9.169, true},
		{"8,683", 8683, true},
	} {
		figs, err := Parse("<!-- figure: x -->" + tc.text)
		if err != nil {
			t.Fatal(err)
		}
		if got := figs[0].Matches(tc.got); got != tc.want {
			t.Errorf("%s matches %v = %v, want %v", tc.text, tc.got, got, tc.want)
		}
	}
}
