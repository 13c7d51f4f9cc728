//go:build unix

package server

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// stdin returns the server's standard input in the runtime's poller when
// it is a pipe or a socket (what an MCP client hands a stdio server), and
// os.Stdin otherwise. os.Stdin reads with a blocking read(2) that holds an
// OS thread between requests, and each request's arrival then moved the
// reading goroutine between threads; in the poller it waits as a socket
// read does. restore puts the descriptor back in blocking mode; call it
// once serving ends.
func stdin() (r io.ReadCloser, restore func()) {
	if f, restore := pollable(0, "/dev/stdin"); f != nil {
		return f, restore
	}
	return os.Stdin, func() {}
}

// pollable makes the pipe or socket fd non-blocking and returns it as an
// *os.File in the runtime's poller (os.NewFile registers a non-blocking
// descriptor), or nil for anything else: putting a terminal or a file in
// non-blocking mode would change it for every other process sharing it,
// and a regular file cannot be polled anyway.
func pollable(fd int, name string) (*os.File, func()) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, nil
	}
	if kind := st.Mode & unix.S_IFMT; kind != unix.S_IFIFO && kind != unix.S_IFSOCK {
		return nil, nil
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		return nil, nil
	}
	return os.NewFile(uintptr(fd), name), func() { _ = unix.SetNonblock(fd, false) }
}

// stdout is the server's standard output, which the MCP connection must
// not close (the process writes to it after the session ends).
type stdout struct{ *os.File }

func (stdout) Close() error { return nil }
