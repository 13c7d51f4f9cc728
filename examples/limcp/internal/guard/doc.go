// Package guard decides whether a stored limcp command may run: the one
// check shared by `limcp mcp` (when schedule.add stores a command) and the
// CLI (when `schedule add` stores it and every time `schedule tick` is about
// to run it).
//
// The guard parses; it does not scan tokens. A token scan can be fooled by
// anything the parser reads differently from the scanner: a flag value
// that is the literal "--" (the scan stops, the parser does not), a
// shorthand, "--flag=value", or a playbook whose arg changed type since the
// command was stored, so that a word that was once a string flag's value
// is now a flag of its own. [Check] finds the command with the real cobra
// tree, performs the same dynamic injection the binary will (a playbook's
// args as flags), parses the flags exactly as the run will, and refuses
// the command if any [Forbidden] flag ends up set, however it was spelled.
//
// The package imports nothing that can open the store, so the MCP server,
// which must never link SQLite, can use it.
package guard
