// Package procstat reads facts about a running process from Linux's /proc,
// for the tests and benchmarks that hold a server to a bound from the
// outside: how many descriptors it holds, how many TCP connections it
// accepted on a port, a size from its status (VmRSS, VmHWM), and its CPU
// time over every thread. Each
// function returns an error where /proc cannot answer (another platform,
// another user's process), so a test can skip with the reason instead of
// asserting on nothing.
package procstat
