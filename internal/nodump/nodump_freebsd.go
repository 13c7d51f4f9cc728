package nodump

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// From sys/procctl.h and sys/wait.h.
const (
	pPID                = 0 // P_PID
	procTraceCtl        = 7 // PROC_TRACE_CTL
	procTraceStatus     = 8 // PROC_TRACE_STATUS
	procTraceCtlDisable = 2 // PROC_TRACE_CTL_DISABLE
)

// Protect disables tracing of this process by its user's other
// processes: procctl(PROC_TRACE_CTL, PROC_TRACE_CTL_DISABLE).
func Protect() error {
	arg := int32(procTraceCtlDisable)
	_, _, errno := unix.Syscall6(unix.SYS_PROCCTL, pPID, uintptr(os.Getpid()), procTraceCtl, uintptr(unsafe.Pointer(&arg)), 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// Protected reports whether tracing of this process is disabled
// (PROC_TRACE_STATUS answers -1).
func Protected() bool {
	var status int32
	_, _, errno := unix.Syscall6(unix.SYS_PROCCTL, pPID, uintptr(os.Getpid()), procTraceStatus, uintptr(unsafe.Pointer(&status)), 0, 0)
	return errno == 0 && status == -1
}
