package verbsurface

import (
	"bytes"
	"encoding/json"
	"sort"
)

// Response statuses.
const (
	StatusSuccess = "success" // every op (and the help, if asked) succeeded
	StatusPartial = "partial" // at least one part succeeded and at least one failed
	StatusError   = "error"   // nothing succeeded: the request was refused, or every op (and the help) failed
)

// Response is the one tool's answer. Results and Help are present only
// when ops and help were asked for; Error only when the request was refused
// as a whole (Status is then "error" too).
type Response struct {
	Status  string       `json:"status"`
	Results []*OpResult  `json:"results,omitempty"`
	Help    any          `json:"help,omitempty"`
	Error   *ErrorObject `json:"error,omitempty"`
}

// IsError reports whether nothing succeeded: the request was refused as a
// whole (a malformed envelope, too large a batch), or every op and the help
// failed. The MCP binding sets isError from it, exactly when the status is
// "error".
func (r *Response) IsError() bool { return r.Status == StatusError }

// JSON returns the response as compact JSON, the exact bytes the MCP
// binding sends as both structured and text content.
func (r *Response) JSON() []byte {
	b, err := json.Marshal(r)
	if err != nil {
		// The surface checks what it can up front (a handler's result, an
		// runner's data, a preparer's info); what remains is an error's
		// Details from the embedding program. Keep the envelope honest.
		b, _ = json.Marshal(&Response{Status: StatusError, Error: &ErrorObject{Code: CodeInternalError,
			Message: "verbsurface: encoding the response: " + err.Error()}})
	}
	return b
}

// OpResult is one op's outcome, in the order the ops were given.
type OpResult struct {
	OK    bool
	Op    string // the verb (a synonym resolves to its verb); the name as given when none resolved
	Class Class  // the verb's class; "none" when the name resolved to no verb
	// Result is the command's data (or the handler's result) on success.
	Result json.RawMessage
	// Error is set on failure.
	Error *ErrorObject
	// PlaybookChanged is set when a dynamic verb's injected content
	// differs from what the caller discovered.
	PlaybookChanged *PlaybookChange
	// PlaybookFingerprint is the content fingerprint a dynamic verb ran with.
	PlaybookFingerprint string
	// Info is the information the verb's [Preparer] returned, merged into the
	// result object; keys that collide with the fields above are dropped.
	Info map[string]any
	// DryRun marks an op sent with "dry_run": true: judged, not run. Its
	// Result is a [DryRun]; a refusal is the real op's.
	DryRun bool
}

// PlaybookChange reports that the dynamic content resolved at execution
// is not the content the caller discovered.
type PlaybookChange struct {
	Discovered string `json:"discovered"`
	Executed   string `json:"executed"`
}

var reservedResultKeys = map[string]bool{"ok": true, "op": true, "class": true, "result": true, "error": true,
	"playbook_changed": true, "playbook_fingerprint": true, "dry_run": true}

// MarshalJSON writes {ok, op, class, result|error, playbook_fingerprint,
// playbook_changed, then the preparer's info keys sorted}.
func (o *OpResult) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"ok":`)
	if o.OK {
		b.WriteString("true")
	} else {
		b.WriteString("false")
	}
	field := func(k string, v any) error {
		key, err := json.Marshal(k)
		if err != nil {
			return err
		}
		b.WriteByte(',')
		b.Write(key)
		b.WriteByte(':')
		enc, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(enc)
		return nil
	}
	if err := field("op", o.Op); err != nil {
		return nil, err
	}
	if err := field("class", o.Class); err != nil {
		return nil, err
	}
	if o.OK {
		result := o.Result
		if len(result) == 0 {
			result = json.RawMessage("null")
		}
		if err := field("result", result); err != nil {
			return nil, err
		}
	} else if err := field("error", o.Error); err != nil {
		return nil, err
	}
	if o.DryRun {
		if err := field("dry_run", true); err != nil {
			return nil, err
		}
	}
	if o.PlaybookFingerprint != "" {
		if err := field("playbook_fingerprint", o.PlaybookFingerprint); err != nil {
			return nil, err
		}
	}
	if o.PlaybookChanged != nil {
		if err := field("playbook_changed", o.PlaybookChanged); err != nil {
			return nil, err
		}
	}
	keys := make([]string, 0, len(o.Info))
	for k := range o.Info {
		if !reservedResultKeys[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := field(k, o.Info[k]); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
