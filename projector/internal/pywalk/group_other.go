//go:build !unix

package pywalk

import "os/exec"

// ownProcessGroup, where there are no Unix process groups (Windows), leaves
// cmd as os/exec starts it: cancellation kills the Python process itself,
// and processes the walked code started may outlive it. (On Unix the whole
// group is killed.)
func ownProcessGroup(*exec.Cmd) {}

func startTied(cmd *exec.Cmd) error { return cmd.Start() }
