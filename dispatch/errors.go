//go:build unix

package dispatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Kind names one way a dispatched command can fail. The string value is the
// error code consumers see (the ErrorCode of an [*Error]): it never changes
// once published.
type Kind string

const (
	// KindLaunchFailed: the program could not be started (or resolved).
	KindLaunchFailed Kind = "launch_failed"
	// KindCancelled: the caller's context ended before the command did; the
	// process group was terminated exactly as for a timeout.
	KindCancelled Kind = "cancelled"
	// KindTimeout: the runner's own per-command timeout elapsed; the process
	// group was terminated (SIGTERM, then SIGKILL after the grace).
	KindTimeout Kind = "timeout"
	// KindOutputOverflow: stdout or stderr passed its cap; the process group
	// was terminated.
	KindOutputOverflow Kind = "output_overflow"
	// KindNonzeroExit: the command exited non-zero (or died of a signal)
	// without printing a valid error object.
	KindNonzeroExit Kind = "nonzero_exit"
	// KindAbsentResult: the command exited 0 and printed nothing but
	// whitespace on stdout.
	KindAbsentResult Kind = "absent_result"
	// KindInvalidResult: stdout is not JSON, or not the contract's shape.
	KindInvalidResult Kind = "invalid_result"
	// KindMultipleResults: stdout holds more than one JSON value.
	KindMultipleResults Kind = "multiple_results"
	// KindUnsupportedResultVersion: the result names a result_version this
	// package does not speak.
	KindUnsupportedResultVersion Kind = "unsupported_result_version"
)

// CodeCLIError is the error code of a [*CLIError]: the CLI
// itself reported a failure through a valid error object.
const CodeCLIError = "cli_error"

// Error is a dispatch failure: the command could not be run, or did not
// honour the machine-result contract. Match it with errors.As and switch on
// Kind. It is never used for the CLI's own, well-formed error objects; those
// are [*CLIError].
//
// Its message is one sentence naming the command (program path and argv,
// each long argument and a long argv shortened) and what went wrong.
type Error struct {
	Kind Kind

	// Program is the absolute path of the executable; Args the full argument
	// list after it (the runner's leading args, then the command's argv).
	// Both are empty for an error from [ParseMachineResult] alone.
	Program string
	Args    []string
	// Leading is how many of Args are the runner's leading args
	// (Options.LeadingArgs): the operator's, which the words meant for a
	// caller leave out (see ErrorMessage).
	Leading int

	// Problem says what went wrong in words, without the command.
	Problem string

	// ExitCode is the command's exit status, or -1 when it did not exit on
	// its own (never started, killed by a signal, terminated by the runner).
	ExitCode int
	// Signal names the signal that ended the command when it died of one
	// the runner did not send ("" otherwise).
	Signal string
	// Stream and Cap describe an output_overflow: which stream passed which
	// cap, in bytes.
	Stream string
	Cap    int64
	// Timeout is the per-command timeout, set for KindTimeout.
	Timeout time.Duration
	// ResultVersion is the version the command printed, set for
	// KindUnsupportedResultVersion.
	ResultVersion int64
	// ResultProblem is, for KindNonzeroExit, what was wrong with stdout
	// (the kind it would have been had the command exited 0), or "" when
	// stdout held an ok result that the exit status contradicts.
	ResultProblem Kind
	// Stderr is the retained tail of the command's stderr.
	Stderr string
	// Stdout is the retained tail of the command's stdout when its
	// machine output is on stderr (Options.OutputStream), which is then
	// not quoted in Stderr: it is Output. (Added after Stderr.)
	Stdout string
	// Output is, for a nonzero_exit under an output mode other than
	// envelope (Options.Output), stdout as that mode reads it (null when
	// stdout was not what the mode says: ResultProblem and Excerpt say
	// so), and ReplacedBytes the bytes of stdout that were not UTF-8. A
	// linter's findings come back here. Nil under the envelope.
	Output        json.RawMessage
	ReplacedBytes int
	// Excerpt is the start of what stdout held, for an invalid_result
	// under an output mode (and a nonzero_exit whose stdout was not what
	// the mode says): what the program printed instead.
	Excerpt string

	// Err is the underlying cause, if any: the start error for
	// launch_failed, the context's error for cancelled.
	Err error
}

// Error returns "dispatch: <command>: <problem>", the command as it ran
// (the program's absolute path and every argument): the operator's
// words, for logs. [Error.ErrorMessage] is the caller's.
func (e *Error) Error() string {
	return "dispatch: " + e.sentence(formatCommand(e.Program, e.Args))
}

// ErrorMessage returns "<command>: <problem>" with the command as a
// caller may see it: the program by its name alone, and the runner's
// leading arguments (the operator's: "-m pip", a script, a configuration
// file) with every path by its last element, so no directory of the
// server is quoted. A server that answers an untrusted client with this
// message and [Error.ErrorDetails] quotes none of its own directories;
// the program's stderr, quoted as it printed it, is the program's to keep
// clean, and a leading argument that is a secret is the operator's
// mistake (pass secrets in the environment).
func (e *Error) ErrorMessage() string {
	return e.sentence(e.callerCommand())
}

func (e *Error) sentence(command string) string {
	var b strings.Builder
	if e.Program != "" {
		b.WriteString(command)
		b.WriteString(": ")
	}
	b.WriteString(e.Problem)
	if line := lastLine(e.Stderr); line != "" && (e.Kind == KindNonzeroExit || e.Kind == KindLaunchFailed) {
		b.WriteString("; stderr: ")
		b.WriteString(line)
	}
	return b.String()
}

// callerCommand is the command line as a caller may see it: the
// program's base name, the leading arguments with each path by its last
// element (basePath), and the rest as given.
func (e *Error) callerCommand() string {
	return callerCommand(e.Program, e.Args, e.Leading)
}

func callerCommand(program string, args []string, leading int) string {
	if leading > len(args) {
		leading = len(args)
	}
	words := make([]string, 0, len(args))
	for _, w := range args[:leading] {
		words = append(words, basePath(w))
	}
	return formatCommand(filepath.Base(program), append(words, args[leading:]...))
}

// basePath is a leading argument as a caller may see it: a word naming a
// path ("/srv/tools/notes.py", "--config=/etc/x.conf") by the path's last
// element ("notes.py", "--config=x.conf"), so the command reads as the one
// that ran ("python3 -m pip show", not "python3 show") without quoting
// the server's directories.
func basePath(w string) string {
	if !strings.Contains(w, "/") {
		return w
	}
	if opt, val, ok := strings.Cut(w, "="); ok && strings.HasPrefix(opt, "-") {
		return opt + "=" + filepath.Base(val)
	}
	return filepath.Base(w)
}

// Unwrap returns the underlying cause (for errors.Is with
// context.Canceled, context.DeadlineExceeded, fs.ErrNotExist, ...).
func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the kind as the error code, so a consumer matches it
// with interface{ ErrorCode() string } and need not import this package.
func (e *Error) ErrorCode() string { return string(e.Kind) }

// ErrorDetails returns the machine-readable facts of the failure,
// JSON-ready. Keys present depend on the kind:
//
//   - "command": the command line as a caller may see it (the
//     program's name, the leading arguments with paths by their last
//     element: see ErrorMessage), always when known;
//   - "problem": the problem in words, always;
//   - "exit_code", "signal": for nonzero_exit;
//   - "result_problem": for nonzero_exit, what stdout lacked ("" when it held an ok result);
//   - "output", "replaced_bytes": for nonzero_exit under an output mode
//     other than envelope, stdout as the mode reads it (null when it could
//     not be read) and how many of its bytes were not UTF-8;
//   - "excerpt": the start of stdout, when it was not what the output mode says;
//   - "stream", "cap_bytes": for output_overflow;
//   - "timeout_seconds": for timeout;
//   - "result_version": for unsupported_result_version;
//   - "cause": for cancelled and launch_failed, the underlying error's text;
//   - "stderr_tail": whenever stderr was captured and is not empty;
//   - "stdout_tail": instead, when the machine output is on stderr
//     (Options.OutputStream) and stdout is not empty.
func (e *Error) ErrorDetails() map[string]any {
	d := map[string]any{"problem": e.Problem}
	if e.Program != "" {
		d["command"] = e.callerCommand()
	}
	switch e.Kind {
	case KindNonzeroExit:
		d["exit_code"] = e.ExitCode
		if e.Signal != "" {
			d["signal"] = e.Signal
		}
		d["result_problem"] = string(e.ResultProblem)
		if e.Output != nil {
			d["output"] = e.Output
			d["replaced_bytes"] = e.ReplacedBytes
		}
	case KindOutputOverflow:
		d["stream"] = e.Stream
		d["cap_bytes"] = e.Cap
	case KindTimeout:
		d["timeout_seconds"] = e.Timeout.Seconds()
	case KindUnsupportedResultVersion:
		d["result_version"] = e.ResultVersion
	case KindCancelled, KindLaunchFailed:
		if e.Err != nil {
			// The start error names the program by its path (fork/exec
			// /usr/bin/x: ...): the caller gets its name.
			cause := e.Err.Error()
			if e.Program != "" {
				cause = strings.ReplaceAll(cause, e.Program, filepath.Base(e.Program))
			}
			d["cause"] = cause
		}
	}
	if e.Excerpt != "" {
		d["excerpt"] = e.Excerpt
	}
	if e.Stderr != "" {
		d["stderr_tail"] = e.Stderr
	}
	if e.Stdout != "" {
		d["stdout_tail"] = e.Stdout
	}
	return d
}

// CLIError is the CLI's own failure, reported through a valid error object
// (`{"result_version":1,"ok":false,"error":{...}}`). Dispatch worked; the
// command said no. Its error code is always [CodeCLIError]; the CLI's own
// code is in Code.
type CLIError struct {
	Code    string          // the CLI's error code, never empty
	Message string          // the CLI's message
	Details json.RawMessage // the CLI's details as printed ("null" when absent)

	// ExitCode is the command's exit status. A valid error object is
	// honoured whatever the status, 0 included.
	ExitCode int
	Program  string
	Args     []string
	Leading  int    // how many of Args are the runner's leading args
	Stderr   string // retained tail of stderr
}

// Error returns "dispatch: <command>: CLI error <code>: <message>".
func (e *CLIError) Error() string {
	return fmt.Sprintf("dispatch: %s: CLI error %s: %s", formatCommand(e.Program, e.Args), e.Code, e.Message)
}

// ErrorMessage returns "<command>: CLI error <code>: <message>" with the
// command as a caller may see it (the program's name, no leading
// arguments), as [Error.ErrorMessage] does.
func (e *CLIError) ErrorMessage() string {
	return fmt.Sprintf("%s: CLI error %s: %s", callerCommand(e.Program, e.Args, e.Leading), e.Code, e.Message)
}

// ErrorCode returns [CodeCLIError].
func (e *CLIError) ErrorCode() string { return CodeCLIError }

// ErrorDetails returns {"code", "message", "details"} as the CLI printed
// them. Numbers inside details keep their exact text
// (json.Number), so passing them on loses nothing.
func (e *CLIError) ErrorDetails() map[string]any {
	return map[string]any{"code": e.Code, "message": e.Message, "details": decodeAny(e.Details)}
}

func decodeAny(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		// Cannot happen for details that passed ParseMachineResult; keep the
		// text rather than drop it.
		return string(raw)
	}
	return v
}

// Limits for rendering a command line into a message. A prompt may be a
// 64 KiB argument and a command may carry dozens; an error message must stay
// one readable line.
const (
	maxShownArgs    = 16
	maxShownArgLen  = 60
	shownArgKeepLen = 48
)

// formatCommand renders program and args as a shell-like line: arguments
// needing it are quoted, an argument longer than maxShownArgLen bytes is cut
// with its full length noted, and only the first maxShownArgs arguments are
// shown.
func formatCommand(program string, args []string) string {
	var b strings.Builder
	b.WriteString(quoteArg(program))
	for i, a := range args {
		if i == maxShownArgs {
			fmt.Fprintf(&b, " …(+%d more args)", len(args)-i)
			break
		}
		b.WriteByte(' ')
		if len(a) > maxShownArgLen {
			cut := a[:shownArgKeepLen]
			for !utf8.ValidString(cut) && len(cut) > 0 { // do not split a rune
				cut = cut[:len(cut)-1]
			}
			b.WriteString(quoteArg(cut + "…"))
			fmt.Fprintf(&b, "(%d bytes)", len(a))
			continue
		}
		b.WriteString(quoteArg(a))
	}
	return b.String()
}

func quoteArg(s string) string {
	if s == "" {
		return `""`
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,@%+", r)) {
			return strconv.Quote(s)
		}
	}
	return s
}

// lastLine returns the last non-empty line of s, shortened to 200 bytes, so
// a message can show the most likely explanation (the CLI's final complaint)
// without the whole stderr tail.
func lastLine(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimSpace(s)
	if len(s) > 200 {
		s = s[len(s)-200:]
		for len(s) > 0 && !utf8.RuneStart(s[0]) {
			s = s[1:]
		}
		s = "…" + s
	}
	return s
}
