//go:build unix

package dispatch

import (
	"os"
	"runtime"
	"testing"
)

// TestCaptureReusesItsReadBuffer: the 32 KiB read buffer of a capture goes
// back to a pool when its reader stops, so commands run one after another
// allocate what they print, not a fresh buffer for each stream. 64
// captures of a short output allocate far less than the 2 MiB that 64
// fresh buffers would be, and each keeps exactly what was written.
func TestCaptureReusesItsReadBuffer(t *testing.T) {
	const n = 64
	capture1 := func(i int) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		c := newCapture(r, "stdout", 1<<20, false, make(chan string, 1))
		go c.run()
		want := []byte(`{"result_version":1,"ok":true,"data":` + string(rune('0'+i%10)) + `}`)
		w.Write(want)
		w.Close()
		<-c.done
		r.Close()
		if string(c.bytes()) != string(want) {
			t.Fatalf("capture %d kept %q, want %q", i, c.bytes(), want)
		}
	}
	capture1(0) // the pool's first buffer
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range n {
		capture1(i)
	}
	runtime.ReadMemStats(&after)
	// Without the pool: at least n*chunkSize. With it, about nothing; under
	// the race detector, which makes the pool drop a quarter of what is
	// put back at random, about a quarter of that. Half tells them apart.
	if grown := after.TotalAlloc - before.TotalAlloc; grown > n*chunkSize/2 {
		t.Fatalf("%d captures allocated %d bytes, as if each took a fresh %d-byte read buffer", n, grown, chunkSize)
	}
}

// BenchmarkCapture reads one short result through a pipe, as every command
// does twice (stdout and stderr).
func BenchmarkCapture(b *testing.B) {
	out := []byte(`{"result_version":1,"ok":true,"data":{"records":[]}}`)
	b.ReportAllocs()
	for b.Loop() {
		r, w, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		c := newCapture(r, "stdout", 1<<20, false, make(chan string, 1))
		go c.run()
		w.Write(out)
		w.Close()
		<-c.done
		r.Close()
	}
}
