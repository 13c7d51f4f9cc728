//go:build unix

// Package dispatchcheck holds only tests: it runs package kill's Killer
// over the real dispatch runner against the fixture CLI, to show the two
// agree on contract C3 (the Runner interface). It lives apart from package kill so that kill's own
// tests never depend on dispatch building.
package dispatchcheck
