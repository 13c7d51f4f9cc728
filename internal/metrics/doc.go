// Package metrics counts what a server does, for Prometheus: both fronts
// (`limcp mcp` and `verbsurface serve`) serve it with --metrics ADDR, on a
// loopback address of its own, in Prometheus's text format at /metrics.
//
// The series, all prefixed verbsurface_:
//
//   - mcp_requests_total{method, outcome}: every MCP request received
//     (initialize, tools/list, tools/call, ...), outcome ok, tool_error or
//     error; mcp_requests_in_flight, those being answered now.
//   - ops_total{verb, class, outcome}: every op of every tools/call,
//     outcome "ok" or its error code; a refused op counts under its code
//     (unknown_verb, invalid_args, stale_fingerprint, denied, ...), so the
//     rejections by reason are ops_total{outcome!="ok"}.
//   - op_duration_seconds{verb, class}: how long each op took, gates
//     included.
//   - spawns_total{verb}: spawn ops that started work.
//   - http_refused_total{reason}: requests and connections the HTTP face
//     refused before any MCP request was served (mcphttp's Refused*
//     reasons: origin, token, path, connections, body_too_large,
//     sessions, and the SDK's protocol, host, not_found, other), counted
//     through mcphttp.Options.OnRefused ([Metrics.OnRefused]).
//   - runs_live: runs started and not yet ended, read from the front's
//     store at each scrape ([Metrics.LiveRuns]; limcp's, and a
//     YAML front's background runs).
//
// It uses github.com/prometheus/client_golang, the format's own library:
// the text format's escaping, histogram buckets and the registry's
// consistency checks are exactly what a hand-written exporter gets wrong.
package metrics
