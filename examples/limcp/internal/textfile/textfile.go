// Package textfile reads the files limcp reads — flow specs, playbooks,
// providers.yaml, config.yaml, prompt files — by one rule: a regular file,
// opened without blocking, read up to a cap. A FIFO, a device (/dev/zero)
// or a socket is refused before a byte is read, so a path someone else
// chose can neither hang the CLI nor grow it without bound.
package textfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Errors of Read besides the open's own (errors.Is(err, fs.ErrNotExist)
// still reports a missing file).
var (
	// ErrNotRegular: the path is a directory, FIFO, device or socket.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file holds more than the cap.
	ErrTooLarge = errors.New("larger than the limit")
)

// Read returns the content of the regular file at path, refusing one
// larger than limit bytes. Its errors name what went wrong, never the
// content.
func Read(path string, limit int64) ([]byte, error) {
	// O_NONBLOCK: opening a FIFO would otherwise wait for a writer; the
	// type check below refuses it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(st.Mode()))}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w of %d bytes", ErrTooLarge, limit)}
	}
	return b, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}
