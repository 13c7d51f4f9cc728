package procid

import "syscall"

// errESRCH is what reading /proc/PID/stat can return when the process exits
// between open and read.
var errESRCH error = syscall.ESRCH
