// Command fakeagent stands in for the agent programs limcp's presets run
// (Claude Code, Codex CLI, Gemini CLI), which cannot run in a test: it is
// installed on PATH under the real program's name (a symlink) and behaves
// as that program is documented to, in the non-interactive mode the
// preset uses:
//
//   - it parses its argv as the real one does, failing on an unknown flag
//     or a bad flag value with the real program's message and exit status,
//     and refusing to start without a terminal where the real one would
//     start an interactive session (claude without -p, codex without
//     exec);
//   - it reads the prompt from stdin (or the documented prompt argument)
//     and fails, as the real one does, when there is none;
//   - codex refuses to run outside a Git repository unless
//     --skip-git-repo-check is given, as the real one does;
//   - it writes its answer in the format asked for: text, or the
//     program's JSON (Claude's result object, Codex's JSON Lines events,
//     Gemini's indented {response, stats} object), and reports an error in
//     the program's JSON error shape;
//   - it spawns a child (a "tool" process, in its process group) that
//     lives while it works, as agents do, and honours SIGTERM slowly (300
//     ms, as a program saving its session does) without stopping the child
//     itself: the child goes only because its process group was signalled
//     (it too takes 200 ms), so a test that finds no process left proves
//     the group kill, not the stand-in's manners.
//
// The prompt steers it: [[sleep 30s]] works that long before answering;
// [[error TEXT]] fails with TEXT in the program's JSON error shape (exit
// 1); [[error0 TEXT]] reports TEXT as an error in its JSON but exits 0;
// [[crash N]] writes a stack trace to stderr and exits N without any
// machine output. The answer is "<program> (model M): <prompt>".
//
// When $LIMCP_FAKEAGENT_LOG names a directory, each invocation writes
// <pid>.json there: its name, argv, stdin, working directory and
// environment, so a test can pin exactly what limcp passed. (A LIMCP_*
// variable, so limcp's environment rule passes it through.)
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// LogEnv names the directory invocations are logged to.
const LogEnv = "LIMCP_FAKEAGENT_LOG"

// toolName is the child's argv[0]: what it runs as.
const toolName = "fakeagent-tool"

// Invocation is one logged invocation.
type Invocation struct {
	Program  string            `json:"program"`
	Argv     []string          `json:"argv"` // after argv[0]
	Stdin    string            `json:"stdin"`
	Cwd      string            `json:"cwd"`
	Env      map[string]string `json:"env"`
	PID      int               `json:"pid"`
	ChildPID int               `json:"child_pid"`
}

type opts struct {
	program  string
	model    string
	format   string // text, json, stream-json
	prompt   string // from argv
	hasArg   bool
	readIn   bool // the prompt comes from stdin
	skipGit  bool
	flagsSet []string
}

func main() {
	name := filepath.Base(os.Args[0])
	if name == toolName {
		tool()
		return
	}
	var o opts
	var err error
	switch name {
	case "claude":
		o, err = parseClaude(os.Args[1:])
	case "codex":
		o, err = parseCodex(os.Args[1:])
	case "gemini":
		o, err = parseGemini(os.Args[1:])
	default:
		fmt.Fprintf(os.Stderr, "fakeagent: installed as %q; link it as claude, codex or gemini\n", name)
		os.Exit(2)
	}
	if err != nil {
		var ue usageError
		if e, ok := err.(usageError); ok {
			ue = e
		} else {
			ue = usageError{msg: err.Error(), code: 1}
		}
		fmt.Fprintln(os.Stderr, ue.msg)
		os.Exit(ue.code)
	}
	o.program = name
	run(o)
}

type usageError struct {
	msg  string
	code int
}

func (e usageError) Error() string { return e.msg }

// flagSet is one program's flags: which take a value, which do not.
type flagSet struct {
	value, boolean map[string]bool
	unknown        func(flag string) usageError
}

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// parse splits args into flags (long or short, "--f=v" or "--f v") and
// positionals, refusing an unknown flag as the program does.
func (fs flagSet) parse(args []string) (map[string]string, []string, error) {
	flags, pos := map[string]string{}, []string(nil)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-" || !strings.HasPrefix(a, "-") {
			pos = append(pos, a)
			continue
		}
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case fs.boolean[name]:
			flags[name] = "true"
		case fs.value[name]:
			if !hasVal {
				if i+1 >= len(args) {
					return nil, nil, usageError{fmt.Sprintf("error: option '%s' argument missing", name), 1}
				}
				i++
				val = args[i]
			}
			flags[name] = val
		default:
			return nil, nil, fs.unknown(name)
		}
	}
	return flags, pos, nil
}

func first(flags map[string]string, names ...string) (string, bool) {
	for _, n := range names {
		if v, ok := flags[n]; ok {
			return v, true
		}
	}
	return "", false
}

// Claude Code: commander.js flags; -p/--print is the non-interactive mode.
func parseClaude(args []string) (opts, error) {
	fs := flagSet{
		value: set("--output-format", "--input-format", "--model", "--permission-mode", "--allowedTools", "--allowed-tools",
			"--disallowedTools", "--disallowed-tools", "--append-system-prompt", "--system-prompt", "--max-turns",
			"--mcp-config", "--settings", "--add-dir", "--resume", "-r", "--fallback-model", "--session-id"),
		boolean: set("-p", "--print", "--verbose", "--dangerously-skip-permissions", "--continue", "-c", "--debug"),
		unknown: func(f string) usageError { return usageError{fmt.Sprintf("error: unknown option '%s'", f), 1} },
	}
	flags, pos, err := fs.parse(args)
	if err != nil {
		return opts{}, err
	}
	if _, ok := first(flags, "-p", "--print"); !ok {
		return opts{}, usageError{"Error: Raw mode is not supported on the current process.stdin, which Ink uses as input stream by default.", 1}
	}
	if len(pos) > 1 {
		return opts{}, usageError{fmt.Sprintf("error: too many arguments. Expected 1 argument but got %d.", len(pos)), 1}
	}
	o := opts{format: "text"}
	if v, ok := flags["--output-format"]; ok {
		if v != "text" && v != "json" && v != "stream-json" {
			return opts{}, usageError{fmt.Sprintf("error: option '--output-format <format>' argument '%s' is invalid. Allowed choices are text, json, stream-json.", v), 1}
		}
		o.format = v
	}
	o.model = flags["--model"]
	if len(pos) == 1 {
		o.prompt, o.hasArg = pos[0], true
	}
	o.readIn = true // piped stdin is read as the prompt (or as context before an argument)
	for f := range flags {
		o.flagsSet = append(o.flagsSet, f)
	}
	return o, nil
}

// Codex CLI: clap; `codex exec` is the non-interactive mode.
func parseCodex(args []string) (opts, error) {
	if len(args) == 0 || (args[0] != "exec" && args[0] != "e") {
		return opts{}, usageError{"Error: stdin is not a terminal", 1}
	}
	fs := flagSet{
		value: set("-m", "--model", "-s", "--sandbox", "-C", "--cd", "-c", "--config", "-o", "--output-last-message",
			"-p", "--profile", "-i", "--image", "--color", "--output-schema", "--local-provider"),
		boolean: set("--json", "--full-auto", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check",
			"--ephemeral", "--oss"),
		unknown: func(f string) usageError {
			return usageError{fmt.Sprintf("error: unexpected argument '%s' found\n\n  tip: to pass '%s' as a value, use '-- %s'\n\nUsage: codex exec [OPTIONS] [PROMPT]\n\nFor more information, try '--help'.", f, f, f), 2}
		},
	}
	flags, pos, err := fs.parse(args[1:])
	if err != nil {
		return opts{}, err
	}
	if len(pos) > 1 {
		return opts{}, usageError{fmt.Sprintf("error: unexpected argument '%s' found\n\nUsage: codex exec [OPTIONS] [PROMPT]\n\nFor more information, try '--help'.", pos[1]), 2}
	}
	if v, ok := first(flags, "-s", "--sandbox"); ok && v != "read-only" && v != "workspace-write" && v != "danger-full-access" {
		return opts{}, usageError{fmt.Sprintf("error: invalid value '%s' for '--sandbox <SANDBOX_MODE>'\n  [possible values: read-only, workspace-write, danger-full-access]\n\nFor more information, try '--help'.", v), 2}
	}
	o := opts{format: "text"}
	if _, ok := flags["--json"]; ok {
		o.format = "json"
	}
	o.model, _ = first(flags, "-m", "--model")
	_, o.skipGit = flags["--skip-git-repo-check"]
	switch {
	case len(pos) == 1 && pos[0] == "-":
		o.readIn = true
	case len(pos) == 1:
		o.prompt, o.hasArg = pos[0], true
	default:
		o.readIn = true // no PROMPT: read from stdin
	}
	for f := range flags {
		o.flagsSet = append(o.flagsSet, f)
	}
	return o, nil
}

// Gemini CLI: yargs; headless when stdin is not a terminal or with -p.
func parseGemini(args []string) (opts, error) {
	fs := flagSet{
		value: set("-m", "--model", "-o", "--output-format", "-p", "--prompt", "--approval-mode", "--include-directories",
			"-e", "--extensions", "--allowed-tools", "--allowed-mcp-server-names"),
		boolean: set("-y", "--yolo", "-s", "--sandbox", "-d", "--debug", "--checkpointing", "--screen-reader"),
		unknown: func(f string) usageError {
			return usageError{fmt.Sprintf("Usage: gemini [options] [command]\n\nUnknown arguments: %s", strings.TrimLeft(f, "-")), 1}
		},
	}
	flags, pos, err := fs.parse(args)
	if err != nil {
		return opts{}, err
	}
	o := opts{format: "text"}
	if v, ok := first(flags, "-o", "--output-format"); ok {
		if v != "text" && v != "json" && v != "stream-json" {
			return opts{}, usageError{fmt.Sprintf("Invalid values:\n  Argument: output-format, Given: \"%s\", Choices: \"text\", \"json\", \"stream-json\"", v), 1}
		}
		o.format = v
	}
	if v, ok := first(flags, "--approval-mode"); ok && v != "default" && v != "auto_edit" && v != "yolo" {
		return opts{}, usageError{fmt.Sprintf("Invalid values:\n  Argument: approval-mode, Given: \"%s\", Choices: \"default\", \"auto_edit\", \"yolo\"", v), 1}
	}
	o.model, _ = first(flags, "-m", "--model")
	if v, ok := first(flags, "-p", "--prompt"); ok {
		o.prompt, o.hasArg = v, true
	} else if len(pos) > 0 {
		o.prompt, o.hasArg = strings.Join(pos, " "), true
	}
	o.readIn = true
	for f := range flags {
		o.flagsSet = append(o.flagsSet, f)
	}
	return o, nil
}

var directive = regexp.MustCompile(`\[\[(sleep|error0|error|crash) ([^\]]*)\]\]`)

func run(o opts) {
	var stdin []byte
	if o.readIn && !isTerminal(os.Stdin) {
		stdin, _ = io.ReadAll(os.Stdin)
	}
	prompt := string(stdin)
	if o.hasArg {
		if prompt != "" {
			prompt = o.prompt + "\n\n" + prompt
		} else {
			prompt = o.prompt
		}
	}
	child := startTool()
	logInvocation(o, string(stdin), child)

	// SIGTERM: save the session (slowly) and exit 143, leaving the tool
	// to the signal its process group got: what stops an agent's children
	// is the group kill, not the agent's good manners.
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	go func() {
		<-term
		time.Sleep(300 * time.Millisecond)
		os.Exit(143)
	}()

	if strings.TrimSpace(prompt) == "" {
		stopTool(child)
		switch o.program {
		case "claude":
			fail("Error: Input must be provided either through stdin or as a prompt argument when using --print", 1)
		case "codex":
			fail("No prompt provided. Either specify one as an argument or pipe the prompt into stdin.", 1)
		default:
			fail("No input provided via stdin. Input can be provided by piping data into gemini or using the --prompt option.", 1)
		}
	}
	if o.program == "codex" && !o.skipGit && !inGitRepo() {
		stopTool(child)
		fail("Not inside a trusted directory and --skip-git-repo-check was not specified.", 1)
	}

	text := prompt
	var errMsg string
	exit := 0
	for _, m := range directive.FindAllStringSubmatch(prompt, -1) {
		switch m[1] {
		case "sleep":
			if d, err := time.ParseDuration(m[2]); err == nil {
				time.Sleep(d)
			}
		case "error":
			errMsg, exit = m[2], 1
		case "error0":
			errMsg = m[2]
		case "crash":
			n, _ := strconv.Atoi(m[2])
			stopTool(child)
			fmt.Fprintf(os.Stderr, "panic: the fake %s crashed\n\ngoroutine 1 [running]:\nmain.main()\n", o.program)
			os.Exit(n)
		}
	}
	text = strings.TrimSpace(directive.ReplaceAllString(text, ""))
	model := o.model
	if model == "" {
		model = "default"
	}
	answer := fmt.Sprintf("%s (model %s): %s", o.program, model, text)
	stopTool(child)
	write(o, answer, errMsg)
	os.Exit(exit)
}

func fail(msg string, code int) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(code)
}

// write prints the answer, or the error, in the program's format.
func write(o opts, answer, errMsg string) {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	switch {
	case o.format == "text" && errMsg != "":
		fmt.Fprintln(os.Stderr, "Error: "+errMsg)
	case o.format == "text":
		if o.program == "codex" {
			fmt.Fprintln(os.Stderr, "[2026-12-01T00:00:00] OpenAI Codex (research preview)\n--------\nworkdir: .\n--------\nthinking\n**Answering**")
		}
		fmt.Println(answer)
	case o.program == "claude":
		r := map[string]any{"type": "result", "subtype": "success", "is_error": false, "duration_ms": 1234,
			"duration_api_ms": 1000, "num_turns": 1, "result": answer, "session_id": "6f0f8a0e-0000-4000-8000-000000000000",
			"total_cost_usd": 0.0012, "usage": map[string]any{"input_tokens": 10, "output_tokens": 5}}
		if errMsg != "" {
			r["subtype"], r["is_error"], r["result"] = "error_during_execution", true, errMsg
		}
		if o.format == "stream-json" {
			fmt.Println(enc(map[string]any{"type": "system", "subtype": "init", "model": o.model}))
		}
		fmt.Println(enc(r))
	case o.program == "codex":
		fmt.Println(enc(map[string]any{"type": "thread.started", "thread_id": "0199a213-81c0-7800-8aa1-bbab2a035a53"}))
		fmt.Println(enc(map[string]any{"type": "turn.started"}))
		fmt.Println(enc(map[string]any{"type": "item.completed", "item": map[string]any{"id": "item_0", "type": "reasoning", "text": "**Answering**"}}))
		if errMsg != "" {
			fmt.Println(enc(map[string]any{"type": "error", "message": errMsg}))
			fmt.Println(enc(map[string]any{"type": "turn.failed", "error": map[string]any{"message": errMsg}}))
			return
		}
		fmt.Println(enc(map[string]any{"type": "item.completed", "item": map[string]any{"id": "item_1", "type": "agent_message", "text": answer}}))
		fmt.Println(enc(map[string]any{"type": "turn.completed", "usage": map[string]any{"input_tokens": 10, "cached_input_tokens": 0, "output_tokens": 5}}))
	default: // gemini: indented, as JSON.stringify(v, null, 2) prints it
		if errMsg != "" {
			b, _ := json.MarshalIndent(map[string]any{"error": map[string]any{"type": "Error", "message": errMsg, "code": 1}}, "", "  ")
			fmt.Fprintln(os.Stderr, string(b))
			return
		}
		b, _ := json.MarshalIndent(map[string]any{"response": answer, "stats": map[string]any{"models": map[string]any{}}}, "", "  ")
		fmt.Println(string(b))
	}
}

func logInvocation(o opts, stdin string, child *exec.Cmd) {
	dir := os.Getenv(LogEnv)
	if dir == "" {
		return
	}
	cwd, _ := os.Getwd()
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	inv := Invocation{Program: o.program, Argv: os.Args[1:], Stdin: stdin, Cwd: cwd, Env: env, PID: os.Getpid()}
	if child != nil && child.Process != nil {
		inv.ChildPID = child.Process.Pid
	}
	b, _ := json.MarshalIndent(inv, "", "  ")
	tmp := filepath.Join(dir, fmt.Sprintf(".%d.json", os.Getpid()))
	if os.WriteFile(tmp, b, 0o600) == nil {
		_ = os.Rename(tmp, filepath.Join(dir, fmt.Sprintf("%d.json", os.Getpid())))
	}
}

// startTool starts the child every agent has while it works: a tool
// process in the agent's process group.
func startTool() *exec.Cmd {
	self, err := os.Executable()
	if err != nil {
		return nil
	}
	c := &exec.Cmd{Path: self, Args: []string{toolName}}
	if c.Start() != nil {
		return nil
	}
	return c
}

func stopTool(c *exec.Cmd) {
	if c == nil || c.Process == nil {
		return
	}
	_ = c.Process.Signal(syscall.SIGTERM)
	_, _ = c.Process.Wait()
}

// tool is the child: it waits to be stopped, and honours SIGTERM slowly.
func tool() {
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	select {
	case <-term:
		time.Sleep(200 * time.Millisecond)
	case <-time.After(10 * time.Minute):
	}
}

func inGitRepo() bool {
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
