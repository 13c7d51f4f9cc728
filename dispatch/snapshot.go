//go:build unix

package dispatch

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Snapshots ([PromptSnapshots], [FileSnapshots]) are written to a private
// file and, where the platform can hand an open file to a child by name
// (/dev/fd/N: Linux, macOS, FreeBSD with fdescfs), unlinked at once: the
// file then has no name on disk at all, and nothing is left behind
// however the server ends, SIGKILL included. The path a preparer puts in
// the args is then a key, not a file: a [Runner] that meets it in argv,
// whole or as the value of --option=VALUE, passes the open file to the
// command as an inherited descriptor and renders /dev/fd/N in its place;
// the command reads the snapshot through that name. A runner of another
// kind resolves a key with [Snapshot]. Where /dev/fd/N is not available,
// the snapshot keeps its name until cleanup (and a killed server leaves it
// in the snapshot directory).

// snapshots are the live unlinked snapshots, by key.
var snapshots sync.Map // string → *os.File

// fdNames reports whether /dev/fd/N opens this process's descriptor N,
// which passing a snapshot by descriptor needs; checked once.
var fdNames = sync.OnceValue(func() bool {
	f, err := os.CreateTemp("", "dispatch-fd-probe-*")
	if err != nil {
		return false
	}
	defer os.Remove(f.Name())
	defer f.Close()
	a, err1 := f.Stat()
	b, err2 := os.Stat("/dev/fd/" + strconv.Itoa(int(f.Fd())))
	return err1 == nil && err2 == nil && os.SameFile(a, b)
})

// writeSnapshot writes content to a new private file in dir (0600, a name
// no one else can claim: O_EXCL) and returns the key the args carry and
// the release that ends it (closing, or removing a named one); release is
// safe to call more than once. On any failure nothing is left behind.
func writeSnapshot(dir, pattern string, content []byte) (string, func(), error) {
	if dir == "" {
		dir = os.TempDir()
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", nil, fmt.Errorf("dispatch: cannot create a prompt snapshot in %s: %w", dir, err)
	}
	name := f.Name()
	if abs, err := filepath.Abs(name); err == nil {
		name = abs
	}
	fail := func(err error) (string, func(), error) {
		f.Close()
		os.Remove(name)
		return "", nil, fmt.Errorf("dispatch: cannot write the prompt snapshot %s: %w", name, err)
	}
	if err := f.Chmod(0o600); err != nil { // CreateTemp uses 0600 already; umask cannot widen it, but say so
		return fail(err)
	}
	if _, err := f.Write(content); err != nil {
		return fail(err)
	}
	if fdNames() {
		if err := os.Remove(name); err != nil {
			return fail(err)
		}
		if _, dup := snapshots.LoadOrStore(name, f); dup {
			f.Close() // a name reused after an unlink, and still live: never in practice
			return writeSnapshot(dir, pattern, content)
		}
		var once sync.Once
		return name, func() {
			once.Do(func() {
				snapshots.Delete(name)
				f.Close()
			})
		}, nil
	}
	if err := f.Close(); err != nil {
		os.Remove(name)
		return "", nil, fmt.Errorf("dispatch: cannot write the prompt snapshot %s: %w", name, err)
	}
	var once sync.Once
	return name, func() { once.Do(func() { _ = os.Remove(name) }) }, nil
}

// Snapshot returns the open file of a live snapshot whose key (the path a
// preparer put in the args) is key, read from its start, or nil when key
// names none (a snapshot with a name on disk, or none at all). It is for a
// runner other than [Runner], which resolves snapshots itself. The file
// stays the snapshot's: do not close it.
func Snapshot(key string) *os.File {
	v, ok := snapshots.Load(key)
	if !ok {
		return nil
	}
	f := v.(*os.File)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil
	}
	return f
}

// inheritSnapshots rewrites args (the program first) so that every live
// snapshot key, a whole argument or the value of --option=VALUE, becomes
// /dev/fd/N, and returns the files to hand the command as descriptors
// 3, 4, … (exec.Cmd.ExtraFiles), each read from its start.
func inheritSnapshots(args []string) ([]string, []*os.File) {
	var files []*os.File
	var out []string
	for i, a := range args {
		if i == 0 {
			continue
		}
		key, prefix := a, ""
		if name, val, ok := strings.Cut(a, "="); ok && strings.HasPrefix(name, "-") {
			key, prefix = val, name+"="
		}
		f := Snapshot(key)
		if f == nil {
			continue
		}
		if out == nil {
			out = append([]string(nil), args...)
		}
		out[i] = prefix + "/dev/fd/" + strconv.Itoa(3+len(files))
		files = append(files, f)
	}
	if out == nil {
		return args, nil
	}
	return out, files
}
