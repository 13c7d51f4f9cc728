//go:build unix && !linux

package kill

// openPidfdGroup: pidfds are Linux's. Elsewhere (macOS, FreeBSD) every
// group is addressed by number, kill(-pgid), re-proven by a witness
// immediately before each signal (see pgidGroup for the window that
// leaves).
func openPidfdGroup(Group) (groupHandle, *leaderLoss, error) {
	return nil, nil, errPidfdUnsupported
}
