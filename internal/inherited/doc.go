// Package inherited keeps the descriptors a server was started with from
// reaching the processes it starts. A descriptor the server inherits
// without close-on-exec (a shell's `7<secret`, a supervisor's socket) is
// otherwise inherited again by every command, the detached worker a
// command starts and the provider that worker runs: a provider's
// `cat /proc/self/fd/7` would read the operator's file.
//
// [CloseOnExec] marks every descriptor above 2 close-on-exec, once, first
// thing at start. What a child is given on purpose still reaches it:
// os/exec hands stdin, stdout, stderr and ExtraFiles to the child by
// dup2, which clears the flag on the child's copy. Descriptors the Go
// runtime and the standard library open are close-on-exec already.
package inherited
