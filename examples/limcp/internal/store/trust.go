package store

import (
	"context"
	"time"
)

// Trust is a recorded decision, made by a person at a terminal, to trust a
// plugin or a hooks file. These commands are fenced from the MCP surface.
type Trust struct {
	Kind      string    `json:"kind"`    // plugin, hooks
	Subject   string    `json:"subject"` // the plugin name or the hooks file's absolute path
	Digest    string    `json:"digest"`  // sha256 of the hooks file when trusted ("" for plugins)
	TrustedAt time.Time `json:"trusted_at"`
}

// SetTrust records (or refreshes) a trust entry.
func (s *Store) SetTrust(ctx context.Context, t Trust) (Trust, error) {
	t.TrustedAt = s.now().UTC()
	_, err := s.db.ExecContext(ctx, `INSERT INTO trust (kind, subject, digest, trusted_at) VALUES (?,?,?,?)
		ON CONFLICT (kind, subject) DO UPDATE SET digest = excluded.digest, trusted_at = excluded.trusted_at`,
		t.Kind, t.Subject, t.Digest, nanos(t.TrustedAt))
	if err != nil {
		return Trust{}, s.wrap(err)
	}
	return t, nil
}

// TrustEntries lists every trust entry.
func (s *Store) TrustEntries(ctx context.Context) ([]Trust, error) {
	out, err := collect(ctx, s, func(row scanner) (Trust, error) {
		var t Trust
		var at int64
		err := row.Scan(&t.Kind, &t.Subject, &t.Digest, &at)
		t.TrustedAt = fromNanos(at)
		return t, err
	}, "SELECT kind, subject, digest, trusted_at FROM trust ORDER BY kind, subject")
	if out == nil && err == nil {
		out = []Trust{} // an empty list, never null, in machine results
	}
	return out, err
}
