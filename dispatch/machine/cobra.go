package machine

import (
	"errors"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// UsageError is a command line that did not parse: an unknown flag or
// command, a flag value its type refused, a wrong number of arguments. As
// a machine result its code is usage_error with details {"command": the
// command path, "argument": the flag's name} (argument only when one
// flag is at fault).
type UsageError struct {
	Command  string // "notes add"
	Argument string // the refused flag's name, when pflag says which
	Err      error
}

func (e *UsageError) Error() string { return e.Command + ": " + e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// ErrorCode is usage_error.
func (e *UsageError) ErrorCode() string { return CodeUsageError }

// ErrorDetails names the command and, when known, the argument.
func (e *UsageError) ErrorDetails() map[string]any {
	d := map[string]any{"command": e.Command}
	if e.Argument != "" {
		d["argument"] = e.Argument
	}
	return d
}

// FlagArgument returns the name of the flag a pflag error is about (a
// value its type refused, a missing value), or "".
func FlagArgument(err error) string {
	var iv *pflag.InvalidValueError
	var vr *pflag.ValueRequiredError
	switch {
	case errors.As(err, &iv):
		return iv.GetFlag().Name
	case errors.As(err, &vr):
		return vr.GetFlag().Name
	}
	return ""
}

// MarkUsageErrors makes every command under root (those present now)
// return a *UsageError when its command line does not parse: flag errors
// and Args validators are wrapped; the errors of RunE are left alone.
// Call it once the tree is built, then [Execute].
func MarkUsageErrors(root *cobra.Command) {
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &UsageError{Command: c.CommandPath(), Argument: FlagArgument(err), Err: err}
	})
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		if args := c.Args; args != nil {
			c.Args = func(cmd *cobra.Command, a []string) error {
				if err := args(cmd, a); err != nil {
					return &UsageError{Command: cmd.CommandPath(), Err: err}
				}
				return nil
			}
		}
		for _, sub := range c.Commands() {
			visit(sub)
		}
	}
	visit(root)
}

// Execute runs root with args (nil: os.Args[1:]) and returns the exit
// status: 0 on success, 2 for a usage error, 1 for any other. When the
// machine flag (a boolean flag's name, "json") is set on the command that
// ran, or appears among args when the command line did not even resolve
// to a command, the failure is written to stdout as a machine result (a
// usage error as usage_error) and cobra's own error and usage printing is
// off; otherwise the error is printed to root's error stream as cobra
// would. Successful commands write their own result with [WriteOK].
func Execute(root *cobra.Command, args []string, stdout io.Writer, machineFlag string) int {
	root.SilenceErrors, root.SilenceUsage = true, true
	if args != nil {
		root.SetArgs(args)
	} else {
		args = os.Args[1:]
	}
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	if cmd == nil {
		cmd = root
	}
	var ue *UsageError
	isUsage := errors.As(err, &ue)
	if !isUsage && isCobraUsage(err) {
		ue, isUsage = &UsageError{Command: cmd.CommandPath(), Err: err}, true
		err = ue
	}
	if machineMode(cmd, args, machineFlag) {
		_ = WriteError(stdout, err)
	} else {
		cmd.PrintErrln("Error:", err.Error())
	}
	if isUsage {
		return 2
	}
	return 1
}

// isCobraUsage reports errors cobra returns before any command runs (an
// unknown command), which no hook sees.
func isCobraUsage(err error) bool {
	msg := err.Error()
	return len(msg) > 16 && msg[:16] == "unknown command "
}

func machineMode(cmd *cobra.Command, args []string, flag string) bool {
	if flag == "" {
		return false
	}
	if f := cmd.Flags().Lookup(flag); f != nil && f.Changed {
		return f.Value.String() == "true"
	}
	for _, a := range args {
		if a == "--"+flag || a == "--"+flag+"=true" {
			return true
		}
	}
	return false
}
