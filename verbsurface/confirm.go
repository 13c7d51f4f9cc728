package verbsurface

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ConfirmInputID is the id of the one elicitation an input-required
// result of the request tool carries: one question covers every op of
// the request that needs confirmation (all run, or none of them).
const ConfirmInputID = "confirm"

// stateVersion prefixes a requestState, so a future shape is told apart.
const stateVersion = "vs1"

// confirmState is what a requestState binds: the session it was issued
// on, an expiry, and each asked op (index, verb, args digest, rule).
type confirmState struct {
	Session string       `json:"s,omitempty"`
	Expires int64        `json:"e"` // Unix milliseconds
	Ops     []stateEntry `json:"o"`
}

type stateEntry struct {
	Index  int    `json:"i"`
	Verb   string `json:"v"`
	Digest string `json:"d"`
	Rule   string `json:"r"`
}

// sealState returns "vs1.PAYLOAD.MAC", base64url, MAC = HMAC-SHA256 over
// "vs1." + PAYLOAD with the surface's key. Nothing is kept server-side.
func (s *Surface) sealState(st *confirmState) string {
	b, _ := json.Marshal(st) // plain structs: cannot fail
	payload := stateVersion + "." + base64.RawURLEncoding.EncodeToString(b)
	return payload + "." + base64.RawURLEncoding.EncodeToString(s.stateMAC(payload))
}

func (s *Surface) stateMAC(payload string) []byte {
	m := hmac.New(sha256.New, s.confirmKey[:])
	m.Write([]byte(payload))
	return m.Sum(nil)
}

var (
	errStateExpired = errors.New("expired")
	errStateInvalid = errors.New("invalid")
)

// openState checks a requestState's MAC, then its session and expiry.
func (s *Surface) openState(state, session string) (*confirmState, error) {
	if len(state) > 16<<10 {
		return nil, errStateInvalid
	}
	i := strings.LastIndexByte(state, '.')
	if i < 0 || !strings.HasPrefix(state, stateVersion+".") {
		return nil, errStateInvalid
	}
	mac, err := base64.RawURLEncoding.DecodeString(state[i+1:])
	if err != nil || !hmac.Equal(mac, s.stateMAC(state[:i])) {
		return nil, errStateInvalid
	}
	b, err := base64.RawURLEncoding.DecodeString(state[len(stateVersion)+1 : i])
	if err != nil {
		return nil, errStateInvalid
	}
	var st confirmState
	if err := json.Unmarshal(b, &st); err != nil || st.Session != session {
		return nil, errStateInvalid
	}
	if !s.opts.Now().Before(time.UnixMilli(st.Expires)) {
		return &st, errStateExpired
	}
	return &st, nil
}

// canElicit reports whether the client declared it can ask its person a
// form question. A bare {} elicitation capability means form (it predates
// the modes).
func canElicit(caps *mcp.ClientCapabilities) bool {
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	return caps.Elicitation.Form != nil || caps.Elicitation.URL == nil
}

// confirmAnswers works out, for a request some of whose ops need
// confirmation, either that the person must be asked now (ask true), or
// the answers to hand to Handle: the retry's (its requestState checked),
// or none when the client cannot ask (each op then reports unavailable).
func (s *Surface) confirmAnswers(req *mcp.CallToolRequest, session string, asks []Confirmation) (map[int]answer, bool) {
	p := req.Params
	if p.RequestState == "" && p.InputResponses == nil {
		return nil, canElicit(req.ClientCapabilities())
	}
	all := func(a string) map[int]answer {
		out := make(map[int]answer, len(asks))
		for _, c := range asks {
			out[c.Index] = answer{verb: c.Verb, digest: c.ArgsDigest, rule: c.Rule, answer: a}
		}
		return out
	}
	st, err := s.openState(p.RequestState, session)
	switch {
	case errors.Is(err, errStateExpired):
		return all(AnswerExpired), false
	case err != nil:
		return all(AnswerInvalid), false
	}
	got := AnswerInvalid
	if r, ok := p.InputResponses[ConfirmInputID].(*mcp.ElicitResult); ok {
		switch r.Action {
		case "accept":
			if yes, _ := r.Content["confirm"].(bool); yes {
				got = AnswerAccept
			} else {
				got = AnswerDeclined
			}
		case "decline":
			got = AnswerDeclined
		case "cancel":
			got = AnswerCancelled
		}
	}
	// Each asked op is answered by the state's entry for its index; an
	// entry for another verb, other args or another rule, or no entry,
	// does not confirm it (decide compares them).
	out := make(map[int]answer, len(asks))
	for _, c := range asks {
		out[c.Index] = answer{answer: AnswerInvalid}
	}
	for _, e := range st.Ops {
		if _, asked := out[e.Index]; asked {
			out[e.Index] = answer{verb: e.Verb, digest: e.Digest, rule: e.Rule, answer: got}
		}
	}
	return out, false
}

// inputRequired is the result that asks the person: one form elicitation
// showing each op that needs confirmation, and the sealed requestState the
// retry must carry.
func (s *Surface) inputRequired(asks []Confirmation, session string) *mcp.CallToolResult {
	st := &confirmState{Session: session, Expires: s.opts.Now().Add(s.opts.ConfirmWithin).UnixMilli()}
	for _, c := range asks {
		st.Ops = append(st.Ops, stateEntry{Index: c.Index, Verb: c.Verb, Digest: c.ArgsDigest, Rule: c.Rule})
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{ConfirmInputID: &mcp.ElicitParams{
			Mode:    "form",
			Message: ConfirmMessage(asks),
			RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{"confirm": map[string]any{
					"type": "boolean", "title": "Run " + plural(len(asks), "these ops", "this op"),
					"description": "true runs " + plural(len(asks), "them", "it") + "; anything else runs nothing the policy asked about"}},
				"required": []string{"confirm"},
			},
		}},
		RequestState: s.sealState(st),
	}
}

// PreviewBytes is how much of a long argument (a prompt) a confirmation
// shows; the rest is summarized by its size and SHA-256.
const PreviewBytes = 160

// ConfirmMessage is the question a person sees for asks: each op's verb,
// the rule that asked and its reason, and its args, each long value cut to
// [PreviewBytes] with its full size and SHA-256, so what is confirmed is
// identified exactly without flooding the dialog.
//
// The message is shown by a client the person trusts to show it
// faithfully, often in a terminal, so nothing a caller wrote may steer
// the display: a value holding a character that is not graphic (every
// control character, C0 and C1, backspace, \v and escape among them; the
// bidi controls U+202A–U+202E, U+2066–U+2069, U+200E, U+200F and U+061C;
// the separators U+2028 and U+2029; any other format character) or a
// backslash is shown as a JSON string, every such character escaped
// (\u202e, \n, \u001b), with its size and SHA-256. A value shown as it
// is never holds a backslash, so an escape in the message is always the
// server's and never a caller's look-alike. The rule and reason (the
// operator's) are escaped the same way.
func ConfirmMessage(asks []Confirmation) string {
	var b strings.Builder
	b.WriteString("The policy asks you to confirm ")
	b.WriteString(plural(len(asks), fmt.Sprintf("%d ops", len(asks)), "an op"))
	b.WriteString(" before anything in this request runs.")
	for _, c := range asks {
		fmt.Fprintf(&b, "\n\nop %d: %s (rule %s", c.Index, displayText(c.Verb), displayText(c.Rule))
		if c.Reason != "" {
			b.WriteString(": " + displayText(c.Reason))
		}
		b.WriteString(")")
		keys := make([]string, 0, len(c.Args))
		for k := range c.Args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "\n  %s: %s", displayText(k), previewValue(c.Args[k]))
		}
	}
	return b.String()
}

// previewValue is how ConfirmMessage shows one argument: a string as it
// is when it is short and every character shows as itself, else cut to
// PreviewBytes and escaped (see [ConfirmMessage]), with its size and
// SHA-256 so the whole value is still identified. A non-string is its
// JSON text with every character that does not show as itself escaped.
func previewValue(v any) string {
	s, isString := v.(string)
	text := s
	if !isString {
		text = jsonText(v)
	}
	plain := showsAsItself(text)
	if len(text) <= PreviewBytes && (plain || !isString) {
		if !isString {
			return escapeJSONText(text)
		}
		return text
	}
	sum := sha256.Sum256([]byte(text))
	cut, more := text, ""
	if len(cut) > PreviewBytes {
		cut, more = strings.ToValidUTF8(cut[:PreviewBytes], ""), "…"
	}
	switch {
	case !isString:
		cut = escapeJSONText(cut)
	case !plain:
		cut = quoteForDisplay(cut)
	}
	return fmt.Sprintf("%s%s (%d bytes, sha256 %s)", cut, more, len(text), hex.EncodeToString(sum[:]))
}

// displayText is s as it is when it shows as itself, else quoted.
func displayText(s string) string {
	if showsAsItself(s) {
		return s
	}
	return quoteForDisplay(s)
}

// showsAsItself reports whether every character of s is graphic
// (unicode.IsGraphic: letters, marks, numbers, punctuation, symbols and
// spaces; no control, format, bidi or line-separator character) and none
// is a backslash, which only the server's escapes may show.
func showsAsItself(s string) bool {
	for _, r := range s {
		if r == '\\' || r == utf8.RuneError || !unicode.IsGraphic(r) {
			return false
		}
	}
	return true
}

// quoteForDisplay is s as a JSON string in which every character that
// does not show as itself is escaped: JSON's own escapes (\", \\, \n,
// \u001b), and \uXXXX (a surrogate pair beyond the BMP) for the rest.
func quoteForDisplay(s string) string {
	return escapeJSONText(jsonText(s))
}

// jsonText is v's compact JSON without encoding/json's HTML escapes, which
// would show "<" as \u003c to a person.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// escapeJSONText escapes, as \uXXXX, every character of a JSON text that
// is not graphic and that encoding/json leaves raw (it escapes control
// characters, U+2028 and U+2029, not the bidi controls). The result is
// the same JSON value.
func escapeJSONText(text string) string {
	var b strings.Builder
	for _, r := range text {
		if r != utf8.RuneError && (unicode.IsGraphic(r) || r == '\\') {
			b.WriteRune(r)
			continue
		}
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
			continue
		}
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

// ClientInfo is who sent a request: the MCP session's id and the client's
// name and version from initialize (or the request's _meta, on protocol
// 2026-07-28); over HTTP with OAuth, also the verified token's subject,
// client id, scopes and the claims the operator named (never the token).
// The binding puts it in the context an [Options.OnOp] hook receives.
type ClientInfo struct {
	Session, Name, Version string
	Subject, ClientID      string
	Scopes                 []string
	Claims                 map[string][]string
}

type clientInfoKey struct{}

// RequestClient returns the [ClientInfo] the MCP binding put in ctx (zero
// outside a tool call).
func RequestClient(ctx context.Context) ClientInfo {
	ci, _ := ctx.Value(clientInfoKey{}).(ClientInfo)
	return ci
}

func requestClient(req *mcp.CallToolRequest) ClientInfo {
	var ci ClientInfo
	if req == nil {
		return ci
	}
	if req.Session != nil {
		ci.Session = req.Session.ID()
	}
	if impl := req.ClientInfo(); impl != nil {
		ci.Name, ci.Version = impl.Name, impl.Version
	}
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		ti := req.Extra.TokenInfo
		ci.Subject = ti.UserID
		ci.ClientID, _ = ti.Extra["client_id"].(string)
		if ci.Subject != "" {
			ci.Scopes = slices.Clone(ti.Scopes)
			ci.Claims, _ = ti.Extra[TokenClaimsKey].(map[string][]string)
		}
	}
	return ci
}
