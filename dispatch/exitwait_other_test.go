//go:build unix && !linux

package dispatch

var platformFallbackWaiters []namedExitWaiter
