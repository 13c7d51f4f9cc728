//go:build unix

package server

// WatchEvents is the store watcher's mode when kernel events serve it:
// "inotify" on Linux, "kqueue" on macOS and FreeBSD.
var WatchEvents = watchEvents

// StartStoreWatch starts the store watcher now, as the first job.wait
// would (a test that watches a home no wait can reach yet).
func (s *Server) StartStoreWatch() {
	if s.watcher != nil {
		s.watcher.ensure()
	}
}
