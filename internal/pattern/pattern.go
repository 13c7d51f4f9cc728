// Package pattern compiles the RE2 patterns of projected schemas once per
// process. A CLI's commands share a handful of patterns (no NUL byte, a
// duration, a list item, a model name), and each compiled regexp costs
// tens of kilobytes and tens of microseconds; compiled per verb, a
// 5,000-command CLI spent most of its start-up and its memory compiling
// the same few patterns again. A *regexp.Regexp is safe for concurrent use,
// so one compiled value serves every verb, every validator and every walk.
package pattern

import (
	"regexp"
	"sync"
	"sync/atomic"
)

// MaxCached bounds how many distinct patterns are kept. Patterns come from
// the CLI's parser and the operator's files, not from callers, but a
// dynamic parameter (a playbook) can bring its own: past the bound, a new
// pattern is compiled and not kept, so memory stays bounded whatever the
// CLI declares.
const MaxCached = 4096

var (
	cache sync.Map // string -> *regexp.Regexp: lock-free reads
	mu    sync.Mutex
	size  atomic.Int64 // entries in cache; written under mu
)

// Compile returns the compiled form of p, shared with every other caller
// that asked for the same pattern; the error is regexp.Compile's.
func Compile(p string) (*regexp.Regexp, error) {
	if re, ok := cache.Load(p); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	if prev, ok := cache.Load(p); ok {
		return prev.(*regexp.Regexp), nil
	}
	if size.Load() < MaxCached {
		cache.Store(p, re)
		size.Add(1)
	}
	return re, nil
}
