//go:build unix

package playbook_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/cli"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/playbook"
)

// Inject adds a playbook's args to a fresh tree's `play` command, as the
// CLI does before parsing and the MCP server's dynamic-parameter hook does
// before projecting.
func ExampleInject() {
	home, _ := os.MkdirTemp("", "limcp-example-")
	defer os.RemoveAll(home)
	os.MkdirAll(filepath.Join(home, playbook.Dir), 0o700)
	os.WriteFile(playbook.Path(home, "audit"), []byte(`args:
  - {name: depth, type: int, default: 2, help: how deep}
flow:
  steps:
    - {id: scan, model: echo, prompt: "depth {{.args.depth}}: {{.prompt}}"}
`), 0o600)

	root := cli.NewRoot(cli.Options{})
	fp, err := playbook.Inject(root, home, "audit")
	if err != nil {
		fmt.Println(err)
		return
	}
	play, _, _ := root.Find([]string{"play"})
	f := play.Flags().Lookup("depth")
	fmt.Println(fp[:4], len(fp))
	fmt.Println(f.Name, f.Value.Type(), f.DefValue, f.Usage)
	// Output:
	// pf1- 20
	// depth int64 2 how deep
}

// A playbook that breaks a rule is refused with an error naming the file
// and the field.
func ExampleLoad() {
	home, _ := os.MkdirTemp("", "limcp-example-")
	defer os.RemoveAll(home)
	os.MkdirAll(filepath.Join(home, playbook.Dir), 0o700)
	os.WriteFile(playbook.Path(home, "audit"), []byte(`args:
  - {name: depth, type: int, default: 5, choices: [1, 2, 3]}
flow:
  steps:
    - {id: scan, model: echo, prompt: "depth {{.args.depth}}"}
`), 0o600)

	_, _, err := playbook.Load(home, "audit")
	me, _ := machine.As(err)
	fmt.Println(me.Code, me.Details.(map[string]any)["field"])
	// The file is named relative to the state home, never by the
	// absolute path: the message may reach an MCP caller.
	fmt.Println(me.Message)
	// Output:
	// invalid_playbook args[0].default
	// invalid playbook playbooks/audit.playbook.yaml: field args[0].default: default 5 is not one of the choices [1 2 3]
}
