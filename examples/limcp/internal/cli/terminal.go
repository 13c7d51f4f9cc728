//go:build unix

package cli

import (
	"fmt"
	"io"
	"os"
)

// terminalNotice is what `limcp mcp` says on stderr when its stdin is a
// terminal: a person typed the command, and the server would otherwise
// wait in silence and then die on the first line that is not JSON-RPC.
// It keeps serving (a person may paste JSON-RPC to try it); the notice
// only says what it is and what to run instead.
func terminalNotice(w io.Writer) {
	fmt.Fprint(w, `limcp mcp: this is an MCP server: it speaks JSON-RPC on stdin/stdout, one
message per line, for an MCP client to start, not for typing at (a line that is
not JSON-RPC ends it). Instead:
  limcp mcp install claude        connect a client (also codex, gemini, cursor, vscode; --print shows the config)
  limcp call '{"help": true}'     send one request from the shell and print the answer
  limcp mcp --help                the server's flags (--http ADDR, --read-only, --policy FILE, ...)
Waiting for JSON-RPC on stdin; Ctrl-D or Ctrl-C stops.
`)
}

// stdinIsTerminal reports whether the server's stdin is a terminal.
func stdinIsTerminal() bool { return isTerminal(os.Stdin) }
