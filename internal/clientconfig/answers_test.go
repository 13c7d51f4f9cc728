//go:build unix

package clientconfig

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scriptClient puts a program named prog on a fresh PATH that prints out
// on stdout and err on stderr and exits with code, whatever it is asked:
// a stand-in for one answer of a client's look-up (`claude mcp get NAME`,
// `codex mcp get NAME --json`), with the exact words and status each
// release printed (the rows below name the release), and answers no
// release gave, which no real client can be made to give.
func scriptClient(t *testing.T, prog, out, err string, code int) []string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\nprintf '%s' '" + out + "'\nprintf '%s' '" + err + "' >&2\nexit " + string(rune('0'+code)) + "\n"
	if e := os.WriteFile(filepath.Join(dir, prog), []byte(script), 0o755); e != nil {
		t.Fatal(e)
	}
	return []string{"HOME=" + t.TempDir(), "PATH=" + dir + ":/usr/bin:/bin"}
}

// TestLookupAnswers: a client's look-up for a server of the name is read
// by its exit status and shape, in every wording a release has used; an
// answer of another shape is a ClientError carrying the lines to run by
// hand, not a guess.
func TestLookupAnswers(t *testing.T) {
	for _, tt := range []struct {
		name, client, out, err string
		code                   int
		absent                 bool // the answer says there is none: Install goes on to add
	}{
		{"claude 2.1.1xx: none", "claude", "", "No MCP server found with name: limcp", 1, true},
		{"claude 2.1.3xx: none", "claude", "", `No MCP server named "limcp". Run ` + "`claude mcp add`" + ` to add one.`, 1, true},
		{"codex 0.171: none", "codex", "", "Error: No MCP server named 'limcp' found.", 1, true},
		{"claude: a crash", "claude", "", "TypeError: cannot read properties of undefined", 1, false},
		{"claude: killed", "claude", "", "", 9, false},
		{"codex: found, but not its JSON", "codex", "limcp: enabled", "", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := scriptClient(t, tt.client, tt.out, tt.err, tt.code)
			c, _ := Lookup(tt.client)
			r := newRunner(&Options{Environ: env, GOOS: "linux"})
			_, err := c.impl.find(t.Context(), r, stdioServer)
			if tt.absent {
				if err != nil {
					t.Fatalf("find: %v; want none found", err)
				}
				return
			}
			_, err = c.Install(t.Context(), stdioServer, &Options{Environ: env, GOOS: "linux"})
			var ce *ClientError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), "does not recognise") ||
				!strings.Contains(err.Error(), "add it by hand") || !strings.Contains(err.Error(), tt.client+" mcp add limcp") {
				t.Fatalf("Install: %v; want a ClientError with the manual line", err)
			}
		})
	}
}

// TestInstallGeminiTrustFolder: with TrustFolder, install gemini also adds
// the folder to trustedFolders.json beside the settings, keeping what it
// held; a relative folder is refused before anything runs.
func TestInstallGeminiTrustFolder(t *testing.T) {
	f := newRealFixture(t)
	trusted := filepath.Join(f.home, ".gemini", "trustedFolders.json")
	if err := os.MkdirAll(filepath.Dir(trusted), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trusted, []byte(`{"/srv/old": "TRUST_PARENT"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _ := Lookup("gemini")
	o := f.opts(false)
	o.TrustFolder = "/work/project"
	if _, err := c.Install(t.Context(), stdioServer, o); err != nil {
		t.Fatal(err)
	}
	if got := f.jsonAt(trusted, "/work/project"); got != "TRUST_FOLDER" {
		t.Errorf("trustedFolders.json has %v for the folder; want TRUST_FOLDER", got)
	}
	if got := f.jsonAt(trusted, "/srv/old"); got != "TRUST_PARENT" {
		t.Errorf("trustedFolders.json lost its entry: %v", got)
	}
	if !strings.Contains(f.out.String(), "trusts /work/project") {
		t.Errorf("output does not say the folder is trusted:\n%s", f.out.String())
	}

	f = newRealFixture(t)
	o = f.opts(false)
	o.TrustFolder = "project"
	if _, err := c.Install(t.Context(), stdioServer, o); err == nil || !strings.Contains(err.Error(), "not an absolute path") {
		t.Errorf("a relative folder: %v", err)
	}
	if inv := f.invocations(); len(inv) != 0 {
		t.Errorf("ran %q", inv)
	}
}
