package projector

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentUse: Project, Fingerprint and RenderArgv are pure functions
// of the model, so the surface may call them on one shared *Command from
// many requests at once. Run with -race: shared state (the compiled-pattern
// cache, first filled here by the goroutines themselves) must be safe, every
// goroutine must get the same answers as a sequential call, and the model
// must come out unchanged.
func TestConcurrentUse(t *testing.T) {
	build := func() *Command {
		c := fingerprintBase()
		c.Params = append(c.Params, &Param{Name: "when", Options: []string{"--when"}, Kind: KindString, Arity: ArityOne, Pattern: `^[0-9]+[smh]$|^concurrent-test$`})
		return c
	}
	cmd := build()
	args := map[string]any{"model": "m", "effort": "high", "tags": []any{"a", "b"}, "files": []any{"--x"}, "when": "5m"}
	answer := func() (string, error) {
		s, err := Project(cmd)
		if err != nil {
			return "", err
		}
		fp, err := Fingerprint("agent.submit", s)
		if err != nil {
			return "", err
		}
		argv, err := RenderArgv(DialectArgparse, cmd, args)
		return fp + " " + strings.Join(argv, " "), err
	}
	const goroutines = 16
	answers := make([]string, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				a, err := answer()
				if err != nil {
					a = fmt.Sprint("error: ", err)
				}
				if answers[g] != "" && answers[g] != a {
					a = "changed between calls: " + answers[g] + " then " + a
				}
				answers[g] = a
			}
		}()
	}
	wg.Wait()
	want, err := answer()
	if err != nil {
		t.Fatal(err)
	}
	for g, a := range answers {
		if a != want {
			t.Errorf("goroutine %d: %s, want %s", g, a, want)
		}
	}
	if !reflect.DeepEqual(cmd, build()) {
		t.Error("projecting and rendering changed the model")
	}
}
