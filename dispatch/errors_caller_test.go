//go:build unix

package dispatch

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// The words an error has for a caller (ErrorMessage, ErrorDetails) name
// the program by its name and read as the command that ran: the runner's
// leading arguments are there ("python3 -m pip show", not "python3
// show"), each path by its last element, since they are the operator's
// and may name the server's files; Error keeps the whole command line for
// the operator's logs.
func TestErrorWordsForACaller(t *testing.T) {
	type worded interface {
		ErrorMessage() string
		ErrorDetails() map[string]any
	}
	tests := []struct {
		name    string
		leading []string
		argv    []string
		code    string
		command string // details.command and the message's start
	}{
		{"a dispatch failure", []string{"stderr"}, []string{"boom", "3"}, "nonzero_exit", "fakecli stderr boom 3"},
		{"the CLI's own error", []string{"print"}, []string{errResult, "1"}, "cli_error", formatCommand("fakecli", []string{"print", errResult, "1"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newFake(t, Options{LeadingArgs: tt.leading})
			_, err := r.Run(bg(), tt.argv)
			var w worded
			if !errors.As(err, &w) {
				t.Fatalf("error %T %v has no ErrorMessage", err, err)
			}
			msg := w.ErrorMessage()
			if !strings.HasPrefix(msg, tt.command+": ") {
				t.Errorf("ErrorMessage() = %q; want it to start with %q", msg, tt.command+": ")
			}
			if strings.Contains(msg, filepath.Dir(fakeCLI)) {
				t.Errorf("ErrorMessage() = %q names the program's directory", msg)
			}
			if !strings.Contains(err.Error(), fakeCLI+" "+tt.leading[0]) {
				t.Errorf("Error() = %q; want the whole command line, for the operator's logs", err.Error())
			}
			if tt.code == "nonzero_exit" {
				if got := w.ErrorDetails()["command"]; got != tt.command {
					t.Errorf("details.command = %v; want %q", got, tt.command)
				}
			}
		})
	}
}

// A leading argument that names a path is shown by its last element,
// alone or as an option's value; every other word as it is.
func TestCallerCommandLeadingPaths(t *testing.T) {
	got := callerCommand("/usr/bin/python3", []string{"-m", "pip", "/srv/tools/run.py", "--config=/etc/tool/x.conf", "show", "/tmp/a/b"}, 4)
	if want := "python3 -m pip run.py --config=x.conf show /tmp/a/b"; got != want {
		t.Fatalf("callerCommand = %q, want %q", got, want)
	}
}

// A start error quotes the program by its path ("fork/exec /x/y: ..."):
// details.cause names it by its name.
func TestLaunchCauseNamesTheProgram(t *testing.T) {
	e := &Error{Kind: KindLaunchFailed, Program: "/opt/tools/bin/mytool", Problem: "could not start",
		Err: errors.New("fork/exec /opt/tools/bin/mytool: permission denied")}
	if got := e.ErrorDetails()["cause"]; got != "fork/exec mytool: permission denied" {
		t.Fatalf("cause = %v", got)
	}
	if got := e.ErrorMessage(); got != "mytool: could not start" {
		t.Fatalf("ErrorMessage() = %q", got)
	}
}
