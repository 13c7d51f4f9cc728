//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/policy"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// onOp passes a finished op to every hook serve set.
func (f *front) onOp(ctx context.Context, rec *verbsurface.OpRecord) {
	for _, h := range f.opHooks {
		h(ctx, rec)
	}
}

// auditFlags are serve's --audit, --audit-args and --audit-max-bytes:
// limcp mcp's, writing the same lines (verbsurface.AuditRecord) through
// the same policy.Audit.
type auditFlags struct {
	file     string
	args     bool
	maxBytes int64
}

func (a *auditFlags) register(c *cobra.Command) {
	c.Flags().StringVar(&a.file, "audit", "", "append one JSON line per op to this file (created 0600, rotated by size)")
	c.Flags().BoolVar(&a.args, "audit-args", false, "write argument values to the audit too (prompts only as size and SHA-256)")
	c.Flags().Int64Var(&a.maxBytes, "audit-max-bytes", 0, "rotate the audit file past this size (default 64 MiB; -1: never)")
}

// open opens the audit and hooks it to f's ops; it returns the audit to
// close (nil without --audit).
func (a *auditFlags) open(f *front, stderr io.Writer) (*policy.Audit, error) {
	if a.file == "" {
		if a.args || a.maxBytes != 0 {
			return nil, errors.New("--audit-args and --audit-max-bytes apply to --audit FILE only")
		}
		return nil, nil
	}
	audit, err := policy.OpenAudit(a.file, &policy.AuditOptions{MaxBytes: a.maxBytes, Args: a.args})
	if err != nil {
		return nil, fmt.Errorf("--audit %s: %v", a.file, err)
	}
	f.opHooks = append(f.opHooks, func(ctx context.Context, rec *verbsurface.OpRecord) {
		// An audit that cannot be written must not fail the op, which
		// already ran: it is reported on stderr.
		if err := audit.Write(verbsurface.AuditRecord(ctx, rec, audit.Args())); err != nil {
			fmt.Fprintf(stderr, "verbsurface serve: audit: %v\n", err)
		}
	})
	return audit, nil
}
