//go:build unix

package mcphttp

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolsCacheScope: tools/list is cached "public" unless the request
// carries a per-caller identity (a token naming its user).
func TestToolsCacheScope(t *testing.T) {
	list := newerProtocol(func(context.Context, string, mcp.Request) (mcp.Result, error) {
		return &mcp.ListToolsResult{}, nil
	})
	for _, c := range []struct {
		name  string
		extra *mcp.RequestExtra
		want  string
	}{
		{"no token info", nil, "public"},
		{"the shared token", &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{}}, "public"},
		{"a token naming its user", &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: "alice"}}, "private"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := list(context.Background(), "tools/list", &mcp.ListToolsRequest{Params: &mcp.ListToolsParams{}, Extra: c.extra})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.(*mcp.ListToolsResult).CacheScope; got != c.want {
				t.Fatalf("cacheScope %q; want %q", got, c.want)
			}
		})
	}
}
