package fromcobra

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/verbsurface/verbsurface/projector/internal/argsgen"
)

// FuzzRoundTripCobra is the round-trip property as a fuzz target: the
// fuzzer's strings and numbers fill the string, list, number and positional
// parameters of the fixture's "types" and "variadic" commands; whatever
// validation (jsonschema-go) accepts must render and parse back through cobra
// to exactly those values, and whatever it rejects RenderArgv must refuse.
// The seed corpus is the hostile corpus of argsgen.Hostile.
//
//	go test -run='^$' -fuzz=FuzzRoundTripCobra -fuzztime=30s ./projector/fromcobra/
func FuzzRoundTripCobra(f *testing.F) {
	for i, s := range argsgen.Hostile {
		next := argsgen.Hostile[(i+1)%len(argsgen.Hostile)]
		f.Add(s, next, int64(i-10), float64(i)/3-7, i%2 == 0)
	}
	f.Add("--help", "--", int64(math.MaxInt32)+1, math.Copysign(0, -1), true)
	f.Add("a,b", `"`, int64(-1)<<53, 1e300, false)
	f.Add("x\r\ny", "", int64(0), 1+0x1p-24, true) // a float32 midpoint: rounded once, to even
	tree := fixtureTree(f)
	types, variadic := mustFind(f, tree, "types"), mustFind(f, tree, "variadic")
	rsTypes, rsVariadic := resolved(f, types), resolved(f, variadic)
	f.Fuzz(func(t *testing.T, s1, s2 string, n int64, x float64, b bool) {
		args := map[string]any{
			"target": s1, "name": s2, "model": s1, "prompt": s2,
			"tags": []any{s1, s2}, "items": []any{s2}, "labels": []any{},
			"count": n, "i32": n, "u8": n, "nums": []any{n, -n},
			"f64": x, "f32": x, "enabled": b, "color": !b, "timeout": s2,
		}
		if b {
			delete(args, "prompt")
			delete(args, "timeout")
		}
		checkRoundTrip(t, types, rsTypes, jsonDecoded(t, args))
		checkRoundTrip(t, variadic, rsVariadic, jsonDecoded(t, map[string]any{"name": s2, "args": []any{s1, s2, "--"}, "profile": s1}))
	})
}

// jsonDecoded returns args as a JSON decoder hands them over (numbers as
// float64); a value JSON cannot carry (NaN, invalid UTF-8 is replaced) is
// dropped so the property is about what a caller can send.
func jsonDecoded(t *testing.T, args map[string]any) map[string]any {
	raw, err := json.Marshal(args)
	if err != nil {
		for k, v := range args {
			if _, err := json.Marshal(v); err != nil {
				delete(args, k)
			}
		}
		if raw, err = json.Marshal(args); err != nil {
			t.Fatal(err)
		}
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
