//go:build unix

package provider_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/provider"
)

func ExampleResolve() {
	home, _ := os.MkdirTemp("", "limcp-example-")
	defer os.RemoveAll(home)
	r, err := provider.Resolve(home, "echo:delay=250ms,exit=2")
	fmt.Println(r.Provider, r.Echo.Delay, r.Echo.Exit, err)
	_, err = provider.Resolve(home, "gpt-17")
	fmt.Println(strings.ReplaceAll(err.Error(), home, "HOME"))
	// Output:
	// echo 250ms 2 <nil>
	// model "gpt-17" names no provider: have echo, claude, codex, gemini (the built-in presets need their program on PATH; command providers are declared in HOME/providers.yaml)
}

// A preset is the documented non-interactive invocation of an agent
// program; the model part of the name fills its model flag.
func ExamplePreset_Template() {
	for _, p := range provider.Presets() {
		fmt.Println(p.Name, p.Template(true), p.Output)
	}
	// Output:
	// claude [claude -p --output-format json --model {model}] claude-json
	// codex [codex exec --json --model {model} -] codex-jsonl
	// gemini [gemini --output-format json --model {model}] gemini-json
}

// Extract turns an agent program's machine output into the run's answer
// and error text.
func ExampleExtract() {
	x := provider.Extract(provider.OutputClaudeJSON, []byte(`{"type":"result","subtype":"success","is_error":false,"result":"All tests pass."}`), nil)
	fmt.Printf("%q %q\n", x.Answer, x.Error)
	x = provider.Extract(provider.OutputCodexJSONL, []byte(`{"type":"turn.failed","error":{"message":"usage limit reached"}}`), nil)
	fmt.Printf("%q %q\n", x.Answer, x.Error)
	// Output:
	// "All tests pass." ""
	// "" "usage limit reached"
}

// A command provider's argv template is filled in for each run; {model} is
// the part of the model name after "NAME:".
func ExampleResolved_Expand() {
	r := provider.Resolved{Model: "local:big", Provider: "local",
		Argv: []string{"my-agent", "--model", "{model}", "--out", "{run_dir}/answer.md"}, Path: "/usr/local/bin/my-agent"}
	argv, err := r.Expand(provider.Vars{ID: "0123456789abcdef", Cwd: "/src", RunDir: "/home/me/.limcp/runs/0123456789abcdef"})
	fmt.Println(argv, err)
	// Output:
	// [/usr/local/bin/my-agent --model big --out /home/me/.limcp/runs/0123456789abcdef/answer.md] <nil>
}
