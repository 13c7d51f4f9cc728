//go:build !unix

package fromcobrabin

import "os/exec"

// setProcessGroup leaves the process as exec starts it: where there are no
// Unix process groups, a stopped call kills the program itself only.
func setProcessGroup(*exec.Cmd) {}

func startTied(cmd *exec.Cmd) error { return cmd.Start() }
