package client

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDecodeResult: the response is read from the text item (keeping the
// surface's key order), else from the structured content; anything that
// is not a response object is an error, never an empty success.
func TestDecodeResult(t *testing.T) {
	for _, c := range []struct {
		name       string
		res        *mcp.CallToolResult
		wantJSON   string
		wantStatus string
		wantErr    string
	}{
		{name: "text item, compacted, key order kept",
			res:      &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"status": "partial", "results": [ ]}`}}},
			wantJSON: `{"status":"partial","results":[]}`, wantStatus: "partial"},
		{name: "structured content when there is no text",
			res:      &mcp.CallToolResult{StructuredContent: map[string]any{"status": "success"}},
			wantJSON: `{"status":"success"}`, wantStatus: "success"},
		{name: "error status and isError",
			res:      &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: `{"status":"error","error":{"code":"malformed_envelope"}}`}}},
			wantJSON: `{"status":"error","error":{"code":"malformed_envelope"}}`, wantStatus: "error"},
		{name: "text that is not JSON", res: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "oops"}}}, wantErr: "not JSON"},
		{name: "JSON that is not an object", res: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "[1]"}}}, wantErr: "not a response object"},
		{name: "JSON null", res: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: " null "}}}, wantErr: "not a response object"},
		{name: "empty text", res: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: ""}}}, wantErr: "not JSON"},
		{name: "nothing at all", res: &mcp.CallToolResult{}, wantErr: "neither"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := decodeResult(c.res)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v; want one saying %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(r.JSON) != c.wantJSON || r.Status != c.wantStatus || r.IsError != c.res.IsError || !json.Valid(r.JSON) {
				t.Fatalf("got %s %q %v", r.JSON, r.Status, r.IsError)
			}
		})
	}
}
