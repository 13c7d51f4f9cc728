//go:build unix

package verbsurface

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

func TestEditDistance(t *testing.T) {
	tests := []struct {
		rule string
		a, b string
		want int
	}{
		{"identical", "job.status", "job.status", 0},
		{"one substitution", "job.statos", "job.status", 1},
		{"one insertion", "job.statuss", "job.status", 1},
		{"one deletion", "job.statu", "job.status", 1},
		{"an adjacent transposition is one edit", "job.stauts", "job.status", 1},
		{"empty against a word", "", "abc", 3},
		{"a rune is one character", "stéte", "state", 1},
		{"only the first 64 runes count", strings.Repeat("a", 64) + "xyz", strings.Repeat("a", 64), 0},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			if got := editDistance(tt.a, tt.b); got != tt.want {
				t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
			if got := editDistance(tt.b, tt.a); got != tt.want {
				t.Errorf("editDistance(%q, %q) = %d, want %d (not symmetric)", tt.b, tt.a, got, tt.want)
			}
		})
	}
}

// TestHostileNamesStaySmall: a caller-chosen name of 128 KiB (a verb,
// a fenced spelling, a parameter, an envelope key) costs the surface
// little against 600 registered verbs, and every message and reason
// quotes it clipped. Only "op" and "param", which echo the exact name by
// contract, carry it in full.
func TestHostileNamesStaySmall(t *testing.T) {
	s := syntheticSurface(t, 600)
	huge := strings.Repeat("é", 1<<16) // 128 KiB
	send := func(req any) *Response {
		t.Helper()
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		return s.Handle(context.Background(), b, nil)
	}
	op := func(name string, args map[string]any) *Response {
		t.Helper()
		o := map[string]any{"op": name}
		if args != nil {
			o["args"] = args
		}
		resp := send(map[string]any{"ops": []any{o}})
		if len(resp.Results) != 1 || resp.Results[0].Error == nil {
			t.Fatalf("want one failed op, got %.300s", resp.JSON())
		}
		return resp
	}

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	resp := op(huge, nil)
	runtime.ReadMemStats(&after)
	// Without the 64-rune cap on edit distances this allocates two rune
	// slices of the whole name per candidate: about 300 MB here.
	if n := after.TotalAlloc - before.TotalAlloc; n > 32<<20 {
		t.Errorf("an unknown 128 KiB verb name allocated %d MB", n>>20)
	} else {
		t.Logf("an unknown 128 KiB verb name against 600 verbs allocated %.1f MB", float64(n)/(1<<20))
	}
	e := resp.Results[0].Error
	if e.Code != CodeUnknownVerb || len(e.Message) > 300 || len(e.Matches) != 0 || resp.Results[0].Op != huge {
		t.Errorf("unknown verb: code %s, message %d bytes, matches %q, op echoed exactly: %v",
			e.Code, len(e.Message), e.Matches, resp.Results[0].Op == huge)
	}

	if e := op("state.migrate "+huge, nil).Results[0].Error; e.Code != CodeNotAllowed || len(e.Message) > 400 {
		t.Errorf("fenced name: code %s, message %d bytes", e.Code, len(e.Message))
	}

	resp = op("synth.cmd001", map[string]any{"id": "x", huge: 1})
	if ps := resp.Results[0].Error.Problems; len(ps) != 1 || ps[0].Param != huge || len(ps[0].Reason) > 300 {
		t.Errorf("unknown parameter: want one problem naming it exactly with a clipped reason, got %.300s", resp.JSON())
	}

	resp = send(map[string]any{"help": true, huge: 1})
	if e := resp.Error; e == nil || len(e.Problems) != 1 || e.Problems[0].Param != huge || len(e.Problems[0].Reason) > 300 || len(e.Message) > 400 {
		t.Errorf("unknown envelope key: want one problem naming it exactly with a clipped reason and message, got %.300s", resp.JSON())
	}
}

// TestWithinOneEditAgreesWithEditDistance checks the fence's fast test
// against the table it replaces on every pair of short strings over a
// small alphabet (so every substitution, insertion, deletion and
// transposition of up to four runes occurs), a multi-byte rune among them,
// and on names longer than the compared prefix.
func TestWithinOneEditAgreesWithEditDistance(t *testing.T) {
	alphabet := []string{"a", "b", "é"}
	words := []string{""}
	for n, level := 0, []string{""}; n < 4; n++ {
		var next []string
		for _, w := range level {
			for _, r := range alphabet {
				next = append(next, w+r)
			}
		}
		words, level = append(words, next...), next
	}
	long := strings.Repeat("x", maxDistanceRunes)
	words = append(words, long, long+"y", long+"yz", "y"+long, long[1:])
	for _, a := range words {
		for _, b := range words {
			if got, want := withinOneEdit(a, b), editDistance(a, b) <= 1; got != want {
				t.Fatalf("withinOneEdit(%q, %q) = %v, editDistance = %d", a, b, got, editDistance(a, b))
			}
		}
	}
}
