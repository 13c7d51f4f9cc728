//go:build unix

package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/client"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
)

// MaxCallRequestBytes bounds a `limcp call` request read from stdin.
const MaxCallRequestBytes = 16 << 20

// callCmd is `limcp call`, the client face (package client).
func (a *app) callCmd() *cobra.Command {
	var readOnly bool
	c := &cobra.Command{
		Use:   "call REQUEST",
		Short: "send one request to `limcp mcp` over a real stdio MCP session and print the response",
		Long: `Start "limcp mcp" (this executable, the same state home) as a child process,
open an MCP session with it over stdio, call the tool "request" once with
REQUEST (a JSON object; "-" reads it from stdin), and print the response as
compact JSON (as is, also with --json: the response is already one JSON
object). The exit status follows the response's status: 0 for "success",
1 for "error" (nothing succeeded), 2 for "partial" (some parts succeeded,
some failed). The server runs with --no-notify: it exits before the runs it
submits end.

--get PATH prints one member of the response instead, for a script: a
dot-separated path of object keys and array indices ("results.0.result.id",
"help.schema_fingerprint"); a string prints bare, anything else as compact
JSON. A path that is not in the response is an error (exit status 1).

  limcp call '{"help": true}'
  limcp call --get help.schema_fingerprint '{"help": "agent.submit"}'
  limcp call '{"ops": [{"op": "job.status", "args": {"ids": ["67b6408c"]}}]}'`,
		Args: cobra.ExactArgs(1),
	}
	var get string
	c.Flags().BoolVar(&readOnly, "read-only", false, "start the server with --read-only")
	c.Flags().StringVar(&get, "get", "", "print only this member of the response (a dot path such as results.0.result.id)")
	c.RunE = a.runWithStatus(func(cmd *cobra.Command, args []string) error {
		return a.call(cmd, args[0], readOnly, get)
	})
	return c
}

func (a *app) call(cmd *cobra.Command, arg string, readOnly bool, get string) error {
	request, err := readCallRequest(arg, os.Stdin)
	if err != nil {
		return err
	}
	home, err := a.resolvedHome()
	if err != nil {
		return err
	}
	exe := a.opts.Executable
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return machine.Errorf(machine.Internal, nil, "cannot find the limcp executable to start the server: %v", err)
		}
	}
	// The server lives for this one request, so a notify attached to the
	// runs it submits would reach nobody: each run's end would record a
	// failed delivery (connection refused) after a round of retries.
	serverArgs := []string{"--home", home, "mcp", "--no-notify"}
	if readOnly {
		serverArgs = append(serverArgs, "--read-only")
	}
	child := exec.Command(exe, serverArgs...)
	child.Stderr = a.opts.Stderr
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	resp, err := client.Call(ctx, child, request)
	if err != nil {
		return machine.Errorf(machine.Internal, nil, "limcp call: %v", err)
	}
	a.emitted = true
	if get == "" {
		fmt.Fprintf(a.opts.Stdout, "%s\n", resp.JSON)
		return callExitStatus(resp.Status, resp.IsError)
	}
	v, err := member(resp.JSON, get)
	if err != nil {
		fmt.Fprintf(a.opts.Stdout, "%s\n", resp.JSON)
		fmt.Fprintf(a.opts.Stderr, "limcp call --get %s: %v\n", get, err)
		return ExitStatus(1)
	}
	fmt.Fprintf(a.opts.Stdout, "%s\n", v)
	return callExitStatus(resp.Status, resp.IsError)
}

// member returns the member of the JSON document doc at path (dot-separated
// object keys and array indices): a string bare, anything else as compact
// JSON. It says where the path leaves the document.
func member(doc []byte, path string) (string, error) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return "", err
	}
	for i, step := range strings.Split(path, ".") {
		at := strings.Join(strings.Split(path, ".")[:i], ".")
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[step]
			if !ok {
				return "", fmt.Errorf("%q has no member %q", at, step)
			}
			v = next
		case []any:
			n, err := strconv.Atoi(step)
			if err != nil || n < 0 || n >= len(x) {
				return "", fmt.Errorf("%q has %d items; %q is not one of its indices", at, len(x), step)
			}
			v = x[n]
		default:
			return "", fmt.Errorf("%q is not an object or an array", at)
		}
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// callExitStatus maps a response's status to limcp call's exit status: 0
// success, 1 error, 2 partial, so a script can tell "nothing worked" from
// "look at the results".
func callExitStatus(status string, isError bool) error {
	switch {
	case status == "error" || isError:
		return ExitStatus(1)
	case status == "partial":
		return ExitStatus(2)
	}
	return nil
}

// readCallRequest reads the request ("-": stdin) and checks that it is a
// JSON object: the envelope's own problems are the server's to report, but
// what is not a JSON object cannot even be sent as tool arguments.
func readCallRequest(arg string, stdin io.Reader) (json.RawMessage, error) {
	bad := func(format string, args ...any) error {
		return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "request"}, format, args...)
	}
	b := []byte(arg)
	if arg == "-" {
		var err error
		if b, err = io.ReadAll(io.LimitReader(stdin, MaxCallRequestBytes+1)); err != nil {
			return nil, bad("reading the request from stdin: %v", err)
		}
		if len(b) > MaxCallRequestBytes {
			return nil, bad("the request on stdin is larger than %d bytes", MaxCallRequestBytes)
		}
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, bad("the request is not JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, bad(`the request must be a JSON object (the envelope: {"help": true} or {"ops": [...]}), not %s`, jsonKindOf(v))
	}
	return json.RawMessage(b), nil
}

func jsonKindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}

// ExitStatus ends a command that has already written everything it had to
// say with a non-zero exit status: [Main] returns it as is and prints
// nothing more (limcp call, when the response's status is "error": the
// response itself is the output).
type ExitStatus int

func (e ExitStatus) Error() string { return "exit status " + strconv.Itoa(int(e)) }

// runWithStatus is runE for a command that writes its own output and may
// end with an ExitStatus, which passes through untouched.
func (a *app) runWithStatus(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := fn(cmd, args)
		if _, ok := exitStatus(err); ok {
			return err
		}
		if err != nil {
			return toMachine(err, nil)
		}
		return nil
	}
}

// exitStatus reports the exit status a command ended with, if it chose one.
func exitStatus(err error) (int, bool) {
	var status ExitStatus
	if errors.As(err, &status) {
		return int(status), true
	}
	return 0, false
}
