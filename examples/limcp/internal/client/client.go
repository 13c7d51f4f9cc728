package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolName is the server's one tool.
const ToolName = "request"

// Response is the answer to one request, as the server sent it.
type Response struct {
	// JSON is the response object as compact JSON: the tool result's
	// structured content (the server sends the same bytes as its one text
	// item, in the surface's key order, which is what JSON keeps).
	JSON json.RawMessage
	// Status is the response's "status": success, partial or error.
	Status string
	// IsError is the MCP result's isError flag (set when Status is error).
	IsError bool
}

// Session is a live stdio MCP session with a `limcp mcp` child process.
type Session struct {
	session *mcp.ClientSession
}

// Dial starts server (a `limcp mcp` command, not yet started) as a child
// process and opens an MCP session with it over its stdin and stdout: the
// same transport an MCP client such as an agent uses. Close ends the
// session and the child.
func Dial(ctx context.Context, server *exec.Cmd) (*Session, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "limcp-call", Version: "v1"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: server}, nil)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", server.Path, err)
	}
	return &Session{session: cs}, nil
}

// Request sends one tools/call of the request tool with request as its
// arguments (a JSON object: the envelope) and returns the response.
func (s *Session) Request(ctx context.Context, request json.RawMessage) (*Response, error) {
	res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: ToolName, Arguments: request})
	if err != nil {
		return nil, err
	}
	return decodeResult(res)
}

// MCP returns the underlying SDK session (tools/list, progress, ...).
func (s *Session) MCP() *mcp.ClientSession { return s.session }

// Close ends the session: the child's stdin is closed, and it exits.
func (s *Session) Close() error { return s.session.Close() }

// Call is Dial, one Request, and Close: what `limcp call` does.
func Call(ctx context.Context, server *exec.Cmd, request json.RawMessage) (*Response, error) {
	s, err := Dial(ctx, server)
	if err != nil {
		return nil, err
	}
	resp, err := s.Request(ctx, request)
	// Once the answer has arrived, a child that exits untidily does not
	// undo it: the close error is not the caller's concern.
	_ = s.Close()
	return resp, err
}

// decodeResult reads the response object out of a tool result: the text
// item (the surface's compact JSON, keys in its order), falling back to
// the structured content.
func decodeResult(res *mcp.CallToolResult) (*Response, error) {
	var raw []byte
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			raw = []byte(t.Text)
			break
		}
	}
	if raw == nil && res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("the tool result's structured content does not encode: %w", err)
		}
		raw = b
	}
	if raw == nil {
		return nil, errors.New("the tool result has neither text nor structured content")
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, fmt.Errorf("the tool result is not JSON: %w", err)
	}
	// A response is an object: "null" would decode into an empty head and
	// read as a response without a status.
	var head struct {
		Status string `json:"status"`
	}
	if b := compact.Bytes(); b[0] != '{' {
		return nil, fmt.Errorf("the tool result is not a response object: %.40s", b)
	}
	if err := json.Unmarshal(compact.Bytes(), &head); err != nil {
		return nil, fmt.Errorf("the tool result is not a response object: %w", err)
	}
	return &Response{JSON: compact.Bytes(), Status: head.Status, IsError: res.IsError}, nil
}
