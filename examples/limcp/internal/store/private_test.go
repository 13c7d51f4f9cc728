//go:build unix

package store

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestStoreFilesArePrivateWhateverTheUmask: with umask 0 (the widest) and
// umask 022, a new home is 0700 and the store, its WAL and -shm are 0600;
// a pre-existing 0755 home and 0644 store are tightened on open. Not
// parallel: the umask is the process's.
func TestStoreFilesArePrivateWhateverTheUmask(t *testing.T) {
	for _, mask := range []int{0, 0o022} {
		old := syscall.Umask(mask)
		func() {
			defer syscall.Umask(old)
			ctx := context.Background()
			home := filepath.Join(t.TempDir(), "home")
			path := filepath.Join(home, "state.db")
			s, err := Open(ctx, path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.CreateTeam(ctx, "t"); err != nil { // a write: WAL and -shm exist
				t.Fatal(err)
			}
			checkModes(t, home, path)
			s.Close()

			// An older home, made wide by hand: tightened by the next open.
			os.Chmod(home, 0o755)
			os.Chmod(path, 0o644)
			s, err = Open(ctx, path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			checkModes(t, home, path)
		}()
	}
}

func checkModes(t *testing.T, home, path string) {
	t.Helper()
	for p, want := range map[string]os.FileMode{home: 0o700, path: 0o600, path + "-wal": 0o600, path + "-shm": 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %#o, want %#o", filepath.Base(p), fi.Mode().Perm(), want)
		}
	}
}

// TestNoCreateLeavesAnEmptyHomeEmpty: a reader on a home with no store gets
// an empty store at the current version and nothing is written to disk; a
// store that exists is opened as usual.
func TestNoCreateLeavesAnEmptyHomeEmpty(t *testing.T) {
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "home")
	path := filepath.Join(home, "state.db")
	s, err := Open(ctx, path, Options{NoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Empty() || s.Path() != path {
		t.Errorf("Empty %v Path %s", s.Empty(), s.Path())
	}
	if v, err := s.Version(ctx); err != nil || v != CurrentVersion {
		t.Errorf("version %d %v", v, err)
	}
	if teams, err := s.Teams(ctx); err != nil || len(teams) != 0 {
		t.Errorf("teams %v %v", teams, err)
	}
	s.Close()
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Fatalf("NoCreate created %s: %v", home, err)
	}
	w, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.CreateTeam(ctx, "t")
	w.Close()
	r, err := Open(ctx, path, Options{NoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if teams, _ := r.Teams(ctx); r.Empty() || len(teams) != 1 {
		t.Errorf("an existing store was not opened: empty %v teams %v", r.Empty(), teams)
	}
}
