//go:build unix

package server_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/verbsurface/verbsurface/internal/docfigures"
)

// v1ToolsBytes is what the seven-tool v1 server advertised (measured
// once, when it was replaced; bench/figures compares with it too).
const v1ToolsBytes = 8683

// TestDocumentedFiguresAreTrue: every figure docs/figures.md and the
// README mark as checked (<!-- figure: NAME --> before the number, see
// package internal/docfigures) is what limcp's server produces now: the
// bytes of the one tool's tools/list entry and its ratio to the v1
// server's, the catalog's verbs and its bytes per verb. A marker this test
// does not know is an error too, so no figure looks checked that is not.
// (Timings are measured by bench/run and carry its date; they are not
// checked here, since nothing in CI may assert a time.)
func TestDocumentedFiguresAreTrue(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	tools, err := f.cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 {
		t.Fatalf("tools/list: %v, %d tools", err, len(tools.Tools))
	}
	entry, err := json.Marshal(tools.Tools[0])
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: "request", Arguments: json.RawMessage(`{"help": true}`)})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	var cat struct {
		Help struct {
			Verbs []string `json:"verbs"`
		} `json:"help"`
	}
	if err := json.Unmarshal([]byte(text), &cat); err != nil || len(cat.Help.Verbs) == 0 {
		t.Fatalf("catalog: %v: %s", err, text)
	}
	lines := 0
	for _, l := range cat.Help.Verbs {
		lines += len(l)
	}
	verbs := float64(len(cat.Help.Verbs))
	produced := map[string]float64{
		"tool_bytes":             float64(len(entry)),
		"tool_ratio_v1":          v1ToolsBytes / float64(len(entry)),
		"catalog_verbs":          verbs,
		"catalog_line_bytes":     float64(lines) / verbs,
		"catalog_response_bytes": float64(len(text)) / verbs,
	}

	root := repoRoot(t)
	checked := 0
	for _, page := range []string{"docs/figures.md", "README.md"} {
		figs, err := docfigures.ParseFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		for _, fig := range figs {
			got, known := produced[fig.Name]
			switch {
			case !known:
				t.Errorf("%s:%d: figure %q is marked as checked but no test produces it (known: tool_bytes, tool_ratio_v1, catalog_verbs, catalog_line_bytes, catalog_response_bytes)", page, fig.Line, fig.Name)
			case !fig.Matches(got):
				t.Errorf("%s:%d: %s states %s; the code produces %s: update the page (bench/run measures the rest)", page, fig.Line, fig.Name, fig.Text, fig.Format(got))
			default:
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("docs/figures.md marks no figure: the tool's bytes and the catalog's bytes per verb must be checked")
	}
}

// repoRoot is the module's root: the directory above this package that
// holds go.mod.
func repoRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the package")
		}
		dir = parent
	}
}
