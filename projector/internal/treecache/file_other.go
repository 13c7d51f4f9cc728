//go:build !unix

package treecache

import (
	"errors"
	"os"
)

// fileIdentity fails where the platform does not say who owns a file: the
// cache is not used there.
func fileIdentity(string) (string, error) {
	return "", errors.New("no file identity on this platform")
}

func privateDir(string) bool { return false }

func openPrivate(string) (*os.File, error) {
	return nil, errors.New("no private files on this platform")
}
