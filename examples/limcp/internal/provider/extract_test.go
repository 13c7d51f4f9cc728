//go:build unix

package provider

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExtract: one row per rule of Extract, on output shaped as each
// program documents it.
func TestExtract(t *testing.T) {
	tests := []struct {
		name           string
		format         string
		stdout, stderr string
		want           Extracted
	}{
		{"text is its own answer", OutputText, "hello\n", "", Extracted{Parsed: true, Answer: "hello\n"}},
		{"claude: result is the answer", OutputClaudeJSON,
			`{"type":"result","subtype":"success","is_error":false,"result":"42","session_id":"s"}` + "\n", "",
			Extracted{Parsed: true, Answer: "42"}},
		{"claude: a warning line before the object is skipped", OutputClaudeJSON,
			"warning: something\n" + `{"type":"result","subtype":"success","is_error":false,"result":"ok"}`, "",
			Extracted{Parsed: true, Answer: "ok"}},
		{"claude: is_error makes result the error", OutputClaudeJSON,
			`{"type":"result","subtype":"error_during_execution","is_error":true,"result":"Credit balance is too low"}`, "",
			Extracted{Parsed: true, Error: "Credit balance is too low"}},
		{"claude: an error without text names the subtype", OutputClaudeJSON,
			`{"type":"result","subtype":"error_max_turns","is_error":true}`, "",
			Extracted{Parsed: true, Error: "claude reported error_max_turns"}},
		{"claude: stream-json's last result counts", OutputClaudeJSON,
			`{"type":"system","subtype":"init"}` + "\n" + `{"type":"result","is_error":false,"result":"final"}` + "\n", "",
			Extracted{Parsed: true, Answer: "final"}},
		{"claude: not JSON is not parsed", OutputClaudeJSON, "plain text\n", "", Extracted{}},
		{"codex: the last agent_message is the answer", OutputCodexJSONL,
			`{"type":"thread.started","thread_id":"t"}
{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"thinking"}}
{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"first"}}
{"type":"item.completed","item":{"id":"item_2","type":"agent_message","text":"done"}}
{"type":"turn.completed","usage":{"input_tokens":1}}
`, "", Extracted{Parsed: true, Answer: "done"}},
		{"codex: the pre-0.44 item_type spelling", OutputCodexJSONL,
			`{"type":"item.completed","item":{"id":"item_3","item_type":"assistant_message","text":"old"}}`, "",
			Extracted{Parsed: true, Answer: "old"}},
		{"codex: turn.failed is the error", OutputCodexJSONL,
			`{"type":"turn.started"}
{"type":"error","message":"stream error"}
{"type":"turn.failed","error":{"message":"model response stream ended unexpectedly"}}
`, "", Extracted{Parsed: true, Error: "model response stream ended unexpectedly"}},
		{"codex: a reconnect notice before an answer is no error", OutputCodexJSONL,
			`{"type":"error","message":"Reconnecting... 1/5"}
{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"fine"}}
`, "", Extracted{Parsed: true, Answer: "fine"}},
		{"codex: an error event and no answer is the error", OutputCodexJSONL,
			`{"type":"thread.started","thread_id":"t"}
{"type":"error","message":"unexpected status 401 Unauthorized"}
`, "", Extracted{Parsed: true, Error: "unexpected status 401 Unauthorized"}},
		{"gemini: an indented response", OutputGeminiJSON, "{\n  \"response\": \"Paris\",\n  \"stats\": {\"models\": {}}\n}\n", "",
			Extracted{Parsed: true, Answer: "Paris"}},
		{"gemini: the error object on stderr", OutputGeminiJSON, "", "Loaded cached credentials.\n{\n  \"error\": {\n    \"type\": \"FatalAuthenticationError\",\n    \"message\": \"Please set an Auth method\",\n    \"code\": 41\n  }\n}\n",
			Extracted{Parsed: true, Error: "Please set an Auth method"}},
		{"gemini: an error without a message names its type", OutputGeminiJSON, `{"error":{"type":"ApiError"}}`, "",
			Extracted{Parsed: true, Error: "gemini reported ApiError"}},
		{"gemini: nothing readable", OutputGeminiJSON, "", "boom\n", Extracted{}},
		{"an unknown format is not parsed", "xml", "<a/>", "", Extracted{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Extract(tt.format, []byte(tt.stdout), []byte(tt.stderr))
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Fatalf("Extract (-want +got):\n%s", d)
			}
		})
	}
}
