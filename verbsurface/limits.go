package verbsurface

import (
	"container/list"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"
)

// Defaults of the request limits in [Options], each taken when its field
// is zero. A negative value turns that limit off.
const (
	// DefaultMaxResponseBytes caps one response: 4 MiB.
	DefaultMaxResponseBytes = 4 << 20
	// DefaultSpawnsPerMinute is how many spawn ops one client may start
	// in a minute.
	DefaultSpawnsPerMinute = 60
)

// DefaultMaxInFlight is how many commands run at once through one surface
// when Options.MaxInFlight is zero: twice the CPUs this process may use.
func DefaultMaxInFlight() int { return 2 * runtime.NumCPU() }

// fifoSlots is a counting semaphore that grants in arrival order: a
// caller that arrives while others wait queues behind them, even if a
// slot happens to be free for an instant, so a stream of new requests
// cannot starve an old one.
type fifoSlots struct {
	mu      sync.Mutex
	free    int
	waiters list.List // of chan struct{}, closed when granted
}

func newFIFOSlots(n int) *fifoSlots { return &fifoSlots{free: n} }

// acquire takes a slot, waiting in line; it gives up only when ctx ends.
func (s *fifoSlots) acquire(ctx context.Context) error {
	s.mu.Lock()
	if s.free > 0 && s.waiters.Len() == 0 {
		s.free--
		s.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	e := s.waiters.PushBack(ch)
	s.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		select {
		case <-ch:
			// Granted while giving up: pass the slot on.
			s.mu.Unlock()
			s.release()
		default:
			s.waiters.Remove(e)
			s.mu.Unlock()
		}
		return ctx.Err()
	}
}

// release returns a slot, to the first in line if anyone waits.
func (s *fifoSlots) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if front := s.waiters.Front(); front != nil {
		s.waiters.Remove(front)
		close(front.Value.(chan struct{}))
		return
	}
	s.free++
}

// limitedExec runs the surface's Runner under the in-flight cap: every
// command, whether an op renders it or a handler runs it, holds a slot
// while it runs, so no mix of requests, sessions and JSON-RPC batches runs
// more commands at once than the cap.
type limitedExec struct {
	inner Runner
	slots *fifoSlots
}

func (l *limitedExec) Run(ctx context.Context, argv []string) (json.RawMessage, error) {
	if err := l.slots.acquire(ctx); err != nil {
		return nil, &queueError{err: err}
	}
	defer l.slots.release()
	return l.inner.Run(ctx, argv)
}

// queueError is a command that never started because its caller gave up
// while it waited for a slot.
type queueError struct{ err error }

func (e *queueError) Error() string {
	return fmt.Sprintf("gave up waiting for a free slot to run the command (%v); it did not run", e.err)
}
func (e *queueError) ErrorCode() string { return CodeCancelled }
func (e *queueError) Unwrap() error     { return e.err }

// spawnLimiter is a token bucket per client: each holds up to perMinute
// tokens and regains perMinute per minute; a spawn op takes one.
type spawnLimiter struct {
	perMinute int
	now       func() time.Time
	mu        sync.Mutex
	buckets   map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

// maxBuckets bounds the limiter's memory: past it, full buckets (clients
// idle for a minute or more, who would start full anyway) are dropped.
const maxBuckets = 4096

// take takes a token for key, or reports how long until one is there.
func (l *spawnLimiter) take(key string) (ok bool, retryAfter time.Duration) {
	n, retryAfter := l.takeUpTo(key, 1)
	return n == 1, retryAfter
}

// takeUpTo takes as many of n tokens for key as the bucket holds now and
// returns how many it took; when that is fewer than n, retryAfter is how
// long until the next one is there.
func (l *spawnLimiter) takeUpTo(key string, n int) (took int, retryAfter time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, rate := l.refill(key)
	took = max(0, min(n, int(math.Floor(b.tokens))))
	b.tokens -= float64(took)
	if took < n { // so fewer than one token is left
		retryAfter = time.Duration((1 - b.tokens) / rate)
	}
	return took, retryAfter
}

// give returns n unused tokens to key's bucket, never past its capacity.
func (l *spawnLimiter) give(key string, n int) {
	if n <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b, _ := l.refill(key)
	b.tokens = math.Min(float64(l.perMinute), b.tokens+float64(n))
}

// refill returns key's bucket brought up to now, and the refill rate in
// tokens per nanosecond. l.mu is held.
func (l *spawnLimiter) refill(key string) (*bucket, float64) {
	now := l.now()
	rate := float64(l.perMinute) / float64(time.Minute)
	b := l.buckets[key]
	if b == nil {
		if len(l.buckets) >= maxBuckets {
			for k, old := range l.buckets {
				if old.tokens+float64(now.Sub(old.at))*rate >= float64(l.perMinute) {
					delete(l.buckets, k)
				}
			}
		}
		b = &bucket{tokens: float64(l.perMinute), at: now}
		l.buckets[key] = b
	}
	b.tokens = math.Min(float64(l.perMinute), b.tokens+float64(now.Sub(b.at))*rate)
	b.at = now
	return b, rate
}

// SpawnTokens is what the handler of a verb marked [Verb].Spawns holds of
// its client's spawn bucket ([Options].SpawnsPerMinute): the handler takes
// one token for each run it is about to start, tells the command it runs
// how many it may start (a budget), and gives back the tokens of the runs
// that were not started. An op so costs what the same runs submitted one
// by one would cost, and starts no more than the bucket admits. It is
// safe for concurrent use.
type SpawnTokens struct {
	buckets spawnBuckets // none limited: no limit
	verb    string
	mu      sync.Mutex
	held    int           // taken and not given back
	retry   time.Duration // from the last Take that fell short
	limit   int           // the limit that fell short (per minute)
	subject bool          // whether that limit is the subject's own
}

// Limit is the runs a client may start per minute; 0 means no limit. With
// a per-subject limit too, it is the smaller of the two.
func (t *SpawnTokens) Limit() int {
	b := t.buckets
	switch {
	case b.total != nil && b.subject != nil:
		return min(b.total.perMinute, b.subject.perMinute)
	case b.total != nil:
		return b.total.perMinute
	case b.subject != nil:
		return b.subject.perMinute
	}
	return 0
}

// Take takes up to n tokens, as many as the bucket holds now, and returns
// how many it took: each is one run the handler may start. Without a limit
// it returns n. n below 1 takes nothing.
func (t *SpawnTokens) Take(n int) int {
	if n < 1 {
		return 0
	}
	if !t.buckets.limited() {
		return n
	}
	took, retry, limit, subject := t.buckets.takeUpTo(n)
	t.mu.Lock()
	t.held += took
	if took < n {
		t.retry, t.limit, t.subject = retry, limit, subject
	}
	t.mu.Unlock()
	return took
}

// Return gives back n of the tokens taken (runs not started after all);
// more than is held is given back as what is held.
func (t *SpawnTokens) Return(n int) {
	if !t.buckets.limited() || n < 1 {
		return
	}
	t.mu.Lock()
	n = min(n, t.held)
	t.held -= n
	t.mu.Unlock()
	t.buckets.give(n)
}

// RetryAfter is how long until the bucket holds another token, as the last
// Take that got fewer than it asked for found it (0 if none fell short).
func (t *SpawnTokens) RetryAfter() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.retry
}

// Refusal is the error a handler returns when it could take no token and
// so started nothing: the op becomes rate_limited with the limit and
// retry_after, exactly as a spawn op over the rate.
func (t *SpawnTokens) Refusal() error {
	t.mu.Lock()
	limit, subject := t.limit, t.subject
	t.mu.Unlock()
	if limit == 0 {
		limit = t.Limit()
	}
	return &rateLimitError{verb: t.verb, limit: limit, retry: t.RetryAfter(), subject: subject}
}

// rateLimitError is a handler's rate_limited refusal (SpawnTokens.Refusal).
type rateLimitError struct {
	verb    string
	limit   int
	retry   time.Duration
	subject bool // the limit is the caller's subject's own
}

func (e *rateLimitError) Error() string {
	return rateLimitedBy(&Verb{Name: e.verb}, e.limit, e.retry, e.subject).Message
}
func (e *rateLimitError) ErrorCode() string { return CodeRateLimited }

// rateLimited is the error of a spawn op over its client's rate.
func rateLimited(v *Verb, perMinute int, retryAfter time.Duration) *ErrorObject {
	return rateLimitedBy(v, perMinute, retryAfter, false)
}

// rateLimitedBy is rateLimited, saying whether the rate is the caller's
// subject's own (Options.SubjectSpawnsPerMinute).
func rateLimitedBy(v *Verb, perMinute int, retryAfter time.Duration, subject bool) *ErrorObject {
	secs := int(math.Ceil(retryAfter.Seconds()))
	if secs < 1 {
		secs = 1
	}
	who := "this client"
	if subject {
		who = "the caller's subject"
	}
	return &ErrorObject{Code: CodeRateLimited, Limit: perMinute, RetryAfter: secs,
		Message: fmt.Sprintf("%s was not started: %s may start %d runs a minute and has used them; retry after %d s", v.Name, who, perMinute, secs)}
}

// responseTooLarge is the error that replaces an op's result when the
// result would take the response past the cap.
func responseTooLarge(op string, size, used, limit int) *ErrorObject {
	return &ErrorObject{Code: CodeResponseTooLarge, Limit: limit,
		Message: fmt.Sprintf("the result of %s (%d bytes) would take the response past its cap of %d bytes (%d already used); "+
			"the op ran, but its result is dropped: ask for less (fewer ids, a tail) or send it in a request of its own", short(op), size, limit, used)}
}
