//go:build unix

package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/server"
	"github.com/verbsurface/verbsurface/policy"
)

// policyCmd is `limcp policy`: check a policy file against the live
// verbs, answer a Claude Code PreToolUse hook, evaluate a request.
func (a *app) policyCmd() *cobra.Command {
	return group("policy", "check, and enforce in a client's hooks, the policy file limcp mcp --policy enforces",
		a.policyCheckCmd(), a.policyHookCmd(), a.policyEvalCmd())
}

// policyVerbs is what a policy is checked against: the verbs limcp mcp
// offers, with the parameters they have now.
func (a *app) policyVerbs(cmd *cobra.Command) ([]policy.Verb, error) {
	home, err := a.resolvedHome()
	if err != nil {
		return nil, err
	}
	srv, err := server.New(server.Options{Home: home, Executable: a.opts.Executable, NoNotify: true, NoStoreSignal: true,
		NewRoot: func() *cobra.Command { return NewRoot(Options{}) }})
	if err != nil {
		return nil, machine.Errorf(machine.Internal, nil, "%v", err)
	}
	defer srv.Close()
	return srv.PolicyVerbs(cmd.Context()), nil
}

func (a *app) loadPolicy(cmd *cobra.Command, file string, readOnly bool) (*policy.Policy, error) {
	verbs, err := a.policyVerbs(cmd)
	if err != nil {
		return nil, err
	}
	if readOnly {
		return policy.ReadOnly(verbs), nil
	}
	p, err := policy.Load(file, verbs)
	if err != nil {
		return nil, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "file"}, "%v", err)
	}
	return p, nil
}

func (a *app) policyCheckCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "check FILE",
		Short: "check a policy file against the live verbs and their parameters",
		Long: `Load FILE as limcp mcp --policy FILE would and report every problem with its
file, line and field: an unknown key, a rule naming a verb limcp mcp does not
offer (or a glob matching none), a condition on a parameter a matched verb
does not have. A file that checks here loads in the server.`,
		Args: cobra.ExactArgs(1),
	}
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		p, err := a.loadPolicy(cmd, args[0], false)
		if err != nil {
			return err
		}
		return a.ok(map[string]any{"file": args[0], "limits": p.Limits}, func(w io.Writer) {
			fmt.Fprintf(w, "%s: ok\n", args[0])
		})
	})
	return c
}

func (a *app) policyHookCmd() *cobra.Command {
	var file, serverName string
	var readOnly bool
	c := &cobra.Command{
		Use:   "hook",
		Short: "answer a Claude Code PreToolUse hook from the policy file",
		Long: `Read a Claude Code PreToolUse hook input on stdin and print the hook's
decision on stdout: for the tool mcp__SERVER__request, every op of the request
envelope is evaluated against the policy file and the most restrictive op
decides (hookSpecificOutput.permissionDecision allow, ask or deny, with
permissionDecisionReason listing each op's decision). Input for any other tool
passes through: nothing is printed. Malformed input, or a policy that does not
load, is deny, never allow. It always exits 0: the decision is in the output.`,
		Args: cobra.NoArgs,
	}
	c.Flags().StringVar(&file, "policy", "", "the policy file (the one limcp mcp --policy enforces)")
	c.Flags().BoolVar(&readOnly, "read-only", false, "enforce the built-in read-only policy (observe verbs only) instead of a file")
	c.Flags().StringVar(&serverName, "server", "", "the MCP server's name in the client's settings (default: any mcp__*__request tool)")
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		input, readErr := io.ReadAll(io.LimitReader(cmd.InOrStdin(), 8<<20))
		var p *policy.Policy
		var loadErr error
		switch {
		case file == "" && !readOnly:
			loadErr = fmt.Errorf("no --policy FILE (or --read-only) given")
		case file != "" && readOnly:
			loadErr = fmt.Errorf("--policy and --read-only name two policies; give one")
		default:
			p, loadErr = a.loadPolicy(cmd, file, readOnly)
		}
		if readErr != nil {
			input = nil // judged as malformed: deny
		}
		out := policy.Hook(p, loadErr, input, &policy.HookOptions{Server: serverName})
		a.emitted = true // stdout is the hook's answer, in the client's format
		if out == nil {
			return nil
		}
		return json.NewEncoder(a.opts.Stdout).Encode(out)
	})
	return c
}

func (a *app) policyEvalCmd() *cobra.Command {
	var readOnly bool
	c := &cobra.Command{
		Use:   "eval FILE REQUEST_JSON",
		Short: "print each op's policy decision for a request envelope, as JSON",
		Long: `Evaluate every op of REQUEST_JSON (the request tool's arguments,
{"ops": [...]}; "-" reads it from stdin) against the policy FILE and print
{"decision", "reason", "ops": [{"index", "op", "decision", "rule", "reason"}]}:
what any client's hook system needs to enforce the same file. With --read-only,
FILE is ignored ("-" will do) and the built-in read-only policy decides.`,
		Args: cobra.ExactArgs(2),
	}
	c.Flags().BoolVar(&readOnly, "read-only", false, "evaluate against the built-in read-only policy")
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		p, err := a.loadPolicy(cmd, args[0], readOnly)
		if err != nil {
			return err
		}
		req := []byte(args[1])
		if args[1] == "-" {
			if req, err = io.ReadAll(io.LimitReader(cmd.InOrStdin(), 8<<20)); err != nil {
				return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "REQUEST_JSON"}, "reading stdin: %v", err)
			}
		}
		d := policy.EvalEnvelope(p, req)
		if a.json {
			return a.ok(d, nil)
		}
		a.emitted = true
		return json.NewEncoder(a.opts.Stdout).Encode(d)
	})
	return c
}
