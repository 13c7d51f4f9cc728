// Package client is the client half of `limcp call`, the first thing a
// newcomer runs.
//
// [Call] starts `limcp mcp` (the same executable, the same state home) as
// a child process, opens a real MCP session with it over stdio (the go-sdk
// client over [mcp.CommandTransport], exactly what an agent's MCP client
// does), sends one tools/call of the tool "request", and returns the
// response. [Dial] keeps the session open for several requests (the bench
// measures the server's overhead that way).
//
// The `limcp call` command itself (reading the request, printing the
// response, the exit status) is in the cli package: it prints the response
// as compact JSON and exits 1 when the response's status is "error" (a
// malformed envelope or a batch over the cap); a partial response exits 0,
// since each op's own ok says how it went. It starts the server with
// --no-notify: the server exits with the request, so a notify attached to
// the runs it submits could only fail.
//
// What it does not do: it neither validates nor rewrites the request
// beyond requiring a JSON object; the server reports every problem.
package client
