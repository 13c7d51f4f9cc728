package verbsurface

import (
	"context"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// LogRequests logs every MCP request server receives to logger, one
// record each once it is answered, at level Info (an error answer at
// Warn): the method ("initialize", "tools/list", "tools/call", ...), the
// client's name and version as it gave them (in initialize, or in the
// request's _meta under the stateless protocol), the tool's name for
// tools/call, the duration and the outcome ("ok", or the error). It logs
// the fact of each request, never its arguments or its result: the ops of
// a tools/call are the audit's (package policy), whose redaction decides
// what of them is written.
//
// It is how an operator (and a test) sees what a client really asks of
// the server: `claude mcp list` connects and lists the tools; Gemini CLI's
// `gemini mcp list` only initializes and pings.
func LogRequests(server *mcp.Server, logger *slog.Logger) {
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			start := time.Now()
			res, err := next(ctx, method, req)
			attrs := []slog.Attr{slog.String("method", method)}
			if impl := requestImplementation(req); impl != nil {
				attrs = append(attrs, slog.String("client", impl.Name), slog.String("client_version", impl.Version))
			}
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil {
				attrs = append(attrs, slog.String("tool", p.Name))
			}
			attrs = append(attrs, slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000))
			level := slog.LevelInfo
			if err != nil {
				level = slog.LevelWarn
				attrs = append(attrs, slog.String("outcome", "error"), slog.String("error", err.Error()))
			} else if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
				attrs = append(attrs, slog.String("outcome", "tool_error"))
			} else {
				attrs = append(attrs, slog.String("outcome", "ok"))
			}
			logger.LogAttrs(ctx, level, "mcp request", attrs...)
			return res, err
		}
	})
}

// requestImplementation is the client as the request names it: the
// initialize params' clientInfo, or what the SDK reads from the request's
// _meta or the session's initialize.
func requestImplementation(req mcp.Request) *mcp.Implementation {
	if p, ok := req.GetParams().(*mcp.InitializeParams); ok && p != nil {
		return p.ClientInfo
	}
	if r, ok := req.(interface{ ClientInfo() *mcp.Implementation }); ok {
		return r.ClientInfo()
	}
	return nil
}
