//go:build unix

package clientconfig

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/verbsurface/verbsurface/internal/golden"
)

// TestMergeKeepsEverything: merging into an existing file keeps every
// other member as written (order, a number no float64 holds, other
// servers), the file's indentation, its mode, and a symbolic link as a
// link; only the one entry is added.
func TestMergeKeepsEverything(t *testing.T) {
	f := newFixture(t, false)
	dir := filepath.Join(f.home, "dotfiles")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "mcp.json")
	before := "{\n    \"z-first\": 12345678901234567890,\n    \"mcpServers\": {\n        \"other\": {\"command\": \"/bin/other\", \"args\": []}\n    },\n    \"a-last\": [true, null, \"é\"]\n}\n"
	if err := os.WriteFile(real, []byte(before), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(f.home, ".cursor"), 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(f.home, ".cursor", "mcp.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := f.install("cursor", stdioServer, false); err != nil {
		t.Fatal(err)
	}
	want := "{\n    \"z-first\": 12345678901234567890,\n    \"mcpServers\": {\n        \"other\": {\n            \"command\": \"/bin/other\",\n            \"args\": []\n        },\n" +
		"        \"limcp\": {\n            \"command\": \"/opt/bin/limcp\",\n            \"args\": [\n                \"mcp\"\n            ],\n            \"env\": {\n                \"LIMCP_HOME\": \"/home/u/state\"\n            }\n        }\n    },\n" +
		"    \"a-last\": [\n        true,\n        null,\n        \"é\"\n    ]\n}\n"
	got, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, string(got)); d != "" {
		t.Errorf("merged file (-want +got):\n%s", d)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is no longer a link: %v %v", fi.Mode(), err)
	}
	if fi, err := os.Stat(real); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 kept", fi.Mode())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".mcp.json.*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestMergeThroughDanglingLink: a client configuration that is a symbolic
// link to a file not made yet (a dotfiles checkout before its first use)
// was replaced by a regular file, although install writes through links.
// The link stays a link and its target is created, also through a link to
// a link; a link into a directory that does not exist is refused, naming
// both, with nothing written.
func TestMergeThroughDanglingLink(t *testing.T) {
	f := newFixture(t, false)
	dots := filepath.Join(f.home, "dotfiles")
	for _, d := range []string{dots, filepath.Join(f.home, ".cursor")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(f.home, ".cursor", "mcp.json")
	if err := os.Symlink("../dotfiles/cursor-link", link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("cursor.json", filepath.Join(dots, "cursor-link")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.install("cursor", stdioServer, false); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	b, err := os.ReadFile(filepath.Join(dots, "cursor.json"))
	if err != nil || !strings.Contains(string(b), `"/opt/bin/limcp"`) {
		t.Fatalf("the link's target: %q, %v", b, err)
	}

	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	nowhere := filepath.Join(f.home, "nowhere", "mcp.json")
	if err := os.Symlink(nowhere, link); err != nil {
		t.Fatal(err)
	}
	_, err = f.install("cursor", stdioServer, false)
	if err == nil || !strings.Contains(err.Error(), link) || !strings.Contains(err.Error(), nowhere) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("a link into a missing directory: %v; want a refusal naming both", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if _, err := os.Stat(filepath.Dir(nowhere)); err == nil {
		t.Fatal("install made the directory the link points into")
	}
}

// TestMergeNewFile: with no file, the directory (0700) and a 0600 file
// holding only the entry are created.
func TestMergeNewFile(t *testing.T) {
	f := newFixture(t, false)
	if _, err := f.install("cursor", stdioServer, false); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(f.home, ".cursor", "mcp.json")
	fi, err := os.Stat(path)
	di, derr := os.Stat(filepath.Dir(path))
	if err != nil || derr != nil || fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Fatalf("file %v %v, directory %v %v; want 0600 in 0700", fi, err, di, derr)
	}
}

// TestMergeRefuses: a file that is not a JSON object with a servers
// object is refused with the file named, and left byte for byte as it
// was.
func TestMergeRefuses(t *testing.T) {
	for _, tt := range []struct{ rule, content, says string }{
		{"not JSON", "{\"mcpServers\": {", "not valid JSON"},
		{"JSON with comments", "{\n  // mine\n  \"mcpServers\": {}\n}\n", "not valid JSON"},
		{"an array", "[]", "not a JSON object"},
		{"mcpServers not an object", `{"mcpServers": ["a"]}`, "\"mcpServers\" member"},
		{"a key twice", `{"mcpServers": {}, "mcpServers": {}}`, "twice"},
		{"data after the object", `{"mcpServers": {}} {}`, "after the object"},
	} {
		t.Run(tt.rule, func(t *testing.T) {
			f := newFixture(t, false)
			path := filepath.Join(f.home, ".cursor", "mcp.json")
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := f.install("cursor", stdioServer, true)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.says) || !strings.Contains(err.Error(), "left as it is") {
				t.Errorf("Install = %v; want a refusal naming %s and saying %q", err, path, tt.says)
			}
			if got, _ := os.ReadFile(path); string(got) != tt.content {
				t.Errorf("the file changed:\n%s", got)
			}
		})
	}
}

// TestVSCodeWithComments: VS Code's mcp.json may hold comments (it is
// JSONC): a server of the name in such a file is found, but without
// `code` the file is not rewritten (that would drop the comments).
func TestVSCodeWithComments(t *testing.T) {
	f := newFixture(t, false)
	path := filepath.Join(f.home, ".config", "Code", "User", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	content := "{\n  // my servers\n  \"servers\": {\n    \"limcp\": {\"type\": \"stdio\", \"command\": \"/x\",}, /* old */\n  },\n}\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := f.install("vscode", stdioServer, false); err == nil || !strings.Contains(err.Error(), "already has") {
		t.Errorf("a server in a commented file: %v; want it found", err)
	}
	if _, err := f.install("vscode", stdioServer, true); err == nil || !strings.Contains(err.Error(), "left as it is") {
		t.Errorf("rewriting a commented file: %v; want a refusal", err)
	}
	if got, _ := os.ReadFile(path); string(got) != content {
		t.Errorf("the file changed:\n%s", got)
	}
}

// TestPrint pins what --print shows for each client, for a stdio and an
// HTTP server: the command lines, or the file and the JSON to merge, and
// what is stored and how to check. Nothing is run or written.
func TestPrint(t *testing.T) {
	env := []string{"HOME=/home/u", "PATH=" + fakeBin}
	for _, c := range Clients() {
		for kind, s := range map[string]*Server{"stdio": stdioServer, "http": httpServer} {
			t.Run(c.Name+"/"+kind, func(t *testing.T) {
				out, err := c.Print(s, &Options{Environ: env, GOOS: "linux"})
				if err != nil {
					t.Fatal(err)
				}
				golden.Bytes(t, "print."+c.Name+"."+kind, []byte(out))
			})
		}
	}
}

// TestPrintedLinesRunAsPrinted: a printed command line, read by a POSIX
// shell, is the argv Install runs, hostile words included ($, quotes,
// spaces, a header's ${VAR} that the shell must not expand).
func TestPrintedLinesRunAsPrinted(t *testing.T) {
	words := []string{"plain", "with space", "it's", `"double"`, "${LIMCP_MCP_TOKEN}", "$HOME", "a;b", "back\\slash", "*", "", "KEY=value", "-x", "é"}
	line := formatArgv(words)
	out, err := exec.Command("sh", "-c", `for w in `+line+`; do printf '%s\0' "$w"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if d := cmp.Diff(words, got); d != "" {
		t.Errorf("%s read back (-want +got):\n%s", line, d)
	}
}

// TestHTTPHint: the lines a server prints read the token from its file
// into the variable, name the install command, and quote the header so
// the shell leaves ${VAR} to the client; the server goes under NAME-http,
// beside the stdio server of NAME (a second install under one name is
// refused).
func TestHTTPHint(t *testing.T) {
	got := HTTPHint("limcp mcp install", httpServer, "/home/u/my state/mcp-token")
	want := "  export LIMCP_MCP_TOKEN=\"$(cat '/home/u/my state/mcp-token')\"\n" +
		"  limcp mcp install claude --http http://127.0.0.1:8765/mcp --name limcp-http    # or codex, gemini, cursor, vscode (docs/clients.md)\n" +
		"  # by hand: claude mcp add limcp-http --scope user --transport http http://127.0.0.1:8765/mcp --header 'Authorization: Bearer ${LIMCP_MCP_TOKEN}'\n"
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("HTTPHint (-want +got):\n%s", d)
	}
	if got := HTTPHint("limcp mcp install", httpServer, ""); strings.Contains(got, "export") {
		t.Errorf("a token already in the variable needs no export:\n%s", got)
	}
}
