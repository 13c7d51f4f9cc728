//go:build unix

package textfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok")
	os.WriteFile(ok, []byte("hello"), 0o644)
	big := filepath.Join(dir, "big")
	os.WriteFile(big, []byte(strings.Repeat("x", 11)), 0o644)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(ok, 10); err != nil || string(b) != "hello" {
		t.Fatalf("Read ok: %q %v", b, err)
	}
	for _, c := range []struct {
		path string
		want error
	}{
		{big, ErrTooLarge},
		{fifo, ErrNotRegular},
		{"/dev/zero", ErrNotRegular},
		{dir, ErrNotRegular},
		{filepath.Join(dir, "missing"), fs.ErrNotExist},
	} {
		start := time.Now()
		_, err := Read(c.path, 10)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.path, err, c.want)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: took %s", c.path, d)
		}
	}
}
