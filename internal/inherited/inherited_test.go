//go:build unix

package inherited_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/verbsurface/verbsurface/internal/inherited"
	"golang.org/x/sys/unix"
)

// openInheritable opens path without close-on-exec, as a shell's 7<path
// leaves a descriptor, and returns it.
func openInheritable(t *testing.T, path string) int {
	t.Helper()
	fd, err := syscall.Open(path, syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC != 0 {
		t.Fatalf("the test's descriptor is close-on-exec already (%v): it proves nothing", err)
	}
	return fd
}

// A descriptor held without close-on-exec reaches a child before
// CloseOnExec and not after it; a file handed over as ExtraFiles still
// does.
func TestCloseOnExec(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fd := openInheritable(t, secret)
	given, err := os.Open(secret)
	if err != nil {
		t.Fatal(err)
	}
	defer given.Close()
	// The child reads its descriptor fd, then its fd 3 (the ExtraFiles one).
	read := func() (string, string) {
		cmd := exec.Command("sh", "-c", "cat <&"+strconv.Itoa(fd)+" 2>/dev/null; echo; cat <&3 2>/dev/null")
		cmd.ExtraFiles = []*os.File{given}
		out, _ := cmd.Output()
		if _, err := given.Seek(0, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := unix.Seek(fd, 0, 0); err != nil {
			t.Fatal(err)
		}
		inherited, handed, _ := strings.Cut(string(out), "\n")
		return inherited, handed
	}
	if inherited, _ := read(); inherited != "s3cret" {
		t.Fatalf("before: the child read %q through the inherited descriptor; want the secret (the test proves nothing)", inherited)
	}
	if err := inherited.CloseOnExec(); err != nil {
		t.Fatal(err)
	}
	inherited, handed := read()
	if inherited != "" {
		t.Errorf("after CloseOnExec the child still read %q through descriptor %d", inherited, fd)
	}
	if !strings.Contains(handed, "s3cret") {
		t.Errorf("a file handed over as ExtraFiles no longer reaches the child: %q", handed)
	}
	for _, std := range []int{0, 1, 2} {
		if flags, err := unix.FcntlInt(uintptr(std), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC != 0 {
			t.Errorf("descriptor %d was marked close-on-exec", std)
		}
	}
}
