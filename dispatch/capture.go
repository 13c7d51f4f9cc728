//go:build unix

package dispatch

import (
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// capture reads one output stream of the command from the read end of a
// pipe the runner created itself. Owning the pipe (rather than letting
// os/exec copy into a writer) is what lets the runner stop reading on its
// own terms: a process outside the group may hold the write end open
// forever, and waiting for EOF would hang (see stop).
//
// stdout keeps its head (the result is at the start); stderr keeps its tail
// (the last complaint is what explains a failure). Either way memory stays
// bounded by about twice the cap, and passing the cap is reported once
// through the overflow channel. Reading continues after the cap (the bytes
// are dropped), so a process being terminated is never blocked on a full
// pipe and stderr's tail stays the latest output.
type capture struct {
	f        *os.File
	stream   string // "stdout" or "stderr"
	limit    int64
	keepTail bool
	overflow chan<- string

	buf        []byte
	total      int64
	overflowed atomic.Bool
	progress   chan struct{} // poked after every read, for stop
	done       chan struct{}
}

func newCapture(f *os.File, stream string, limit int64, keepTail bool, overflow chan<- string) *capture {
	return &capture{f: f, stream: stream, limit: limit, keepTail: keepTail, overflow: overflow,
		progress: make(chan struct{}, 1), done: make(chan struct{})}
}

// chunkSize is the read size of a capture: a pipe's default capacity on
// Linux is 64 KiB, and 32 KiB reads take a large output in few calls.
const chunkSize = 32 << 10

// chunks are the captures' read buffers. Every command reads two streams,
// and two fresh 32 KiB chunks per command were the largest allocation of
// a dispatched op, garbage once the command ended; a chunk only ever holds
// bytes between a read and the copy into the capture's own buffer, so it
// goes back to the pool when its reader stops.
var chunks = sync.Pool{New: func() any { return new([chunkSize]byte) }}

// run reads until EOF or until stop makes the read fail. Run it in its own
// goroutine; done is closed when it returns.
func (c *capture) run() {
	defer close(c.done)
	buf := chunks.Get().(*[chunkSize]byte)
	defer chunks.Put(buf)
	chunk := buf[:]
	for {
		n, err := c.f.Read(chunk)
		if n > 0 {
			c.take(chunk[:n])
			select {
			case c.progress <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

func (c *capture) take(p []byte) {
	c.total += int64(len(p))
	if c.total > c.limit && !c.overflowed.Swap(true) {
		select {
		case c.overflow <- c.stream:
		default:
		}
	}
	if !c.keepTail {
		if room := c.limit - int64(len(c.buf)); room > 0 {
			c.buf = append(c.buf, p[:min(int64(len(p)), room)]...)
		}
		return
	}
	c.buf = append(c.buf, p...)
	if int64(len(c.buf)) > 2*c.limit { // compact: keep only the last limit bytes
		c.buf = append(c.buf[:0], c.buf[int64(len(c.buf))-c.limit:]...)
	}
}

// bytes returns what was kept. Call only after done is closed.
func (c *capture) bytes() []byte {
	if c.keepTail && int64(len(c.buf)) > c.limit {
		return c.buf[int64(len(c.buf))-c.limit:]
	}
	return c.buf
}

// drainLimit bounds how long stop waits for an outside writer that keeps
// the pipe non-empty.
const drainLimit = 2 * time.Second

// stop ends reading once everything the (already gone) process group wrote
// has been read. Called only after no member of the group is left, so every
// byte the command produced is already in the pipe or consumed: when the
// pipe's queue is empty (FIONREAD says 0), whatever might still arrive comes
// from a process outside the group (say, detached work that kept the
// inherited stdout) and is not the command's output. Then a read deadline in
// the past unblocks the reader. No fixed delay is involved, so a command that
// leaves its stdout to a detached process costs nothing extra and loses
// nothing.
func (c *capture) stop() {
	select {
	case <-c.done:
		return
	default:
	}
	if rc, err := c.f.SyscallConn(); err == nil {
		deadline := time.Now().Add(drainLimit)
		for time.Now().Before(deadline) {
			pending := -1
			_ = rc.Control(func(fd uintptr) { pending = queuedBytes(fd) })
			if pending <= 0 {
				break
			}
			select { // the reader is behind: let it consume what is queued
			case <-c.done:
				return
			case <-c.progress:
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	_ = c.f.SetReadDeadline(time.Unix(1, 0))
	<-c.done
}
