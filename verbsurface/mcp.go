package verbsurface

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool returns the one tool's definition: name "request", a short
// description, the envelope's input schema, and annotations: the title,
// and readOnlyHint when the surface admits only observe verbs
// (Options.ReadOnly, or every registered verb observes); otherwise
// destructiveHint, since control verbs such as a kill may destroy work.
// Nothing in it depends on how many verbs are registered, so its size is
// the same for 10 verbs or 600. The hints are what MCP calls them: hints
// for a client's interface, never a guarantee a client may rely on for
// safety; the surface's own checks are the guarantee.
func (s *Surface) Tool() *mcp.Tool {
	title := s.opts.Title
	if title == "" {
		title = DefaultTitle
	}
	// The title is said once, in the tool's own field (annotations.title
	// is its older spelling), and destructiveHint only where it means
	// something: every byte here is paid on every request.
	annotations := &mcp.ToolAnnotations{ReadOnlyHint: s.readOnly()}
	if !annotations.ReadOnlyHint {
		destructive := true
		annotations.DestructiveHint = &destructive
	}
	return &mcp.Tool{
		Name:        ToolName,
		Title:       title,
		Description: s.description(),
		InputSchema: s.EnvelopeSchema(),
		Annotations: annotations,
	}
}

// readOnly reports whether nothing but observe verbs can run.
func (s *Surface) readOnly() bool {
	if s.opts.ReadOnly {
		return true
	}
	for _, v := range s.reg.snapshot() {
		if v.Class != ClassObserve {
			return false
		}
	}
	return true
}

// AddRequestTool registers the single tool "request" on server, answered by
// s. It uses the SDK's raw [mcp.ToolHandler]: the SDK neither unmarshals nor
// validates the arguments, because the surface's own envelope parsing
// reports every problem as a tool result (isError true, with the envelope
// schema), never as a protocol error. Every result carries the response
// object twice: as structuredContent and as one compact JSON text item
// with the same bytes.
//
// When the client sent a progress token, handlers receive a Progress func
// that sends MCP progress notifications on the request's session.
// AddRequestTool does not add any other tool, prompt or resource.
func AddRequestTool(server *mcp.Server, s *Surface) {
	server.AddTool(s.Tool(), func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var arguments json.RawMessage
		progress := noProgress
		if req != nil && req.Params != nil {
			arguments = req.Params.Arguments
			if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
				session := req.Session
				progress = func(ctx context.Context, done, total float64, message string) {
					// A failed notification must not fail the op: progress
					// is advisory, the result is what counts.
					_ = session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
						ProgressToken: token, Progress: done, Total: total, Message: message})
				}
			}
		}
		var ci ClientInfo
		if req != nil && req.Params != nil {
			ci = requestClient(req)
			ctx = context.WithValue(ctx, clientInfoKey{}, ci)
			if req.Extra != nil && req.Extra.Header != nil && s.opts.Identity != nil && s.opts.Identity.Exchange != nil {
				ctx = context.WithValue(ctx, requestHeaderKey{}, req.Extra.Header)
			}
			// A request holding any op the policy asks about runs none of
			// its ops until the person answered: the first round returns
			// the question, the retry carries the answer.
			if asks := s.Confirmations(ctx, arguments); len(asks) > 0 {
				// Before 2026-07-28 the SDK asks (elicitation/create) and
				// calls again within this one session, so the state binds
				// it; from then on a retry is a new request that may reach
				// any session, so it binds none.
				bind := ci.Session
				if req.ProtocolVersion() >= multiRoundTripVersion {
					bind = ""
				}
				answers, ask := s.confirmAnswers(req, bind, asks)
				if ask {
					return s.inputRequired(asks, bind), nil
				}
				ctx = withAnswers(ctx, answers)
			}
		}
		resp := s.Handle(ctx, arguments, progress)
		return ToolResult(resp), nil
	})
}

// multiRoundTripVersion is the first protocol version whose clients retry
// an input-required result themselves (SEP-2322).
const multiRoundTripVersion = "2026-07-28"

// ToolResult converts a response to the MCP tool result the binding sends.
func ToolResult(resp *Response) *mcp.CallToolResult {
	b := resp.JSON()
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
		StructuredContent: json.RawMessage(b),
		IsError:           resp.IsError(),
	}
}
