// Package nodump keeps a server's secrets out of reach of the other
// processes of its own user, as far as the platform allows. A run an agent
// drives executes as the same user as the server that started it; without
// this, it could read the server's environment (its bearer token, the API
// keys a provider is given) from /proc/PID/environ, or its memory through
// ptrace, since the kernel lets a user read their own processes.
//
// [Protect] marks the calling process, for its lifetime:
//
//   - Linux: prctl(PR_SET_DUMPABLE, 0). /proc/PID/environ, mem, maps,
//     fd and the like become readable by root alone, ptrace attach is
//     refused, and no core file is written. /proc/PID/cmdline and stat
//     stay readable. The flag is reset by execve, so every process that
//     holds a secret calls Protect itself, first thing.
//   - FreeBSD: procctl(PROC_TRACE_CTL, PROC_TRACE_CTL_DISABLE): ptrace,
//     procfs and the kern.proc.env sysctl are refused to the user's other
//     processes (kern.proc.args, the command line, stays readable).
//     execve resets it, as on Linux.
//   - macOS: ptrace(PT_DENY_ATTACH): a debugger cannot attach. The
//     environment a process started with stays readable by its user's
//     other processes (ps -E, sysctl KERN_PROCARGS2): there, keep the
//     bearer token in a file (--token-file), not the environment, and run
//     agents under a user of their own.
//   - elsewhere: nothing.
//
// Nothing here stops root, nor a process of the same user that was
// already tracing the server before it called Protect. The one defence
// that holds everywhere is a different user: run agents under a uid of
// their own (a provider command such as sudo -u agent -- claude …).
package nodump
