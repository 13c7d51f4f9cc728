//go:build unix

package server

// WatchEvents is the store watcher's mode when kernel events serve it:
// "inotify" on Linux, "kqueue" on macOS and FreeBSD.
var WatchEvents = watchEvents
