package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"
)

// AuditRecord is one line of the audit: one op of one request.
type AuditRecord struct {
	Time          time.Time `json:"time"`
	Session       string    `json:"session,omitempty"`
	Client        string    `json:"client,omitempty"`
	ClientVersion string    `json:"client_version,omitempty"`
	// Subject and ClientID are the caller's verified OAuth identity (the
	// token's sub and client_id), when the server takes OAuth tokens.
	Subject  string `json:"subject,omitempty"`
	ClientID string `json:"client_id,omitempty"`
	// Index is the op's position in its request.
	Index int `json:"index"`
	// Verb is the op's verb (as resolved; the name sent when it resolved
	// to none).
	Verb string `json:"verb"`
	// ArgsSHA256 is the SHA-256 of the op's canonical args (compact JSON,
	// keys sorted).
	ArgsSHA256 string `json:"args_sha256"`
	// Args are the argument values, only when the operator asked for them
	// ([AuditOptions.Args]); a prompt is never written, only its size and
	// SHA-256 ([RedactArgs]).
	Args map[string]any `json:"args,omitempty"`
	// Decision and Rule are the policy's decision for the op ("" when the
	// op never reached the policy: it failed before, or no policy is set).
	Decision string `json:"decision,omitempty"`
	Rule     string `json:"rule,omitempty"`
	// Confirmed says how the person answered an ask: accept, decline,
	// cancel, expired ("" when nobody was asked).
	Confirmed string `json:"confirmed,omitempty"`
	// Result is "ok" or the op's error code.
	Result     string  `json:"result"`
	DurationMS float64 `json:"duration_ms"`
	// DryRun marks an op that was judged, not run ("dry_run": true).
	DryRun bool `json:"dry_run,omitempty"`
	// RunIDs are the ids of the runs the op created.
	RunIDs []string `json:"run_ids,omitempty"`
}

// AuditOptions configures an [Audit].
type AuditOptions struct {
	// MaxBytes rotates the file once a line would take it past this size
	// (DefaultAuditMaxBytes when zero; negative: never rotate).
	MaxBytes int64
	// Keep is how many rotated files are kept (FILE.1 the newest, up to
	// FILE.Keep); DefaultAuditKeep when zero.
	Keep int
	// Args writes argument values (prompts redacted) besides their digest.
	Args bool
}

// Defaults of [AuditOptions].
const (
	DefaultAuditMaxBytes = 64 << 20
	DefaultAuditKeep     = 5
)

// Audit appends audit records to a file, one JSON line each, opened
// O_APPEND with mode 0600 and rotated by size. It is safe for concurrent
// use; each record is one write(2) of one whole line.
type Audit struct {
	path string
	opts AuditOptions

	mu   sync.Mutex
	f    *os.File
	size int64
}

// OpenAudit opens (creating it 0600) the audit file at path. An existing
// file that others may read or write is refused: the audit says who ran
// what, which is the operator's to read.
func OpenAudit(path string, opts *AuditOptions) (*Audit, error) {
	a := &Audit{path: path}
	if opts != nil {
		a.opts = *opts
	}
	if a.opts.MaxBytes == 0 {
		a.opts.MaxBytes = DefaultAuditMaxBytes
	}
	if a.opts.Keep <= 0 {
		a.opts.Keep = DefaultAuditKeep
	}
	if err := a.open(); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *Audit) open() error {
	f, err := os.OpenFile(a.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("policy: audit: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("policy: audit: %w", err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return fmt.Errorf("policy: audit: %s is not a regular file", a.path)
	}
	if st.Mode().Perm()&0o077 != 0 {
		f.Close()
		return fmt.Errorf("policy: audit: %s has mode %v; the audit must be private to its owner (chmod 600)", a.path, st.Mode().Perm())
	}
	a.f, a.size = f, st.Size()
	return nil
}

// Write appends one record. A record whose line would take the file past
// MaxBytes first rotates it: FILE.N-1 becomes FILE.N, ..., FILE becomes
// FILE.1, and a new FILE is opened.
func (a *Audit) Write(rec *AuditRecord) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("policy: audit: encoding a record: %w", err)
	}
	line = append(line, '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return errors.New("policy: audit: closed")
	}
	if a.opts.MaxBytes > 0 && a.size > 0 && a.size+int64(len(line)) > a.opts.MaxBytes {
		if err := a.rotate(); err != nil {
			return err
		}
	}
	n, err := a.f.Write(line)
	a.size += int64(n)
	if err != nil {
		return fmt.Errorf("policy: audit: %w", err)
	}
	return nil
}

func (a *Audit) rotate() error {
	a.f.Close()
	a.f = nil
	for i := a.opts.Keep - 1; i >= 1; i-- {
		err := os.Rename(fmt.Sprintf("%s.%d", a.path, i), fmt.Sprintf("%s.%d", a.path, i+1))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("policy: audit: rotating: %w", err)
		}
	}
	if err := os.Rename(a.path, a.path+".1"); err != nil {
		return fmt.Errorf("policy: audit: rotating: %w", err)
	}
	return a.open()
}

// Close closes the file.
func (a *Audit) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return nil
	}
	err := a.f.Close()
	a.f = nil
	return err
}

// Args reports whether records should carry argument values.
func (a *Audit) Args() bool { return a.opts.Args }

// PromptBytes is the length past which any string argument is written to
// the audit only as its size and SHA-256, as prompts always are.
const PromptBytes = 256

// RedactArgs returns args with every prompt replaced by {"size": N,
// "sha256": HEX}, at any depth (inside arrays and objects as at the top):
// a value under a key whose name contains "prompt", any string longer
// than [PromptBytes], and every occurrence of a string in also — prompts
// the caller found by parsing a value (a schedule's stored command, whose
// words are an argv) — whether it is a whole string or the value of an
// --option=VALUE word. args is not modified.
func RedactArgs(args map[string]any, also ...string) map[string]any {
	r := redactor{also: map[string]bool{}}
	for _, a := range also {
		if a != "" {
			r.also[a] = true
		}
	}
	return r.object(args)
}

type redactor struct{ also map[string]bool }

func (r redactor) object(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if strings.Contains(k, "prompt") && v != nil {
			if s, ok := v.(string); ok {
				out[k] = Digest(s)
			} else {
				b, _ := json.Marshal(v)
				out[k] = Digest(string(b))
			}
			continue
		}
		out[k] = r.value(v)
	}
	return out
}

func (r redactor) value(v any) any {
	switch x := v.(type) {
	case string:
		if len(x) > PromptBytes || r.also[x] {
			return Digest(x)
		}
		if name, val, ok := strings.Cut(x, "="); ok && strings.HasPrefix(name, "-") && r.also[val] {
			return map[string]any{"option": name, "value": Digest(val)}
		}
		return x
	case map[string]any:
		return r.object(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = r.value(e)
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = r.value(e)
		}
		return out
	}
	return v
}

// TextDigest is how a long text is shown without its content.
type TextDigest struct {
	Size   int    `json:"size"`
	SHA256 string `json:"sha256"`
}

// Digest is s's size and SHA-256.
func Digest(s string) TextDigest {
	sum := sha256.Sum256([]byte(s))
	return TextDigest{Size: len(s), SHA256: hex.EncodeToString(sum[:])}
}
