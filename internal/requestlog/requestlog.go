package requestlog

import (
	"fmt"
	"io"
	"log/slog"
	"os"
)

// FileEnv names the environment variable that adds a JSON-lines file to
// the request log.
const FileEnv = "VERBSURFACE_LOG_FILE"

// Formats are the values of the --log flag.
var Formats = []string{"off", "text", "json"}

// Open returns the request log's logger for format (one of [Formats])
// on stderr, with the file $VERBSURFACE_LOG_FILE names (getenv reads it)
// besides, and a func that closes the file. It returns a nil logger when
// neither writes anything.
func Open(format string, stderr io.Writer, getenv func(string) string) (*slog.Logger, func() error, error) {
	var handlers []slog.Handler
	switch format {
	case "off", "":
	case "text":
		handlers = append(handlers, slog.NewTextHandler(stderr, nil))
	case "json":
		handlers = append(handlers, slog.NewJSONHandler(stderr, nil))
	default:
		return nil, nil, fmt.Errorf("--log %q: choose off, text or json", format)
	}
	closeFile := func() error { return nil }
	if path := getenv(FileEnv); path != "" {
		f, err := openPrivate(path)
		if err != nil {
			return nil, nil, fmt.Errorf("$%s: %v", FileEnv, err)
		}
		handlers = append(handlers, slog.NewJSONHandler(f, nil))
		closeFile = f.Close
	}
	switch len(handlers) {
	case 0:
		return nil, closeFile, nil
	case 1:
		return slog.New(handlers[0]), closeFile, nil
	}
	return slog.New(slog.NewMultiHandler(handlers...)), closeFile, nil
}

// openPrivate opens path for appending, creating it 0600, and refuses a
// file that is not regular or that others may read or write.
func openPrivate(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	switch {
	case err != nil:
	case !st.Mode().IsRegular():
		err = fmt.Errorf("%s is not a regular file", path)
	case st.Mode().Perm()&0o077 != 0:
		err = fmt.Errorf("%s has mode %v; the request log must be private to its owner (chmod 600)", path, st.Mode().Perm())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
