package clientconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// member is one member of a JSON object, its value as written.
type member struct {
	key string
	raw json.RawMessage
}

// parseObject returns the members of a JSON object in the order written.
// It refuses anything else, trailing data, and a key given twice (whose
// meaning differs between readers).
func parseObject(b []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	var out []member
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("not valid JSON: %v", err)
		}
		key := tok.(string) // an object's keys are strings, or Token failed
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("not valid JSON: %v", err)
		}
		if seen[key] {
			return nil, fmt.Errorf("the key %q is given twice", key)
		}
		seen[key] = true
		out = append(out, member{key, raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("not valid JSON: data after the object")
	}
	return out, nil
}

func renderObject(members []member) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.raw)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// setMember sets members[key] to raw, in place when it exists (replaced
// reports so), else appended.
func setMember(members []member, key string, raw json.RawMessage) (out []member, replaced bool) {
	for i := range members {
		if members[i].key == key {
			members[i].raw = raw
			return members, true
		}
	}
	return append(members, member{key, raw}), false
}

func getMember(members []member, key string) (json.RawMessage, bool) {
	for _, m := range members {
		if m.key == key {
			return m.raw, true
		}
	}
	return nil, false
}

// fileEdit merges one server entry into a client's JSON configuration.
type fileEdit struct {
	path   string          // the configuration file
	key    string          // the member holding the servers ("mcpServers", "servers"); "" the file's object
	name   string          // the server's name
	entry  json.RawMessage // the server's configuration
	inputs []json.RawMessage
}

// merge returns doc with the edit applied ("" doc: a new file), and
// whether an entry of that name was replaced.
func (e *fileEdit) merge(doc []byte) ([]byte, bool, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		doc = []byte("{}")
	}
	top, err := parseObject(doc)
	if err != nil {
		return nil, false, err
	}
	if e.key == "" { // the entry is a member of the file's object itself
		top, replaced := setMember(top, e.name, e.entry)
		return indentDoc(top, doc, replaced)
	}
	var servers []member
	if raw, ok := getMember(top, e.key); ok && string(bytes.TrimSpace(raw)) != "null" {
		if servers, err = parseObject(raw); err != nil {
			return nil, false, fmt.Errorf("its %q member: %v", e.key, err)
		}
	}
	servers, replaced := setMember(servers, e.name, e.entry)
	top, _ = setMember(top, e.key, renderObject(servers))
	if len(e.inputs) > 0 {
		var have []json.RawMessage
		if raw, ok := getMember(top, "inputs"); ok {
			if err := json.Unmarshal(raw, &have); err != nil {
				return nil, false, fmt.Errorf("its \"inputs\" member is not an array: %v", err)
			}
		}
		for _, in := range e.inputs {
			if !hasInput(have, in) {
				have = append(have, in)
			}
		}
		list, _ := json.Marshal(have)
		top, _ = setMember(top, "inputs", list)
	}
	return indentDoc(top, doc, replaced)
}

// indentDoc renders the members as doc was indented.
func indentDoc(top []member, doc []byte, replaced bool) ([]byte, bool, error) {
	var out bytes.Buffer
	if err := json.Indent(&out, renderObject(top), "", indentOf(doc)); err != nil {
		return nil, false, err
	}
	out.WriteByte('\n')
	return out.Bytes(), replaced, nil
}

// hasInput reports whether an input of in's id is in have (an input the
// person already answered is kept).
func hasInput(have []json.RawMessage, in json.RawMessage) bool {
	var want struct{ ID string }
	_ = json.Unmarshal(in, &want)
	for _, h := range have {
		var got struct{ ID string }
		if json.Unmarshal(h, &got) == nil && got.ID == want.ID {
			return true
		}
	}
	return false
}

// indentOf is the indentation the file uses (its first indented line's),
// so a merged file keeps its look; two spaces for a new or flat one.
func indentOf(doc []byte) string {
	for _, line := range strings.Split(string(doc), "\n")[1:] {
		if ws := line[:len(line)-len(strings.TrimLeft(line, " \t"))]; ws != "" && strings.TrimSpace(line) != "" {
			return ws
		}
	}
	return "  "
}

// apply performs the edit on the file: read, merge, write atomically. The
// file is refused, and left untouched, when it is not valid JSON.
func (e *fileEdit) apply() (replaced bool, err error) {
	path, err := writeTarget(e.path)
	if err != nil {
		return false, err
	}
	mode := fs.FileMode(0o600)
	doc, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		doc = nil
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return false, err
		}
	case err != nil:
		return false, err
	default:
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	out, replaced, err := e.merge(doc)
	if err != nil {
		return false, fmt.Errorf("%s: %v; left as it is (fix it, or add the entry by hand: --print shows it)", e.path, err)
	}
	return replaced, writeAtomic(path, out, mode)
}

// writeTarget is the file writing path lands in: path itself, or, when
// path is a symbolic link, the file at the end of its links, so the link
// stays a link (a dotfiles checkout keeps the real file). A link whose
// target does not exist yet (dangling) is written through too: the target
// is created, as an editor writing through the link would. That target's
// directory must exist; install does not create directories where a
// link points, and says so.
func writeTarget(path string) (string, error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real, nil
	}
	p := path
	for hops := 0; ; hops++ {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			break // p does not exist (or is not a link): it is created
		}
		if hops == 40 {
			return "", fmt.Errorf("%s: too many levels of symbolic links; left as it is", path)
		}
		target, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			// The link's own directory exists: its real path holds no
			// link, so a ".." in the target is its parent.
			dir, err := filepath.EvalSymlinks(filepath.Dir(p))
			if err != nil {
				return "", err
			}
			target = filepath.Join(dir, target)
		}
		p = target
	}
	if p == path {
		return path, nil // no link: created here, with its directory
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return "", fmt.Errorf("%s is a symbolic link to %s, whose directory does not exist; create it, or remove the link, and install again", path, p)
	}
	return filepath.Join(dir, filepath.Base(p)), nil
}

// writeAtomic writes b to path through a temporary file in the same
// directory, renamed over it once complete and synced.
func writeAtomic(path string, b []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			os.Remove(tmp)
		}
	}()
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync() // the rename itself survives a crash
		d.Close()
	}
	return nil
}

// readServers returns the server names under key in a JSON (or, with
// lenient, JSON with comments and trailing commas, as VS Code and Gemini
// CLI accept) configuration file; a missing file has none. It reads as
// fileEdit.merge does, so a file it accepts merges.
func readServers(path, key string, lenient bool) (map[string]bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	if lenient {
		b = stripJSONC(b)
	}
	out := map[string]bool{}
	if len(bytes.TrimSpace(b)) == 0 {
		return out, nil
	}
	top, err := parseObject(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if raw, ok := getMember(top, key); ok && string(bytes.TrimSpace(raw)) != "null" {
		servers, err := parseObject(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: its %q member: %v", path, key, err)
		}
		for _, m := range servers {
			out[m.key] = true
		}
	}
	return out, nil
}

// stripJSONC blanks out // and /* */ comments and drops trailing commas,
// outside strings, so JSON with comments reads as JSON.
func stripJSONC(b []byte) []byte {
	out := make([]byte, 0, len(b))
	inString, escaped := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
			out = append(out, c)
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			if i < len(b) {
				out = append(out, '\n')
			}
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			i += 2
			for i+1 < len(b) && !(b[i] == '*' && b[i+1] == '/') {
				i++
			}
			i++
			out = append(out, ' ')
		default:
			out = append(out, c)
		}
	}
	// Trailing commas: a comma whose next non-space byte closes.
	res := make([]byte, 0, len(out))
	inString, escaped = false, false
	for i := 0; i < len(out); i++ {
		c := out[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			res = append(res, c)
			continue
		}
		if c == '"' {
			inString = true
		}
		if c == ',' {
			j := i + 1
			for j < len(out) && (out[j] == ' ' || out[j] == '\t' || out[j] == '\n' || out[j] == '\r') {
				j++
			}
			if j < len(out) && (out[j] == '}' || out[j] == ']') {
				continue
			}
		}
		res = append(res, c)
	}
	return res
}
