//go:build unix

package run

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/textfile"
)

// MaxPromptBytes bounds a prompt (argument or file).
const MaxPromptBytes = 1 << 20

// Prompt is a prompt read at submit time: the moment it is read is the
// moment the run sees it.
type Prompt struct {
	Text string
	Info PromptInfo
}

// ReadPrompt takes the prompt from exactly one of the PROMPT argument
// (given reports whether it was) and --prompt-file.
func ReadPrompt(arg string, given bool, file string) (Prompt, error) {
	switch {
	case given && file != "":
		return Prompt{}, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "prompt_file"},
			"give the prompt as an argument or with --prompt-file, not both")
	case !given && file == "":
		return Prompt{}, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "prompt"},
			"a prompt is required: give PROMPT or --prompt-file")
	}
	text, source := arg, "prompt"
	if file != "" {
		b, err := textfile.Read(file, MaxPromptBytes)
		if err != nil {
			return Prompt{}, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "prompt_file", "file": file},
				"cannot read prompt file: %v", err)
		}
		text, source = string(b), "prompt_file"
	}
	arg = "prompt"
	if source == "prompt_file" {
		arg = "prompt_file"
	}
	switch {
	case len(text) > MaxPromptBytes:
		return Prompt{}, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": arg}, "the prompt is larger than %d bytes", MaxPromptBytes)
	case !utf8.ValidString(text):
		return Prompt{}, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": arg}, "the prompt is not valid UTF-8")
	case strings.TrimSpace(text) == "":
		return Prompt{}, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": arg}, "the prompt is empty")
	}
	return Prompt{Text: text, Info: infoOf(text, source)}, nil
}

func infoOf(text, source string) PromptInfo {
	sum := sha256.Sum256([]byte(text))
	return PromptInfo{SHA256: hex.EncodeToString(sum[:]), Bytes: len(text), Source: source}
}
