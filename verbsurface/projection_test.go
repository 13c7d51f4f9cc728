package verbsurface

import (
	"strconv"
	"testing"
)

// TestDynamicCacheIsBounded: dynamic values are chosen by callers, so the
// projections cached for them must not grow without bound, and filling the
// dynamic slots never evicts a verb's base projection.
func TestDynamicCacheIsBounded(t *testing.T) {
	var c projectionCache
	base := &projection{}
	c.put("play.submit", "k", base)
	for i := range 3 * maxDynamicEntries {
		c.put("play.submit\x00book"+strconv.Itoa(i), "k", &projection{})
		if n := len(c.dynamic); n > maxDynamicEntries {
			t.Fatalf("%d dynamic entries after %d puts, want at most %d", n, i+1, maxDynamicEntries)
		}
	}
	if c.get("play.submit", "k") != base {
		t.Error("filling the dynamic slots evicted the base projection")
	}
	if c.get("play.submit", "other key") != nil {
		t.Error("a projection was served for a different command")
	}
}
