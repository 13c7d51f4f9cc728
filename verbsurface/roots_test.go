//go:build unix

package verbsurface

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/projector"
)

// rootsTree is one command, "read", with a parameter of each path use
// marked the way an adapter marks them, and "plain", a string that is not
// a path until a verb's PathParams says so.
func rootsTree() *projector.Tree {
	str := func(name string, use projector.PathUse) *projector.Param {
		return &projector.Param{Name: name, Options: []string{"--" + name}, Kind: projector.KindString,
			Arity: projector.ArityOne, Action: "pflag:string", Type: "string", Path: use}
	}
	return &projector.Tree{Program: "t", Dialect: projector.DialectPflag, Commands: []*projector.Command{
		{Path: []string{}, Params: []*projector.Param{}},
		{Path: []string{"read"}, Runnable: true, Params: []*projector.Param{
			str("file", projector.PathUseRead), str("dir", projector.PathUseDir), str("out", projector.PathUseWrite), str("plain", projector.PathUseNone)}},
	}}
}

// rootsSurface serves "file.read", whose handler returns the args it got
// and the content it read through OpenConfined: what a preparer would see.
func rootsSurface(t testing.TB, roots []string, pathParams map[string]projector.PathUse) *Surface {
	t.Helper()
	return rootsSurfaceOpts(t, pathParams, &Options{Roots: roots, NoRootsHint: "start it with --root DIR"})
}

// rootsSurfaceOpts is rootsSurface with more options (Source is set here).
func rootsSurfaceOpts(t testing.TB, pathParams map[string]projector.PathUse, opts *Options) *Surface {
	t.Helper()
	reg, _ := NewRegistry(nil)
	err := reg.Register(Verb{Name: "file.read", Class: ClassObserve, Path: []string{"read"}, Summary: "read a file",
		PathParams: pathParams,
		Handler: func(ctx context.Context, call *Call) (any, error) {
			out := map[string]any{"args": call.Args}
			if path, ok := call.Args["file"].(string); ok {
				f, err := OpenConfined(ctx, "file", path)
				if err != nil {
					return nil, err
				}
				b, err := io.ReadAll(f)
				if err != nil {
					return nil, err
				}
				out["content"] = string(b)
			}
			return out, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	o := *opts
	o.Source = StaticTree(rootsTree())
	s, err := New(reg, &o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type rootsOutcome struct {
	ok       bool
	rule     string
	reason   string
	args     map[string]any
	content  string
	hasHelp  bool
	duration time.Duration
}

func readOp(t testing.TB, s *Surface, args map[string]any) rootsOutcome {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"ops": []any{map[string]any{"op": "file.read", "args": args}}})
	start := time.Now()
	resp := s.Handle(context.Background(), b, nil)
	out := rootsOutcome{duration: time.Since(start)}
	r := resp.Results[0]
	if r.OK {
		var res struct {
			Args    map[string]any `json:"args"`
			Content string         `json:"content"`
		}
		if err := json.Unmarshal(r.Result, &res); err != nil {
			t.Fatal(err)
		}
		out.ok, out.args, out.content = true, res.Args, res.Content
		return out
	}
	if r.Error.Code != CodeInvalidArgs || len(r.Error.Problems) == 0 {
		t.Fatalf("error %+v, want invalid_args with problems", r.Error)
	}
	out.rule, out.reason = r.Error.Problems[0].Rule, r.Error.Problems[0].Reason
	out.hasHelp = r.Error.Schema != nil && r.Error.SchemaFingerprint != "" && r.Error.HelpCall != nil
	return out
}

func TestConfinementToRoots(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{root, filepath.Join(root, "sub"), outside, filepath.Join(outside, "dir")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, body string) {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "in.txt"), "inside")
	write(filepath.Join(outside, "secret.txt"), "SECRET")
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "to-secret")))
	must(os.Symlink(filepath.Join(root, "in.txt"), filepath.Join(root, "sub", "to-in")))
	must(os.Symlink(filepath.Join(outside, "dir"), filepath.Join(root, "to-outside-dir")))
	must(os.Symlink("../../outside/secret.txt", filepath.Join(root, "sub", "rel-escape")))
	must(syscall.Mkfifo(filepath.Join(root, "fifo"), 0o600))
	s := rootsSurface(t, []string{root}, nil)
	realRoot, _ := filepath.EvalSymlinks(root)

	for _, c := range []struct {
		name    string
		args    map[string]any
		rule    string // "" = accepted
		content string
		real    map[string]string // param → expected real path
	}{
		{name: "regular file inside is read through the opened file", args: map[string]any{"file": filepath.Join(root, "in.txt")},
			content: "inside", real: map[string]string{"file": filepath.Join(realRoot, "in.txt")}},
		{name: "symlink inside to inside gets the target's real path", args: map[string]any{"file": filepath.Join(root, "sub", "to-in")},
			content: "inside", real: map[string]string{"file": filepath.Join(realRoot, "in.txt")}},
		{name: "doubled slashes and dots name nothing", args: map[string]any{"file": root + "//./in.txt"},
			content: "inside", real: map[string]string{"file": filepath.Join(realRoot, "in.txt")}},
		{name: "dot-dot above the root", args: map[string]any{"file": outside + "/../root/in.txt"}, rule: RuleUnusablePath},
		{name: "file outside every root", args: map[string]any{"file": filepath.Join(outside, "secret.txt")}, rule: RuleOutsideRoots},
		{name: "symlink inside to a file outside", args: map[string]any{"file": filepath.Join(root, "to-secret")}, rule: RuleOutsideRoots},
		{name: "relative symlink climbing out", args: map[string]any{"file": filepath.Join(root, "sub", "rel-escape")}, rule: RuleOutsideRoots},
		{name: "dot-dot escape", args: map[string]any{"file": root + "/sub/../../outside/secret.txt"}, rule: RuleOutsideRoots},
		{name: "dot-dot through a symlinked directory", args: map[string]any{"file": root + "/to-outside-dir/../secret.txt"}, rule: RuleOutsideRoots},
		{name: "proc is never inside", args: map[string]any{"file": "/proc/self/environ"}, rule: RuleOutsideRoots},
		{name: "relative path", args: map[string]any{"file": "in.txt"}, rule: RuleUnusablePath},
		{name: "missing file", args: map[string]any{"file": filepath.Join(root, "nope")}, rule: RuleUnusablePath},
		{name: "FIFO refused without blocking", args: map[string]any{"file": filepath.Join(root, "fifo")}, rule: RuleUnusablePath},
		{name: "directory where a file is read", args: map[string]any{"file": filepath.Join(root, "sub")}, rule: RuleUnusablePath},
		{name: "dir parameter gets the directory's real path", args: map[string]any{"dir": root + "/sub/.."},
			real: map[string]string{"dir": realRoot}},
		{name: "dir parameter refuses a file", args: map[string]any{"dir": filepath.Join(root, "in.txt")}, rule: RuleUnusablePath},
		{name: "dir parameter through a symlink leaving the root", args: map[string]any{"dir": filepath.Join(root, "to-outside-dir")}, rule: RuleOutsideRoots},
		{name: "write parameter to a new file inside", args: map[string]any{"out": filepath.Join(root, "sub", "new.txt")},
			real: map[string]string{"out": filepath.Join(realRoot, "sub", "new.txt")}},
		{name: "write parameter outside", args: map[string]any{"out": filepath.Join(outside, "new.txt")}, rule: RuleOutsideRoots},
		{name: "write parameter over a symlink leaving the root", args: map[string]any{"out": filepath.Join(root, "to-secret")}, rule: RuleOutsideRoots},
		{name: "a plain string is not a path", args: map[string]any{"plain": "/etc/passwd"}, real: map[string]string{"plain": "/etc/passwd"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := readOp(t, s, c.args)
			if c.rule != "" {
				if got.ok || got.rule != c.rule {
					t.Fatalf("got ok=%v rule %q (%s), want rule %q", got.ok, got.rule, got.reason, c.rule)
				}
				if !got.hasHelp {
					t.Error("the refusal does not carry schema, schema_fingerprint and help_call")
				}
				if c.rule == RuleOutsideRoots && !strings.Contains(got.reason, realRoot) {
					t.Errorf("the reason does not name the root %s: %s", realRoot, got.reason)
				}
				if strings.Contains(got.reason, "SECRET") {
					t.Errorf("the reason leaks the file: %s", got.reason)
				}
				if got.duration > 5*time.Second {
					t.Errorf("the refusal took %s", got.duration) // a FIFO read would block forever
				}
				return
			}
			if !got.ok {
				t.Fatalf("refused (%s: %s), want accepted", got.rule, got.reason)
			}
			if got.content != c.content {
				t.Errorf("content %q, want %q", got.content, c.content)
			}
			for param, want := range c.real {
				if got.args[param] != want {
					t.Errorf("%s = %v, want the real path %s", param, got.args[param], want)
				}
			}
		})
	}
}

func TestNoRootsMeansNoFileAccess(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := readOp(t, rootsSurface(t, nil, nil), map[string]any{"file": p})
	if got.ok || got.rule != RuleOutsideRoots || !strings.Contains(got.reason, "allows no file access") || !strings.Contains(got.reason, "--root DIR") {
		t.Fatalf("got %+v, want outside_roots saying how the operator allows file access", got)
	}
	// A verb that names no path argument is untouched.
	if got := readOp(t, rootsSurface(t, nil, nil), map[string]any{"plain": "x"}); !got.ok {
		t.Fatalf("a plain argument was refused: %+v", got)
	}
}

func TestRootSlashStillExcludesProcAndSys(t *testing.T) {
	s := rootsSurface(t, []string{"/"}, nil)
	for _, p := range []string{"/proc/self/environ", "/proc/1/../self/environ", "/sys/kernel/mm/../../../proc/self/status", "/dev/../proc/self/environ"} {
		if got := readOp(t, s, map[string]any{"file": p}); got.ok || got.rule != RuleOutsideRoots {
			t.Errorf("%s: got %+v, want outside_roots", p, got)
		}
	}
	// A symlink to /proc inside the root is judged by what was opened.
	dir := t.TempDir()
	link := filepath.Join(dir, "env")
	if err := os.Symlink("/proc/self/environ", link); err != nil {
		t.Fatal(err)
	}
	if got := readOp(t, s, map[string]any{"file": link}); got.ok || got.rule != RuleOutsideRoots {
		t.Errorf("symlink to /proc/self/environ: got %+v, want outside_roots", got)
	}
	if got := readOp(t, s, map[string]any{"file": "/dev/zero"}); got.ok || got.rule != RuleUnusablePath {
		t.Errorf("/dev/zero: got %+v, want unusable_path (a device)", got)
	}
}

func TestVerbPathParamsOverrideTheTree(t *testing.T) {
	root := t.TempDir()
	// "plain" becomes a read path; "file" stops being one.
	s := rootsSurface(t, []string{root}, map[string]projector.PathUse{"plain": projector.PathUseRead, "file": projector.PathUseNone})
	if got := readOp(t, s, map[string]any{"plain": "/etc/hostname"}); got.ok || got.rule != RuleOutsideRoots {
		t.Errorf("plain declared a path by the verb: got %+v, want outside_roots", got)
	}
	if got := readOp(t, s, map[string]any{"dir": "/"}); got.ok {
		t.Errorf("dir still marked by the tree: got %+v, want refused", got)
	}
}

func TestNewRefusesBadRoots(t *testing.T) {
	reg, _ := NewRegistry(nil)
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	for _, roots := range [][]string{{"relative"}, {"/does/not/exist"}, {file}} {
		if _, err := New(reg, &Options{Source: StaticTree(rootsTree()), Roots: roots}); err == nil {
			t.Errorf("roots %v accepted", roots)
		}
	}
}

func TestOpenConfinedOutsideAnOp(t *testing.T) {
	if _, err := OpenConfined(context.Background(), "file", "/etc/hostname"); err == nil {
		t.Fatal("OpenConfined opened a file no op confined")
	}
}

// BenchmarkConfineSmallFile is the cost the check adds to an op naming one
// small file inside a root (open in a root, real path, fstatfs, fstat).
func BenchmarkConfineSmallFile(b *testing.B) {
	root := b.TempDir()
	p := filepath.Join(root, "prompt.txt")
	os.WriteFile(p, []byte("hello"), 0o644)
	s := rootsSurface(b, []string{root}, nil)
	uses := map[string]projector.PathUse{"file": projector.PathUseRead}
	args := map[string]any{"file": p}
	b.ReportAllocs()
	for b.Loop() {
		_, files, problems := s.confine(uses, args)
		if len(problems) > 0 {
			b.Fatal(problems)
		}
		closeConfined(files)
	}
}

func TestChainPreparers(t *testing.T) {
	var order []string
	step := func(name string, fail bool) Preparer {
		return func(_ context.Context, args map[string]any) (map[string]any, map[string]any, func(), error) {
			out := map[string]any{}
			for k, v := range args {
				out[k] = v
			}
			out[name] = true
			if fail {
				return nil, nil, func() { order = append(order, "cleanup "+name) }, errorString("refused by " + name)
			}
			return out, map[string]any{name + "_info": 1}, func() { order = append(order, "cleanup "+name) }, nil
		}
	}
	args, info, cleanup, err := ChainPreparers(step("a", false), step("b", false))(context.Background(), map[string]any{})
	if err != nil || args["a"] != true || args["b"] != true || info["a_info"] != 1 || info["b_info"] != 1 {
		t.Fatalf("args %v info %v err %v", args, info, err)
	}
	cleanup()
	if strings.Join(order, ",") != "cleanup b,cleanup a" {
		t.Fatalf("cleanup order %v", order)
	}
	order = nil
	if _, _, _, err := ChainPreparers(step("a", false), step("b", true), step("c", false))(context.Background(), map[string]any{}); err == nil || err.Error() != "refused by b" {
		t.Fatalf("err %v", err)
	}
	if strings.Join(order, ",") != "cleanup b,cleanup a" {
		t.Fatalf("on error, cleanups %v", order)
	}
}

// TestConfinementConcurrent: one surface confines many ops at once; each
// reads its own file through its own opened descriptor (run with -race).
func TestConfinementConcurrent(t *testing.T) {
	root := t.TempDir()
	s := rootsSurface(t, []string{root}, nil)
	const n = 8
	done := make(chan error, n)
	for i := 0; i < n; i++ {
		p := filepath.Join(root, "f"+string(rune('a'+i)))
		if err := os.WriteFile(p, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
		go func() {
			for j := 0; j < 20; j++ {
				got := readOp(t, s, map[string]any{"file": p})
				if !got.ok || got.content != p {
					done <- errorString("op on " + p + " read " + got.content + " " + got.reason)
					return
				}
			}
			done <- nil
		}()
	}
	for i := 0; i < n; i++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
