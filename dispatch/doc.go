//go:build unix

// Package dispatch runs a command-line program (the CLI) as a subprocess and
// turns its answer into either the data of one versioned machine result or
// an explicit, typed error. A CLI's misbehaviour — no output, garbage, two
// answers, a flood, a hang, a stray child — never reads as success and never
// leaves a process of the command's group behind.
//
// The package knows nothing of verbs, schemas or MCP: it receives an argv
// and returns data or an error. It runs on Linux, macOS and FreeBSD
// (process groups and signals are Unix; there is no Windows build). The
// platform parts are one small file each: waiting for the command's leader
// to exit without reaping it (waitid WNOWAIT on Linux, kqueue NOTE_EXIT on
// macOS and FreeBSD, a poll of the process table as the fallback), and
// counting the bytes left in an output pipe (FIONREAD). Process identity and
// group membership come from the module's process table (/proc on Linux,
// sysctl kern.proc on macOS and FreeBSD).
//
// # Running a command
//
// [NewRunner] resolves the program's path once (a bare name through PATH,
// then made absolute) and fixes the environment, working directory, caps
// and timeouts from [Options], whose zero value is ready to use.
// [Runner.Run] runs one command and returns the data of its ok result; it is
// the Run(ctx, argv) method that packages verbsurface, wait and kill each
// declare as their own Runner interface, so they need not import this
// package (the cross-package contracts are in CONTRACTS.md at the
// repository root). [Runner.Execute] does the same
// and returns the whole [Result] (exit code, stderr tail, duration, pid).
// [Runner.Interpret] reads what a command run elsewhere printed (a
// background run's kept output) exactly as Execute would have.
// There is no shell and no in-process shortcut: argv is a list, handed to
// the kernel as is.
//
// # The contract a CLI must meet to be fronted
//
// A command can be fronted when, invoked in its machine mode (for the
// reference CLI, with --json), it:
//
//   - prints exactly one JSON object on stdout, and nothing else there
//     (human text, progress and logs go to stderr):
//     {"result_version": 1, "ok": true, "data": <any JSON>} on success, or
//     {"result_version": 1, "ok": false, "error": {"code": "<non-empty string>",
//     "message": "<string>", "details": <any JSON>}} on failure ("details" may
//     be omitted; it then reads as null). No other keys, none repeated.
//   - exits 0 with an ok result. With an error object any exit status is
//     accepted (non-zero is customary); a non-zero exit with an ok result is
//     refused.
//   - keeps stdout within 1 MiB and stderr within 64 KiB (configurable), and
//     finishes within the timeout (30 s by default).
//   - puts work that must outlive the command (a detached run) in a session
//     of its own (setsid), ideally with its stdio redirected. Everything left
//     in the command's process group when it exits is stopped.
//   - reads nothing from stdin (it is /dev/null).
//   - reads a prompt file it is handed (see Prompts) before it exits: the
//     snapshot is removed once the command has exited, and is often a
//     descriptor (/dev/fd/N) only this process holds, so its path must not
//     be passed on to detached work; copy the content instead.
//
// The result is parsed by [ParseMachineResult]; "result_version" is checked
// before anything else in the object, so a future version fails as
// unsupported_result_version rather than as a shape error.
//
// # Programs not written for the contract
//
// A program that prints a JSON listing, JSON lines or text, and may exit 1
// to mean "findings", is run with Options.Output set to [OutputJSON],
// [OutputJSONL] or [OutputText] and Options.OKExit to the statuses that
// mean success ([0, 1] for a linter). Its stdout is then data and never
// control: nothing it prints can make a run fail, succeed or change
// version, so a config file whose keys happen to be result_version and ok
// is returned as it is. Run returns an [OutputResult] (output, exit_code,
// stderr, replaced_bytes: the same keys every time); an exit status not in
// OKExit is nonzero_exit with the output as read in its details, so a
// linter's findings are never lost; stdout that is not what the mode says
// is invalid_result with an excerpt ([ParseOutput] reads each mode).
// Timeouts, caps and process groups are exactly those of the contract.
// A program that writes its report on stderr (gcc's JSON diagnostics) is
// run with Options.OutputStream set to [StreamStderr]: the mode reads
// stderr, capped like stdout, and stdout comes back in its place
// ([StderrOutputResult]).
//
// # Failures, in the order they are checked
//
// Every failure is an [*Error] whose [Kind] is its code (match with
// errors.As), except the CLI's own error object, which is a [*CLIError]
// (code "cli_error"). Both implement ErrorCode() string and
// ErrorDetails() map[string]any, so consumers need not import this package.
//
//  1. launch_failed — the program cannot be started (or NewRunner cannot
//     resolve it: missing, a directory, not executable).
//  2. cancelled — the caller's context ended (cancel or the caller's own
//     deadline) before the command did; if it was already done, nothing is
//     started. Cleanup is exactly that of a timeout. The error wraps
//     ctx.Err().
//  3. timeout — the runner's per-command timeout elapsed.
//  4. output_overflow — stdout or stderr passed its cap.
//     (2–4 are one check: whichever happens first stops the command.)
//  5. cli_error — stdout holds a valid error object, whatever the exit status.
//  6. nonzero_exit — a non-zero exit (or death by a signal the runner did not
//     send) without a valid error object; it carries the exit code, the
//     stderr tail, and what was wrong with stdout. An ok result with a
//     non-zero exit lands here: one of the two is wrong, and reading it as
//     success could report work done that was not.
//  7. absent_result, invalid_result, multiple_results,
//     unsupported_result_version — the command exited 0 but stdout broke
//     the contract, in the order [ParseMachineResult] lists.
//
// An exit 0 with a valid error object is a cli_error, never a success: the
// CLI said it failed, and the exit status does not overrule what it said.
//
// # Process groups
//
// Every command starts in a new process group. When the runner stops a
// command (cancelled, timeout, output_overflow) the whole group gets SIGTERM
// and, if anything of it is still alive after the grace (2 s by default),
// SIGKILL. When a command exits on its own, any member of its group still
// running (a stray child) gets the same treatment, and Result.GroupStopped
// says so. Execute returns only once no live member remains (zombies do not
// count: they hold nothing, and one whose parent died may never be reaped).
// A command the runner stops is reaped only after its group has been
// signalled, so its pid — the group id — cannot be reused under the
// runner's feet; the stray members of a command that exited on its own are
// signalled only just after one of them was seen alive, and a live member
// keeps the id in use. Work in another session is not
// in the group and is never signalled, unless Options.EndDetached asks
// (Linux: this process adopts its orphaned descendants and kills the ones
// carrying the command's tag once the group is gone); a stream it keeps
// open does not make Execute wait (reading stops once the group is gone
// and the pipe is empty).
//
// A command dies with the process that runs it: on Linux and FreeBSD it is
// started with a parent-death signal (SIGKILL), so a server killed outright
// (kill -9) leaves no command running past its timeout. Linux ties that
// signal to the thread that forked the child, and Go ends a thread whenever
// a goroutine locked to it exits, so every command is forked by one
// goroutine that holds its thread for the life of the process. Elsewhere
// (macOS) a CLI that must not outlive its server watches its parent
// itself.
//
// # Prompts
//
// [PromptSnapshots] is a ready argument preparer (its Prepare method is a
// verbsurface Preparer) for verbs that take a prompt: a prompt_file
// (absolute path) is read once at submit time, capped, UTF-8 checked and
// copied to a private snapshot; prompt text too large for one argv entry is
// handed over through such a snapshot too.
// Its SHA-256 and size come back as info for the op's result. The snapshot
// lives until the preparer's cleanup runs, which is after the command exits.
// Where /dev/fd/N opens a descriptor (Linux, macOS, FreeBSD with fdescfs)
// it has no name on disk at all: it is unlinked as soon as it is written,
// and a Runner hands the open file to the command as a descriptor, naming
// it /dev/fd/N in argv, so nothing is left behind however the server ends
// ([Snapshot] resolves one for a runner of another kind).
//
// # Environment
//
// A Runner passes Options.Env as it is. A program that fronts untrusted
// callers should not hand its own environment to the commands it runs:
// [AllowlistEnv] builds one from [DefaultEnvAllowlist] (PATH, HOME, USER,
// LANG, LC_*, TZ, TMPDIR, TERM) and the names the program adds, so a
// secret in the server's environment (a bearer token, a cloud key) never
// reaches a command, or whatever the command starts, unless named.
//
// # Defaults
//
//	stdout cap        1 MiB    (DefaultStdoutCap)
//	stderr cap        64 KiB, tail kept (DefaultStderrCap)
//	timeout           30 s     (DefaultTimeout)
//	grace             2 s      (DefaultGrace)
//	prompt cap        1 MiB    (DefaultMaxPromptBytes)
//	argv prompt limit 64 KiB   (DefaultMaxArgBytes)
//	snapshot dir      os.TempDir()
package dispatch
