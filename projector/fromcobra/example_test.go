package fromcobra_test

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromcobra"
)

func newCLI() *cobra.Command {
	root := &cobra.Command{Use: "li"}
	root.PersistentFlags().Bool("json", false, "machine output")
	agent := &cobra.Command{
		Use:   "agent MODEL [PROMPT]",
		Short: "start one agent run",
		Args:  cobra.RangeArgs(1, 2),
		Run:   func(*cobra.Command, []string) {},
	}
	agent.Flags().Duration("timeout", 0, "give up after this long")
	agent.Flags().StringSlice("tag", nil, "labels")
	root.AddCommand(agent)
	return root
}

// Projecting a cobra command: walk the tree (leaving out the machine-mode
// flag the dispatcher always sets), project one command, render arguments.
func ExampleWalkWith() {
	tree, err := fromcobra.WalkWith(newCLI(), &fromcobra.Options{ExcludeFlags: []string{"json"}})
	if err != nil {
		panic(err)
	}
	agent := tree.Find("agent")
	schema, err := projector.Project(agent)
	if err != nil {
		panic(err)
	}
	props, _ := json.Marshal(schema.PropertyOrder)
	fmt.Println("properties:", string(props), "required:", schema.Required)

	argv, err := projector.RenderArgv(tree.Dialect, agent, map[string]any{
		"model": "gpt", "prompt": "--help", "tag": []any{"a,b", "c"}, "timeout": "90s",
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("li agent --json %q\n", argv)

	fp, _ := projector.Fingerprint("agent.submit", schema)
	fmt.Println(fp)
	// Output:
	// properties: ["tag","timeout","model","prompt"] required: [model]
	// li agent --json ["--tag=\"a,b\"" "--tag=\"c\"" "--timeout=90s" "--" "gpt" "--help"]
	// sf1-6b85b3a55bf0cee9
}

// An unsupported flag type makes the command unavailable, by name.
func ExampleWalk_unavailable() {
	root := &cobra.Command{Use: "net"}
	serve := &cobra.Command{Use: "serve", Args: cobra.NoArgs, Run: func(*cobra.Command, []string) {}}
	serve.Flags().IP("bind", nil, "address")
	root.AddCommand(serve)
	tree, _ := fromcobra.Walk(root)
	_, err := projector.Project(tree.Find("serve"))
	fmt.Println(err)
	// Output:
	// projector: command "serve": parameter "bind" (action pflag:ip, type ip): pflag value type ip is not in the supported set (string, bool, sized ints and uints, float32/64, count, duration, stringSlice, stringArray, intSlice); command unavailable
}
