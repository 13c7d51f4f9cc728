package pattern

import (
	"fmt"
	"sync"
	"testing"
)

// One pattern asked for twice, or from many goroutines at once, is one
// compiled value: that is what makes a verb's validator cost no regexp.
func TestCompileSharesOneValuePerPattern(t *testing.T) {
	const p = `^[a-z][a-z0-9-]{0,62}$`
	var wg sync.WaitGroup
	got := make([]any, 16)
	for i := range got {
		wg.Go(func() {
			re, err := Compile(p)
			if err != nil {
				t.Error(err)
			}
			got[i] = re
		})
	}
	wg.Wait()
	for i, re := range got {
		if re != got[0] {
			t.Fatalf("call %d got another compiled value than call 0", i)
		}
	}
	if !got[0].(interface{ MatchString(string) bool }).MatchString("abc-1") {
		t.Fatal("the shared value does not match what the pattern matches")
	}
}

func TestCompileReportsTheRegexpError(t *testing.T) {
	if _, err := Compile(`(`); err == nil {
		t.Fatal("an invalid pattern compiled")
	}
	if _, err := Compile(`(`); err == nil {
		t.Fatal("an invalid pattern compiled the second time (an error must not be cached as a value)")
	}
}

// Past MaxCached distinct patterns a new one still compiles (and works)
// but is not kept: the cache cannot grow without bound.
func TestCompileStopsCachingAtTheBound(t *testing.T) {
	for i := 0; size.Load() < MaxCached; i++ {
		if _, err := Compile(fmt.Sprintf("^fill%d$", i)); err != nil {
			t.Fatal(err)
		}
	}
	a, err := Compile(`^beyond the bound$`)
	if err != nil || !a.MatchString("beyond the bound") {
		t.Fatalf("a pattern past the bound: %v, %v", a, err)
	}
	b, _ := Compile(`^beyond the bound$`)
	if a == b {
		t.Fatal("a pattern past the bound was kept")
	}
	if n := size.Load(); n != MaxCached {
		t.Fatalf("%d patterns kept, want %d", n, MaxCached)
	}
}
