//go:build !unix

package inherited

// CloseOnExec does nothing where there are no Unix descriptors: a Windows
// handle reaches a child only when it is marked inheritable, which Go
// does for the ones it hands over.
func CloseOnExec() error { return nil }
