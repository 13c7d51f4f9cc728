//go:build unix

package provider

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Extracted is what [Extract] reads from an agent program's machine
// output.
type Extracted struct {
	// Parsed is false when the output is not the format it should be (a
	// crash before the program printed anything, a version that prints
	// something else): the caller keeps the output as it is.
	Parsed bool
	// Answer is the program's final answer ("" when it reported an error
	// before answering).
	Answer string
	// Error is the error the program reported in its machine output, ""
	// when it reported none.
	Error string
}

// Extract reads the final answer and the reported error from the output
// of a command provider whose output format is format (one of
// [OutputFormats]). Text output is its own answer. The rules, per format:
//
//   - claude-json: the last line of stdout that is a JSON object of
//     "type": "result"; "is_error": true makes "result" the error (the
//     subtype when "result" is empty), otherwise "result" is the answer.
//   - codex-jsonl: the JSON Lines events of stdout; the answer is the text
//     of the last item.completed whose item type is "agent_message"; the
//     error is the message of the last turn.failed, or, when no answer
//     came, of the last "error" event (Codex also reports transient
//     reconnects as "error" events, which a finished answer outlives).
//   - gemini-json: the JSON object on stdout (printed indented), or, when
//     stdout holds none, the last one on stderr (where the CLI reports a
//     fatal error); "error.message" is the error, "response" the answer.
//
// Extract never fails: output it cannot read is reported as not Parsed.
func Extract(format string, stdout, stderr []byte) Extracted {
	switch format {
	case "", OutputText:
		return Extracted{Parsed: true, Answer: string(stdout)}
	case OutputClaudeJSON:
		return extractClaude(stdout)
	case OutputCodexJSONL:
		return extractCodex(stdout)
	case OutputGeminiJSON:
		if x := extractGemini(stdout); x.Parsed {
			return x
		}
		return extractGemini(stderr)
	}
	return Extracted{}
}

func extractClaude(stdout []byte) Extracted {
	var x Extracted
	objects(stdout, func(raw []byte) {
		var r struct {
			Type    string `json:"type"`
			Subtype string `json:"subtype"`
			IsError bool   `json:"is_error"`
			Result  string `json:"result"`
		}
		if json.Unmarshal(raw, &r) != nil || r.Type != "result" {
			return
		}
		x = Extracted{Parsed: true}
		switch {
		case r.IsError && r.Result != "":
			x.Error = r.Result
		case r.IsError:
			x.Error = "claude reported " + r.Subtype
		default:
			x.Answer = r.Result
		}
	})
	return x
}

func extractCodex(stdout []byte) Extracted {
	var (
		x               Extracted
		failed, lastErr string
		answered        bool
	)
	objects(stdout, func(raw []byte) {
		var ev struct {
			Type    string `json:"type"`
			Message string `json:"message"`
			Error   struct {
				Message string `json:"message"`
			} `json:"error"`
			Item struct {
				Type     string `json:"type"`
				ItemType string `json:"item_type"` // the field's name before codex 0.44
				Text     string `json:"text"`
			} `json:"item"`
		}
		if json.Unmarshal(raw, &ev) != nil || ev.Type == "" {
			return
		}
		x.Parsed = true
		switch ev.Type {
		case "item.completed":
			if t := ev.Item.Type + ev.Item.ItemType; t == "agent_message" || t == "assistant_message" {
				x.Answer, answered = ev.Item.Text, true
			}
		case "turn.failed":
			failed = ev.Error.Message
			if failed == "" {
				failed = "codex reported turn.failed"
			}
		case "error":
			lastErr = ev.Message
		}
	})
	switch {
	case failed != "":
		x.Error = failed
	case !answered && lastErr != "":
		x.Error = lastErr
	}
	return x
}

func extractGemini(b []byte) Extracted {
	var x Extracted
	objects(b, func(raw []byte) {
		var r struct {
			Response *string `json:"response"`
			Error    *struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(raw, &r) != nil || (r.Response == nil && r.Error == nil) {
			return
		}
		x = Extracted{Parsed: true}
		if r.Response != nil {
			x.Answer = *r.Response
		}
		if r.Error != nil {
			x.Error = r.Error.Message
			if x.Error == "" {
				x.Error = "gemini reported " + r.Error.Type
			}
		}
	})
	return x
}

// objects calls f with each JSON object of b, in order: each value that
// starts at the beginning of a line with "{" and decodes whole (an
// indented object spans lines). Lines that are not JSON (a warning
// printed before the output) are skipped.
func objects(b []byte, f func(raw []byte)) {
	for off := 0; off < len(b); {
		line := b[off:]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i+1]
		}
		if strings.HasPrefix(strings.TrimLeft(string(line), " \t\r"), "{") {
			dec := json.NewDecoder(bytes.NewReader(b[off:]))
			var raw json.RawMessage
			if dec.Decode(&raw) == nil {
				f(raw)
				off += int(dec.InputOffset())
				continue
			}
		}
		off += len(line)
	}
}
