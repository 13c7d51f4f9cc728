//go:build unix

package dispatch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"
)

// Defaults of [PromptSnapshots]: each applies when its field is zero.
const (
	DefaultPromptTextParam = "prompt"
	DefaultPromptFileParam = "prompt_file"
	DefaultMaxPromptBytes  = 1 << 20  // 1 MiB
	DefaultMaxArgBytes     = 64 << 10 // 64 KiB, half the kernel's per-argument limit
)

// maxKernelArgBytes is the kernel's per-argument limit (MAX_ARG_STRLEN,
// 32 pages) less the terminating NUL. MaxArgBytes is clamped below it.
const maxKernelArgBytes = 128<<10 - 1

// PromptSnapshots prepares a spawn verb's prompt arguments after validation
// and before rendering. Use its [PromptSnapshots.Prepare] method as the
// verb's preparer (verbsurface.Preparer). The zero value is ready to use with the documented defaults.
//
// It gives the caller a defined moment at which the prompt is read (submit
// time, not whenever the CLI gets round to it), validation with a clear
// error, and the prompt's SHA-256 in the result; and it keeps large prompts
// out of argv, where the kernel limits each argument to 128 KiB and every
// process listing would show them.
//
// It does not run the command and does not know which CLI flag carries the
// file: rendering maps FileParam to the CLI's option like any other
// parameter. The snapshot exists until cleanup, which the caller runs after
// the command exits, so the CLI must read it before exiting (a spawn command
// copies the prompt for its detached worker rather than passing the path).
// Where the platform allows it has no name on disk: the path in the
// prepared args is a key that a [Runner] turns into an inherited
// descriptor, /dev/fd/N (see the package documentation, "Prompts").
type PromptSnapshots struct {
	// TextParam is the parameter carrying prompt text ("prompt").
	TextParam string
	// FileParam is the parameter carrying a prompt file's absolute path
	// ("prompt_file"). Prepared args always carry a snapshot path here when
	// the prompt does not travel in argv.
	FileParam string
	// MaxPromptBytes caps the prompt from either parameter (1 MiB).
	MaxPromptBytes int64
	// MaxArgBytes is the largest prompt text passed in argv (64 KiB);
	// longer text goes through a snapshot file. Values above the kernel's
	// per-argument limit are clamped below it.
	MaxArgBytes int
	// Dir is where snapshot files are created (os.TempDir()).
	Dir string
	// Open, when set, opens the prompt file instead of opening FileParam's
	// path (read-only, non-blocking): a surface that has already opened
	// the caller's file inside its roots hands that file over here
	// (verbsurface.OpenConfined), so the file read is the file checked.
	// The file it returns is closed after reading.
	Open func(ctx context.Context, param, path string) (*os.File, error)
}

// PromptError is a prompt argument the caller got wrong. Its Param method
// names the parameter, so the surface answers invalid_args with one problem
// on that parameter, the message as the reason.
type PromptError struct {
	Parameter string
	Reason    string
}

// Error returns the reason, which names the file when there is one.
func (e *PromptError) Error() string { return e.Reason }

// Param names the offending parameter.
func (e *PromptError) Param() string { return e.Parameter }

func (p PromptSnapshots) textParam() string {
	if p.TextParam == "" {
		return DefaultPromptTextParam
	}
	return p.TextParam
}

func (p PromptSnapshots) fileParam() string {
	if p.FileParam == "" {
		return DefaultPromptFileParam
	}
	return p.FileParam
}

func (p PromptSnapshots) maxPrompt() int64 {
	if p.MaxPromptBytes <= 0 {
		return DefaultMaxPromptBytes
	}
	return p.MaxPromptBytes
}

func (p PromptSnapshots) maxArg() int {
	switch {
	case p.MaxArgBytes <= 0:
		return DefaultMaxArgBytes
	case p.MaxArgBytes > maxKernelArgBytes:
		return maxKernelArgBytes
	}
	return p.MaxArgBytes
}

// Prepare is a verbsurface.Preparer. args are the validated args;
// they are never modified. The rules, in order:
//
//  1. Neither parameter given: args pass through unchanged, info is empty.
//  2. Both given: a [*PromptError] on FileParam (they are exclusive).
//  3. FileParam given: it must be a string holding an absolute path to a
//     readable regular file of at most MaxPromptBytes, not empty, valid
//     UTF-8; each violation is a [*PromptError] on FileParam naming the
//     file. The content is read once, now, and copied to a private snapshot
//     (mode 0600 in Dir) whose path replaces FileParam, so later edits to
//     the file cannot change what the CLI reads.
//  4. TextParam given: it must be a string of at most MaxPromptBytes. Text
//     longer than MaxArgBytes, or containing a NUL byte (which argv cannot
//     carry), is moved to a snapshot file passed through FileParam;
//     TextParam is then removed. Shorter text stays in argv.
//
// info holds "prompt_sha256" (hex), "prompt_bytes" and "prompt_source"
// (the parameter the prompt came from). cleanup removes the snapshot, is safe
// to call more than once, and is never nil. An error that is not a
// [*PromptError] means the snapshot could not be written (Dir unwritable,
// disk full): not the caller's fault, and nothing is left behind.
func (p PromptSnapshots) Prepare(ctx context.Context, args map[string]any) (prepared map[string]any, info map[string]any, cleanup func(), err error) {
	noop := func() {}
	if err := ctx.Err(); err != nil {
		return nil, nil, noop, err
	}
	textName, fileName := p.textParam(), p.fileParam()
	textVal, hasText := args[textName]
	fileVal, hasFile := args[fileName]
	switch {
	case !hasText && !hasFile:
		return args, map[string]any{}, noop, nil
	case hasText && hasFile:
		return nil, nil, noop, &PromptError{Parameter: fileName,
			Reason: fmt.Sprintf("give either %s or %s, not both", textName, fileName)}
	}

	var content []byte
	source := textName
	if hasFile {
		source = fileName
		path, ok := fileVal.(string)
		if !ok {
			return nil, nil, noop, &PromptError{Parameter: fileName, Reason: fmt.Sprintf("prompt file must be a path string, got %T", fileVal)}
		}
		if content, err = readCallerFile(ctx, fileName, path, "prompt file", p.maxPrompt(), p.Open); err != nil {
			return nil, nil, noop, err
		}
	} else {
		text, ok := textVal.(string)
		if !ok {
			return nil, nil, noop, &PromptError{Parameter: textName, Reason: fmt.Sprintf("prompt must be a string, got %T", textVal)}
		}
		if int64(len(text)) > p.maxPrompt() {
			return nil, nil, noop, &PromptError{Parameter: textName,
				Reason: fmt.Sprintf("prompt is %d bytes, over the %d-byte limit", len(text), p.maxPrompt())}
		}
		content = []byte(text)
	}
	sum := sha256.Sum256(content)
	info = map[string]any{
		"prompt_sha256": hex.EncodeToString(sum[:]),
		"prompt_bytes":  len(content),
		"prompt_source": source,
	}
	if !hasFile && len(content) <= p.maxArg() && !strings.ContainsRune(string(content), 0) {
		return args, info, noop, nil
	}
	snap, release, err := writeSnapshot(p.Dir, "dispatch-prompt-*.txt", content)
	if err != nil {
		return nil, nil, noop, err
	}
	prepared = maps.Clone(args)
	delete(prepared, textName)
	prepared[fileName] = snap
	return prepared, info, release, nil
}

// readCallerFile reads the caller's file once, refusing anything that is
// not a plain, bounded, non-empty UTF-8 text file. what names the file in
// errors ("prompt file"). open, when set, replaces opening path.
func readCallerFile(ctx context.Context, param, path, what string, limit int64, open func(context.Context, string, string) (*os.File, error)) ([]byte, error) {
	bad := func(format string, a ...any) error {
		return &PromptError{Parameter: param, Reason: fmt.Sprintf("%s %q ", what, path) + fmt.Sprintf(format, a...)}
	}
	if path == "" {
		return nil, &PromptError{Parameter: param, Reason: what + " path is empty"}
	}
	if !filepath.IsAbs(path) {
		return nil, bad("is not an absolute path")
	}
	var f *os.File
	var err error
	if open != nil {
		f, err = open(ctx, param, path)
	} else {
		// O_NONBLOCK: opening a FIFO for reading would otherwise wait for
		// a writer forever; the mode check below then refuses it.
		f, err = os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	}
	if err != nil {
		if os.IsNotExist(err) {
			return nil, bad("does not exist")
		}
		return nil, bad("cannot be opened: %v", unwrapPath(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, bad("cannot be read: %v", unwrapPath(err))
	}
	if !st.Mode().IsRegular() {
		kind := "a directory"
		switch m := st.Mode(); {
		case m&os.ModeNamedPipe != 0:
			kind = "not a regular file (a FIFO); nothing was read"
		case m&os.ModeDevice != 0:
			kind = "not a regular file (a device); nothing was read"
		case m&os.ModeSocket != 0:
			kind = "not a regular file (a socket); nothing was read"
		case !st.IsDir():
			kind = fmt.Sprintf("not a regular file (%s)", m.Type())
		}
		return nil, bad("is %s", kind)
	}
	content, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, bad("cannot be read: %v", unwrapPath(err))
	}
	if int64(len(content)) > limit {
		return nil, bad("is over the %d-byte limit (%d bytes or more)", limit, max(st.Size(), limit+1))
	}
	if len(content) == 0 {
		return nil, bad("is empty")
	}
	if !utf8.Valid(content) {
		return nil, bad("is not valid UTF-8 (first invalid byte at offset %d)", firstInvalidUTF8(content))
	}
	return content, nil
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// unwrapPath drops the *PathError wrapper, whose text repeats the path the
// message already names.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
