//go:build unix

package mcphttp

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolsTTL is how long a client on protocol 2026-07-28 may cache the
// tools/list result of a server served here (its ttlMs): a day. The
// servers this package is for advertise one tool that never changes
// while they serve (verbsurface's request: the verbs change behind it,
// the tool does not), so the list a client fetched stays right.
const ToolsTTL = 24 * time.Hour

// newerProtocol is the receiving middleware [Handler] adds to the server
// for what protocol 2026-07-28 asks of a server that the SDK (v1.8.0)
// leaves to it; everything else of that version (removed methods answered
// 404 with -32601, version and header errors, Mcp-Method and Mcp-Name
// checked against the body, no log notification without a requested
// level) the SDK's stateless handler does itself.
//
//   - tools/list carries the caching hints: ttlMs [ToolsTTL], where the
//     SDK's default is 0 (stale at once), and cacheScope "public", since
//     every caller is answered the same list, or "private" when the
//     request carries a per-caller identity (a bearer token naming its
//     user; the shared token of [Options].Token names none). The SDK
//     would take both from ServerOptions.SetCacheable, which belongs to
//     the front that built the server; this sets them in one place for
//     both fronts.
//   - server/discover declares the prompts and resources capabilities
//     (without listChanged or subscribe) when the server has neither:
//     the SDK answers prompts/list, resources/list and
//     resources/templates/list on every server, empty and with caching
//     hints, so a client on 2026-07-28 reading the capabilities must see
//     them honoured. (Refusing the calls instead would be the other
//     truthful answer; the official suite's caching scenario requires
//     them answered.)
//
// An older client's initialize result is left as it was.
func newerProtocol(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		switch r := res.(type) {
		case *mcp.ListToolsResult:
			r.TTLMs = int(ToolsTTL / time.Millisecond)
			r.CacheScope = "public"
			if extra := req.GetExtra(); extra != nil && extra.TokenInfo != nil && extra.TokenInfo.UserID != "" {
				r.CacheScope = "private"
			}
		case *mcp.DiscoverResult:
			if r.Capabilities == nil {
				r.Capabilities = &mcp.ServerCapabilities{}
			}
			if r.Capabilities.Prompts == nil {
				r.Capabilities.Prompts = &mcp.PromptCapabilities{}
			}
			if r.Capabilities.Resources == nil {
				r.Capabilities.Resources = &mcp.ResourceCapabilities{}
			}
		}
		return res, nil
	}
}
