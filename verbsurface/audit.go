package verbsurface

import (
	"context"
	"time"

	"github.com/verbsurface/verbsurface/policy"
)

// AuditRecord is the audit line ([policy.AuditRecord]) of an op, as every
// front writes it: when, who (the client ctx carries, [RequestClient]),
// which op and its args' digest, the policy's decision and the person's
// answer, the result and the duration. With args (the operator's
// --audit-args), the argument values go in too, through
// [policy.RedactArgs]: a prompt, and each value of prompts, only as its
// size and SHA-256. Run ids are the caller's to add: only it knows which
// results start runs.
func AuditRecord(ctx context.Context, rec *OpRecord, args bool, prompts ...string) *policy.AuditRecord {
	ci := RequestClient(ctx)
	line := &policy.AuditRecord{
		Time: time.Now().UTC(), Session: ci.Session, Client: ci.Name, ClientVersion: ci.Version, Subject: ci.Subject, ClientID: ci.ClientID,
		Index: rec.Index, Verb: rec.Verb, ArgsSHA256: rec.ArgsDigest,
		Decision: rec.Decision, Rule: rec.Rule, Confirmed: rec.Confirmed,
		Result: rec.Code, DurationMS: float64(rec.Duration.Microseconds()) / 1000, DryRun: rec.DryRun,
	}
	if args && rec.Args != nil {
		line.Args = policy.RedactArgs(rec.Args, prompts...)
	}
	return line
}
