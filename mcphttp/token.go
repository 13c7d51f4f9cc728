//go:build unix

package mcphttp

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// maxTokenFileBytes bounds what is read of a token file: a token is one
// short line, and the file is named by the operator, not a client, but a
// mistaken path (a log, a device) should not be read whole.
const maxTokenFileBytes = 4096

// ReadTokenFile returns the bearer token in path: its first line, trimmed.
// The file must be a regular file owned by the server's user and neither
// readable nor writable by group or others; a token that others could read
// authenticates nobody in particular. Each refusal says what is wrong and
// the command that fixes it. It does not check the token's length
// ([Listen] does). A front reads the file the operator names
// (--token-file) with it; there is no token flag, since a flag's value is
// visible to every local user in the process list.
func ReadTokenFile(path string) (string, error) {
	return readTokenFile(path, 0)
}

// ReadSecretFile is [ReadTokenFile] for another secret the operator keeps
// in a file, such as the server's own OAuth client secret (there is no
// flag or YAML key for its value, for the same reason): the same checks,
// each refusal naming the file as a client secret file.
func ReadSecretFile(path string) (string, error) {
	return readSecret(secretNames{file: "client secret file", secret: "client secret"}, path, 0)
}

// secretNames are the words a refusal uses for what a file holds.
type secretNames struct{ file, secret string }

// readTokenFile is ReadTokenFile with extra open flags (O_NOFOLLOW for the
// generated file, whose path the operator did not name).
func readTokenFile(path string, flags int) (string, error) {
	return readSecret(secretNames{file: "token file", secret: "token"}, path, flags)
}

func readSecret(what secretNames, path string, flags int) (string, error) {
	// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
	// writer; the type check below refuses it without reading.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|flags, 0)
	if err != nil {
		return "", fmt.Errorf("mcphttp: %s %s: %w", what.file, path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("mcphttp: %s %s: %w", what.file, path, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("mcphttp: %s %s is not a regular file (%s)", what.file, path, fi.Mode().Type())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return "", fmt.Errorf("mcphttp: %s %s is owned by uid %d, not by this server's user (uid %d): chown it, then chmod 600 %s", what.file, path, st.Uid, os.Geteuid(), path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return "", &looseTokenFileError{what: what, path: path, perm: perm}
	}
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFileBytes))
	if err != nil {
		return "", fmt.Errorf("mcphttp: %s %s: %w", what.file, path, err)
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	tok := string(bytes.TrimSpace(line))
	if tok == "" {
		return "", fmt.Errorf("mcphttp: %s %s: %w", what.file, path, errEmptyToken)
	}
	return tok, nil
}

var errEmptyToken = errors.New("the first line is empty")

// looseTokenFileError is a token file that group or others may read or
// write: whoever could read it may hold the token already.
type looseTokenFileError struct {
	what secretNames
	path string
	perm fs.FileMode
}

func (e *looseTokenFileError) Error() string {
	return fmt.Sprintf("mcphttp: %s %s is readable or writable by group or others (mode %04o); anyone who read it holds the %s: replace the %s and chmod 600 %s",
		e.what.file, e.path, e.perm, e.what.secret, e.what.secret, e.path)
}

// EnsureTokenFile returns the bearer token kept in DIR/NAME, generating it
// when there is none: 32 bytes from crypto/rand, 43 characters of
// unpadded base64url. The file is written to a private temporary file
// (0600) in dir and linked into place, so a reader never sees half a
// token and two servers starting at once agree on one. Dir is created
// 0700 if missing (an existing directory's mode is not changed here: the
// front that chose it says whether it must be private). The file is
// opened without following a symbolic link: its path was chosen by the
// front, not named by the operator.
//
// An existing file is reused when ReadTokenFile accepts it and its token
// is at least MinTokenLength long; an empty or short one is replaced; one
// with the wrong owner or mode is refused, since it may have been read.
// generated reports whether this call wrote the token.
func EnsureTokenFile(dir, name string) (path, token string, generated bool, err error) {
	if name == "" || name != filepath.Base(name) || name == "." || name == ".." {
		return "", "", false, fmt.Errorf("mcphttp: EnsureTokenFile: %q is not a file name", name)
	}
	home := dir
	path = filepath.Join(home, name)
	if err := os.MkdirAll(home, 0o700); err != nil {
		return path, "", false, fmt.Errorf("mcphttp: token file: %w", err)
	}
	for attempt := 0; attempt < 3; attempt++ {
		tok, err := readTokenFile(path, syscall.O_NOFOLLOW)
		replace := false
		switch {
		case err == nil && len(tok) >= MinTokenLength:
			return path, tok, false, nil
		case err == nil || errors.Is(err, errEmptyToken):
			replace = true // too short or empty: never served, so never given out
		case errors.Is(err, fs.ErrNotExist):
		default:
			var loose *looseTokenFileError
			if errors.As(err, &loose) {
				return path, "", false, fmt.Errorf("%v (or remove it, and a new one is generated)", err)
			}
			return path, "", false, err
		}
		tok, err = newToken()
		if err != nil {
			return path, "", false, err
		}
		won, err := placeTokenFile(home, name, path, tok, replace)
		if err != nil {
			return path, "", false, err
		}
		if won {
			return path, tok, true, nil
		}
		// Another server placed one first: read it on the next turn.
	}
	return path, "", false, fmt.Errorf("mcphttp: token file %s: it kept changing while being read", path)
}

func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("mcphttp: generating the bearer token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// placeTokenFile writes tok to a temporary 0600 file in home and moves it
// to path: by rename when replacing a bad file, else by link, which fails
// if path appeared meanwhile (won is then false and nothing is changed).
func placeTokenFile(home, name, path, tok string, replace bool) (won bool, err error) {
	f, err := os.CreateTemp(home, "."+name+"-*")
	if err != nil {
		return false, fmt.Errorf("mcphttp: token file: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	// CreateTemp makes the file 0600; Chmod states it whatever the umask.
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return false, fmt.Errorf("mcphttp: token file: %w", err)
	}
	if _, err := f.WriteString(tok + "\n"); err != nil {
		f.Close()
		return false, fmt.Errorf("mcphttp: token file: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return false, fmt.Errorf("mcphttp: token file: %w", err)
	}
	if err := f.Close(); err != nil {
		return false, fmt.Errorf("mcphttp: token file: %w", err)
	}
	if replace {
		if err := os.Rename(tmp, path); err != nil {
			return false, fmt.Errorf("mcphttp: token file: %w", err)
		}
		return true, nil
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, fmt.Errorf("mcphttp: token file: %w", err)
	}
	return true, nil
}
