package verbsurface

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/verbsurface/verbsurface/projector"
)

// Problem rules of the confinement check (see "Files and roots" in the
// package documentation).
const (
	// RuleOutsideRoots: a path parameter names something outside every
	// root the operator allows (or the surface allows no file access at
	// all, or the path resolves into /proc or /sys). The reason names the
	// roots.
	RuleOutsideRoots = "outside_roots"
	// RuleUnusablePath: a path inside a root that cannot serve the
	// parameter: not absolute, missing, unreadable, or of the wrong type
	// (a FIFO, device, socket or directory where a regular file is
	// needed; a file where a directory is needed).
	RuleUnusablePath = "unusable_path"
)

// pseudoRoots are trees that are never inside a root, even when a root is
// "/": their files are the kernel's view of processes and devices
// (/proc/self/environ holds the server's secrets), not files an operator
// means to share.
var pseudoRoots = []string{"/proc", "/sys"}

// resolveRoots turns the operator's roots into absolute real paths, each an
// existing directory, sorted and without duplicates.
func resolveRoots(roots []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, r := range roots {
		if !filepath.IsAbs(r) {
			return nil, fmt.Errorf("verbsurface: New: root %q is not an absolute path", r)
		}
		real, err := filepath.EvalSymlinks(r)
		if err != nil {
			return nil, fmt.Errorf("verbsurface: New: root %q: %w", r, err)
		}
		fi, err := os.Stat(real)
		if err != nil {
			return nil, fmt.Errorf("verbsurface: New: root %q: %w", r, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("verbsurface: New: root %q is not a directory", r)
		}
		if !seen[real] {
			seen[real] = true
			out = append(out, real)
		}
	}
	sort.Strings(out)
	return out, nil
}

// PrivateInRootError is [New]'s error when a root and one of
// Options.Private overlap. Root and Private are real paths.
type PrivateInRootError struct {
	Root, Private string
}

func (e *PrivateInRootError) Error() string {
	rel := "holds"
	if within(e.Root, e.Private) {
		rel = "lies inside"
	}
	return fmt.Sprintf("verbsurface: New: the root %s %s %s, which the server keeps private (its state: a token, its configuration), "+
		"so a caller could name its files; choose roots that neither hold it nor lie inside it, or keep it elsewhere", e.Root, rel, e.Private)
}

// privateOutsideRoots fails when a private directory and a root overlap:
// the directory is a root, lies under one, or holds one. Both are compared
// as real paths; a private directory that does not exist yet is the real
// path of its nearest existing parent with the rest of its name.
func privateOutsideRoots(roots, private []string) error {
	for _, p := range private {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("verbsurface: New: private directory %q is not an absolute path", p)
		}
		real := realPathOf(p)
		for _, r := range roots {
			if within(real, r) || within(r, real) {
				return &PrivateInRootError{Root: r, Private: real}
			}
		}
	}
	return nil
}

// realPathOf is p's real path, as far as p exists: the real path of its
// nearest existing ancestor, with the rest of p's elements after it.
func realPathOf(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// below is given's path below root, as os.Root must resolve it: given's
// elements after root's, ".." kept, since os.Root resolves ".." against
// the real tree (a ".." after a symlink is not the lexical parent).
// Empty and "." elements are dropped ("//", "/./" name nothing), so
// "/srv/root//prod" is "prod". ok is false when given does not begin
// with root's elements: it reaches the root through a ".." above it,
// whose meaning depends on symlinks outside every root.
func below(given, root string) (rel string, ok bool) {
	var elems []string
	for _, e := range strings.Split(given, "/") {
		if e != "" && e != "." {
			elems = append(elems, e)
		}
	}
	var rootElems []string
	if root != "/" {
		rootElems = strings.Split(strings.TrimPrefix(root, "/"), "/")
	}
	if len(elems) < len(rootElems) || !slices.Equal(elems[:len(rootElems)], rootElems) {
		return "", false
	}
	if rest := elems[len(rootElems):]; len(rest) > 0 {
		return strings.Join(rest, "/"), true
	}
	return ".", true
}

// within reports whether path (absolute, clean) is dir or below it.
func within(path, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}

func inPseudo(path string) bool {
	for _, p := range pseudoRoots {
		if within(path, p) {
			return true
		}
	}
	return false
}

// pathParams is what the verb's parameters use as paths: the projected
// command's marks, overridden by the verb's own list.
func pathParams(v *Verb, cmd *projector.Command) map[string]projector.PathUse {
	var out map[string]projector.PathUse
	for _, p := range cmd.Params {
		if p.Path != projector.PathUseNone {
			if out == nil {
				out = map[string]projector.PathUse{}
			}
			out[p.Name] = p.Path
		}
	}
	for name, use := range v.PathParams {
		if use == projector.PathUseNone {
			delete(out, name)
			continue
		}
		if out == nil {
			out = map[string]projector.PathUse{}
		}
		out[name] = use
	}
	return out
}

// confinedFile is one path argument opened inside a root.
type confinedFile struct {
	param, real string
	file        *os.File
}

type confinedKey struct{}

// OpenConfined returns the file the surface opened, inside a root, for the
// path parameter param whose value (as a preparer or handler sees it, that
// is, its real path) is path. A preparer reads the caller's file through it
// instead of opening the path again, so nothing can be swapped in between
// the check and the read. The caller may read and close it; the surface
// closes it when the op ends in any case. It fails when the op has no such
// confined file: the parameter is not a read path parameter of the verb.
//
// Its signature is that of dispatch.PromptSnapshots.Open.
func OpenConfined(ctx context.Context, param, path string) (*os.File, error) {
	files, _ := ctx.Value(confinedKey{}).([]confinedFile)
	for _, f := range files {
		if f.param == param && f.real == path && f.file != nil {
			if _, err := f.file.Seek(0, 0); err != nil {
				return nil, fmt.Errorf("verbsurface: the confined file for %s: %w", param, err)
			}
			return f.file, nil
		}
	}
	return nil, fmt.Errorf("verbsurface: %s: no file was opened inside a root for %q (is it declared a read path parameter?)", param, path)
}

// confinedOp is an op's args once its path arguments were confined.
type confinedOp struct {
	// policy is the validated args as the caller sent them, each path
	// argument replaced by the real path of what was opened: what the
	// policy, the Decider, the audit and a confirmation's digest see.
	policy map[string]any
	// run is the normalized args with the same replacement: what runs.
	run map[string]any
	// files are the opened read files (the caller closes them).
	files []confinedFile
}

// confineOp confines the path arguments of an op that passed gate. A
// policy condition on a path parameter is then judged on the path that
// runs: "/srv/./prod", "/srv/dev/../prod" and a symlink to /srv/prod are
// all "/srv/prod" by the time any policy sees them.
func (s *Surface) confineOp(v *Verb, p *projection, g gated) (confinedOp, []Problem) {
	uses := pathParams(v, p.cmd)
	run, files, problems := s.confine(uses, g.normalized)
	if len(problems) > 0 {
		return confinedOp{}, problems
	}
	if len(files) == 0 && len(uses) == 0 {
		return confinedOp{policy: g.args, run: run}, nil
	}
	policy := make(map[string]any, len(g.args))
	for k, val := range g.args {
		policy[k] = val
		if _, isPath := uses[k]; isPath {
			policy[k] = run[k] // a path string or a list of them: normalizing changes neither
		}
	}
	return confinedOp{policy: policy, run: run, files: files}, nil
}

// confine checks every path argument of args against the roots and
// returns args with each path replaced by the real path of what was
// opened, the opened files (read parameters only; the caller closes them)
// and the problems. It never modifies args.
func (s *Surface) confine(uses map[string]projector.PathUse, args map[string]any) (map[string]any, []confinedFile, []Problem) {
	if len(uses) == 0 {
		return args, nil, nil
	}
	names := make([]string, 0, len(uses))
	for name := range uses {
		if _, ok := args[name]; ok {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return args, nil, nil
	}
	sort.Strings(names)
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = v
	}
	var files []confinedFile
	var problems []Problem
	one := func(name, given string) (string, bool) {
		real, f, prob := s.confinePath(name, given, uses[name])
		if prob != nil {
			problems = append(problems, *prob)
			return "", false
		}
		if f != nil {
			files = append(files, confinedFile{param: name, real: real, file: f})
		}
		return real, true
	}
	for _, name := range names {
		switch v := args[name].(type) {
		case string:
			if real, ok := one(name, v); ok {
				out[name] = real
			}
		case []any:
			list := make([]any, len(v))
			for i, item := range v {
				str, _ := item.(string)
				if real, ok := one(name, str); ok {
					list[i] = real
				}
			}
			out[name] = list
		default:
			problems = append(problems, Problem{Param: name, Rule: RuleUnusablePath,
				Reason: fmt.Sprintf("%s names a file, so it must be a path string, not %T", name, v)})
		}
	}
	if len(problems) > 0 {
		closeConfined(files)
		return nil, nil, problems
	}
	return out, files, nil
}

func closeConfined(files []confinedFile) {
	for _, f := range files {
		if f.file != nil {
			f.file.Close()
		}
	}
}

// confinePath opens given inside the root that lexically holds it and
// checks what was opened, in this order:
//
//  1. The surface has no roots: outside_roots, with the operator's hint.
//  2. given is not absolute: unusable_path.
//  3. given (cleaned) lies in /proc or /sys, or under no root:
//     outside_roots naming the roots. Nothing is opened.
//  4. It is opened through os.Root, which resolves ".." and symlinks
//     without ever leaving the root (an escape fails here:
//     outside_roots), without blocking (O_NONBLOCK: a FIFO opens at once).
//     os.Root refuses every absolute symlink; such a path is resolved once
//     and its target, if under a root, goes through steps 3 to 6 itself.
//  5. The opened file's real path (from the kernel where the platform has
//     one) must lie under a root and outside /proc and /sys, and its
//     filesystem must not be procfs or sysfs: outside_roots.
//  6. Its type must serve the use: a regular file for read and write, a
//     directory for dir, either for read_or_dir; anything else is
//     unusable_path, and nothing was read.
//  7. A regular file with more than one name (a hard link) is
//     outside_roots unless Options.AllowHardLinks: its other name may lie
//     outside every root, and nothing tells where it is. This holds for
//     every use that can name a regular file: read, read_or_dir, and the
//     existing file a write replaces.
//
// A write parameter checks its parent directory this way; its file need
// not exist, and if it does it must be a regular file inside the root. A
// file that is a symlink is followed to its target even when the target
// does not exist yet (a dangling link): the program would create the
// target, so the target is what is confined, judged by policy and shown
// to the person, through steps 3 to 7 again. At most maxLinkHops links
// are followed.
func (s *Surface) confinePath(param, given string, use projector.PathUse) (string, *os.File, *Problem) {
	return s.confineOnce(param, given, use, 0)
}

// maxLinkHops bounds the symlinks confinePath follows itself (absolute
// links os.Root refuses, and a write's dangling leaf), so a loop of links
// ends in a refusal.
const maxLinkHops = 8

// confineOnce is confinePath; hops counts the links already followed to
// reach given.
func (s *Surface) confineOnce(param, given string, use projector.PathUse, hops int) (string, *os.File, *Problem) {
	outside := func(reason string) (string, *os.File, *Problem) {
		return "", nil, &Problem{Param: param, Rule: RuleOutsideRoots, Reason: reason}
	}
	unusable := func(format string, a ...any) (string, *os.File, *Problem) {
		return "", nil, &Problem{Param: param, Rule: RuleUnusablePath, Reason: fmt.Sprintf("%s %s ", param, short(given)) + fmt.Sprintf(format, a...)}
	}
	if len(s.roots) == 0 {
		hint := s.opts.NoRootsHint
		if hint == "" {
			hint = "its operator can allow directories with verbsurface.Options.Roots"
		}
		return outside(fmt.Sprintf("%s names a file, and this server allows no file access; %s", param, hint))
	}
	if !filepath.IsAbs(given) {
		return unusable("is not an absolute path; name the file by its absolute path under %s", s.rootList())
	}
	clean := filepath.Clean(given)
	notInside := func() (string, *os.File, *Problem) {
		return outside(fmt.Sprintf("%s %s is outside the directories this server allows (%s); name a file under one of them",
			param, short(given), s.rootList()))
	}
	if inPseudo(clean) {
		return notInside()
	}
	root := ""
	for _, r := range s.roots {
		if within(clean, r) && len(r) > len(root) {
			root = r
		}
	}
	if root == "" {
		return notInside()
	}
	rel, ok := below(given, root)
	if !ok {
		return unusable("reaches %s through \"..\" above it; spell the path from the root down", root)
	}
	leaf := ""
	if use == projector.PathUseWrite {
		rel, leaf = filepath.Split(rel)
		if rel == "" {
			rel = "."
		}
		if leaf == "" || leaf == "." || leaf == ".." {
			return unusable("does not name a file")
		}
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return unusable("cannot be opened: the root %s: %v", root, unwrapPathErr(err))
	}
	defer r.Close()
	flag := os.O_RDONLY | syscall.O_NONBLOCK
	f, err := r.OpenFile(rel, flag, 0)
	if err != nil {
		// os.Root counts every absolute symlink as an escape, even one
		// whose target is inside a root. Resolve such a path once and open
		// its target through the root that holds it, which is confined
		// and checked like any other open: a swap in between can only make
		// that open fail.
		if isEscape(err) && hops < maxLinkHops {
			// A write names its directory here; its file is resolved
			// below, once the directory is opened.
			p := clean
			if use == projector.PathUseWrite {
				p = filepath.Dir(clean)
			}
			if target, rerr := filepath.EvalSymlinks(p); rerr == nil && target != p {
				if use == projector.PathUseWrite {
					target = filepath.Join(target, leaf)
				}
				return s.followed(param, given, target, use, hops)
			}
		}
		return s.openProblem(param, given, err)
	}
	keep := false
	defer func() {
		if !keep {
			f.Close()
		}
	}()
	real, prob := s.checkOpened(param, given, f, root, rel)
	if prob != nil {
		return "", nil, prob
	}
	st, err := f.Stat()
	if err != nil {
		return unusable("cannot be read: %v", unwrapPathErr(err))
	}
	switch use {
	case projector.PathUseReadOrDir:
		if st.IsDir() {
			return real, nil, nil
		}
		if !st.Mode().IsRegular() {
			return unusable("is neither a regular file nor a directory (%s); nothing was read", kindOf(st.Mode()))
		}
		if prob := s.hardLinkProblem(param, given, st); prob != nil {
			return "", nil, prob
		}
		keep = true
		return real, f, nil
	case projector.PathUseDir, projector.PathUseWrite:
		if !st.IsDir() {
			if use == projector.PathUseWrite {
				return unusable("is not in a directory")
			}
			return unusable("is not a directory (%s)", kindOf(st.Mode()))
		}
		if use == projector.PathUseDir {
			return real, nil, nil
		}
		// The file to write: if it exists, it must be a regular file
		// inside the root.
		lf, err := r.OpenFile(filepath.Join(rel, leaf), flag, 0)
		if err != nil {
			// A symlink whose target does not exist, or that os.Root
			// refuses (an absolute one, one leaving the root): the
			// program would write its target, so the target is what is
			// judged, from the directory the link is in.
			if lst, lerr := r.Lstat(filepath.Join(rel, leaf)); lerr == nil && lst.Mode()&fs.ModeSymlink != 0 {
				target, lerr := r.Readlink(filepath.Join(rel, leaf))
				if lerr != nil {
					return s.openProblem(param, given, lerr)
				}
				if !filepath.IsAbs(target) {
					// Not cleaned: a ".." in the target is resolved
					// against the real tree, as the kernel would.
					target = real + "/" + target
				}
				return s.followed(param, given, target, use, hops)
			}
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return filepath.Join(real, leaf), nil, nil
		case err != nil:
			return s.openProblem(param, given, err)
		}
		defer lf.Close()
		lreal, prob := s.checkOpened(param, given, lf, root, filepath.Join(rel, leaf))
		if prob != nil {
			return "", nil, prob
		}
		lst, err := lf.Stat()
		if err != nil || !lst.Mode().IsRegular() {
			return unusable("exists and is not a regular file")
		}
		if prob := s.hardLinkProblem(param, given, lst); prob != nil {
			return "", nil, prob
		}
		return lreal, nil, nil
	default: // read
		if !st.Mode().IsRegular() {
			return unusable("is not a regular file (%s); nothing was read", kindOf(st.Mode()))
		}
		if prob := s.hardLinkProblem(param, given, st); prob != nil {
			return "", nil, prob
		}
		keep = true
		return real, f, nil
	}
}

// followed confines target, where a symlink on the way to given leads, in
// given's place: the link's target is checked like any path a caller
// names, and a refusal names what the caller gave.
func (s *Surface) followed(param, given, target string, use projector.PathUse, hops int) (string, *os.File, *Problem) {
	if hops >= maxLinkHops {
		return "", nil, &Problem{Param: param, Rule: RuleUnusablePath,
			Reason: fmt.Sprintf("%s %s leads through more than %d symlinks; name the file itself", param, short(given), maxLinkHops)}
	}
	real, f, prob := s.confineOnce(param, target, use, hops+1)
	if prob != nil {
		// The caller learns no more of the link than that it is refused.
		prob.Reason = strings.Replace(prob.Reason, short(target), short(given), 1)
	}
	return real, f, prob
}

// checkOpened is step 5 of confinePath: where the opened file really is.
func (s *Surface) checkOpened(param, given string, f *os.File, root, rel string) (string, *Problem) {
	real, ok := openedPath(f)
	if !ok {
		// No kernel path on this platform: os.Root has confined the
		// open, so the path it resolved within the root stands.
		real = filepath.Join(root, rel)
	}
	inRoot := false
	for _, r := range s.roots {
		inRoot = inRoot || within(real, r)
	}
	if !inRoot || inPseudo(real) || onPseudoFS(f) {
		return "", &Problem{Param: param, Rule: RuleOutsideRoots,
			Reason: fmt.Sprintf("%s %s resolves outside the directories this server allows (%s); name a file under one of them",
				param, short(given), s.rootList())}
	}
	return real, nil
}

// hardLinkProblem is step 7 of confinePath: a regular file with more than
// one name is refused unless the operator allows hard links. A hard link
// inside a root to a file outside it passes every other check (the
// kernel's path for it is the name inside the root), and no call finds a
// file's other names, so the only sound rule without the operator's word
// is to refuse them all. Nothing was read.
func (s *Surface) hardLinkProblem(param, given string, fi fs.FileInfo) *Problem {
	n := linkCount(fi)
	if n <= 1 || s.opts.AllowHardLinks {
		return nil
	}
	return &Problem{Param: param, Rule: RuleOutsideRoots,
		Reason: fmt.Sprintf("%s %s is a file with %d names (hard links), and another name may lie outside the directories this server allows (%s); "+
			"name a file with one name (copy it), or its operator allows hard links (verbsurface.Options.AllowHardLinks); nothing was read",
			param, short(given), n, s.rootList())}
}

// openProblem turns a failed open inside a root into a problem: an escape
// (a symlink or ".." leaving the root) is outside_roots; anything else is
// unusable_path.
func (s *Surface) openProblem(param, given string, err error) (string, *os.File, *Problem) {
	msg := unwrapPathErr(err).Error()
	if isEscape(err) {
		return "", nil, &Problem{Param: param, Rule: RuleOutsideRoots,
			Reason: fmt.Sprintf("%s %s leads outside the directories this server allows (%s), through a symlink or \"..\"; name a file under one of them",
				param, short(given), s.rootList())}
	}
	reason := "cannot be opened: " + msg
	if errors.Is(err, fs.ErrNotExist) {
		reason = "does not exist"
	}
	return "", nil, &Problem{Param: param, Rule: RuleUnusablePath, Reason: fmt.Sprintf("%s %s %s", param, short(given), reason)}
}

// isEscape reports os.Root's refusal of a path that leaves the root (its
// error is not exported, so it is recognised by its text).
func isEscape(err error) bool {
	return strings.Contains(unwrapPathErr(err).Error(), "path escapes from parent")
}

func (s *Surface) rootList() string { return strings.Join(s.roots, ", ") }

func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
