package oauth

import (
	"crypto/sha256"
	"sync"
	"time"
)

// tokenKey is the cache key of a token: its SHA-256, so a cache never
// holds a token itself.
func tokenKey(parts ...string) [sha256.Size]byte {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

// cache holds at most max values, each until its own deadline. It is
// safe for concurrent use.
type cache[V any] struct {
	mu  sync.Mutex
	max int
	seq uint64
	m   map[[sha256.Size]byte]cached[V]
}

type cached[V any] struct {
	v     V
	until time.Time
	seq   uint64 // insertion order, to break ties between deadlines
}

func newCache[V any](max int) *cache[V] {
	return &cache[V]{max: max, m: make(map[[sha256.Size]byte]cached[V])}
}

// get returns k's value if it is held and its deadline is after now.
func (c *cache[V]) get(k [sha256.Size]byte, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok || !now.Before(e.until) {
		delete(c.m, k)
		var zero V
		return zero, false
	}
	return e.v, true
}

// put holds v under k until until (nothing if that is not after now).
// When the cache is full, the values past their deadline go first, then
// the one whose deadline is nearest (the oldest among equals).
func (c *cache[V]) put(k [sha256.Size]byte, v V, until, now time.Time) {
	if !now.Before(until) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; !ok && len(c.m) >= c.max {
		for key, e := range c.m {
			if !now.Before(e.until) {
				delete(c.m, key)
			}
		}
		for len(c.m) >= c.max {
			var victim [sha256.Size]byte
			var first *cached[V]
			for key, e := range c.m {
				if first == nil || e.until.Before(first.until) || (e.until.Equal(first.until) && e.seq < first.seq) {
					victim, first = key, &e
				}
			}
			delete(c.m, victim)
		}
	}
	c.seq++
	c.m[k] = cached[V]{v: v, until: until, seq: c.seq}
}
