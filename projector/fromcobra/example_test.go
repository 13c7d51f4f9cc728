package fromcobra_test

import (
	"encoding/json"
	"fmt"
	"strings"

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
func ExampleWalk_options() {
	tree, err := fromcobra.Walk(newCLI(), &fromcobra.Options{ExcludeFlags: []string{"json"}})
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
	// sf1-a10438a5847dc5dc
}

// A construct the schema subset cannot state makes the command unavailable,
// by name, with a reason a CLI author can act on.
func ExampleWalk_unavailable() {
	root := &cobra.Command{Use: "net"}
	login := &cobra.Command{Use: "login", Args: cobra.NoArgs, Run: func(*cobra.Command, []string) {}}
	login.Flags().String("user", "", "user")
	login.Flags().String("password", "", "password")
	login.MarkFlagsRequiredTogether("user", "password")
	root.AddCommand(login)
	tree, _ := fromcobra.Walk(root, nil)
	_, err := projector.Project(tree.Find("login"))
	fmt.Println(err)
	// Output:
	// projector: command "login": flags --user, --password must be given together (MarkFlagsRequiredTogether), which the schema subset cannot express; command unavailable
}

// A custom pflag.Value is string-in (Set(string)): it is offered as a
// string, the CLI's own Set being the final validator; a flag with a no-value
// default may also be given bare (true).
func ExampleWalk_stringIn() {
	root := &cobra.Command{Use: "net"}
	serve := &cobra.Command{Use: "serve", Args: cobra.NoArgs, Run: func(*cobra.Command, []string) {}}
	serve.Flags().IP("bind", nil, "address")
	serve.Flags().String("color", "never", "auto, always or never")
	serve.Flags().Lookup("color").NoOptDefVal = "auto"
	root.AddCommand(serve)
	tree, _ := fromcobra.Walk(root, nil)
	schema, _ := projector.Project(tree.Find("serve"))
	for _, name := range []string{"bind", "color"} {
		s := schema.Properties[name]
		fmt.Println(name, s.Type, s.Types)
	}
	argv, _ := projector.RenderArgv(projector.DialectPflag, tree.Find("serve"), map[string]any{"bind": "::1", "color": true})
	fmt.Printf("%q\n", argv)
	// Output:
	// bind string []
	// color  [boolean string]
	// ["--bind=::1" "--color"]
}

// Dynamic parameters: naming a playbook injects that playbook's declared
// flags into "play". The injector builds a fresh tree per call, performs the
// CLI's own injection and walks the result; the schema then carries the
// injected parameters, and the content fingerprint names what was injected.
func ExampleNewInjector() {
	playbooks := map[string][]string{"audit": {"scope", "depth"}, "deploy": {"target"}}
	fresh := func() *cobra.Command {
		root := &cobra.Command{Use: "li"}
		root.AddCommand(&cobra.Command{Use: "play PLAYBOOK", Args: cobra.ExactArgs(1), Run: func(*cobra.Command, []string) {}})
		return root
	}
	inject := func(root *cobra.Command, name string) (string, error) {
		flags, ok := playbooks[name]
		if !ok {
			return "", fmt.Errorf("no playbook %q", name)
		}
		play, _, err := root.Find([]string{"play"})
		if err != nil {
			return "", err
		}
		for _, f := range flags {
			play.Flags().String(f, "", "declared by the playbook")
		}
		return projector.ContentFingerprint([]byte(name + ":" + strings.Join(flags, ","))), nil
	}
	injector := fromcobra.NewInjector(fresh, []string{"play"}, inject, nil)

	for _, name := range []string{"audit", "deploy"} {
		cmd, contentFP, err := injector(name)
		if err != nil {
			panic(err)
		}
		schema, err := projector.Project(cmd)
		if err != nil {
			panic(err)
		}
		fmt.Println(name, schema.PropertyOrder, contentFP)
	}
	_, _, err := injector("missing")
	fmt.Println(err)
	// Output:
	// audit [depth scope playbook] pf1-5708cb5be96ca34b
	// deploy [target playbook] pf1-9250544ee20870cb
	// projector: injecting "missing" into "play": no playbook "missing"
}
