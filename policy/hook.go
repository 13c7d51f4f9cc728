package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// OpDecision is the decision for one op of an envelope.
type OpDecision struct {
	Index int    `json:"index"`
	Op    string `json:"op"`
	Decision
}

// EnvelopeDecision is the decision for a whole request envelope: each op's
// decision and the most restrictive of them, which decides the request.
type EnvelopeDecision struct {
	Decision string       `json:"decision"`
	Reason   string       `json:"reason"`
	Ops      []OpDecision `json:"ops"`
}

// EvalEnvelope evaluates every op of a request envelope (the one tool's
// arguments, {"ops": [{"op", "args", ...}], "help": ...}) against p. The
// args are judged as sent, before the server validates them; a hook sees
// nothing else. A request that is not an envelope, an op without a string
// op or with args that are not an object, and a verb the policy does not
// know are deny. An envelope with only help (discovery, which runs
// nothing) is allow.
func EvalEnvelope(p *Policy, envelope []byte) EnvelopeDecision {
	var env struct {
		Ops []json.RawMessage `json:"ops"`
	}
	dec := json.NewDecoder(bytes.NewReader(envelope))
	dec.UseNumber()
	if err := dec.Decode(&env); err != nil {
		return denyAll(fmt.Sprintf("the request is not a JSON envelope: %v", err))
	}
	out := EnvelopeDecision{Decision: Allow, Ops: []OpDecision{}}
	for i, raw := range env.Ops {
		var op struct {
			Op   any `json:"op"`
			Args any `json:"args"`
		}
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		od := OpDecision{Index: i}
		if err := d.Decode(&op); err != nil {
			od.Decision = Decision{Decision: Deny, Rule: RuleDefault, Reason: fmt.Sprintf("op %d is not an object: %v", i, err)}
		} else if name, ok := op.Op.(string); !ok {
			od.Decision = Decision{Decision: Deny, Rule: RuleDefault, Reason: fmt.Sprintf("op %d has no string \"op\"", i)}
		} else {
			od.Op = name
			args, isMap := op.Args.(map[string]any)
			switch {
			case op.Args == nil:
				od.Decision = p.Evaluate(name, map[string]any{})
			case !isMap:
				od.Decision = Decision{Decision: Deny, Rule: RuleDefault, Reason: fmt.Sprintf("op %d (%s): args is not an object", i, name)}
			default:
				od.Decision = p.Evaluate(name, args)
			}
		}
		out.Decision = Most(out.Decision, od.Decision.Decision)
		out.Ops = append(out.Ops, od)
	}
	out.Reason = summarize(out)
	return out
}

func denyAll(reason string) EnvelopeDecision {
	return EnvelopeDecision{Decision: Deny, Reason: reason, Ops: []OpDecision{}}
}

// summarize lists each op's decision in one line, the form a hook's
// permissionDecisionReason shows the person.
func summarize(e EnvelopeDecision) string {
	if len(e.Ops) == 0 {
		return "no ops: discovery runs nothing"
	}
	parts := make([]string, len(e.Ops))
	for i, od := range e.Ops {
		name := od.Op
		if name == "" {
			name = "?"
		}
		s := fmt.Sprintf("op %d %s: %s (rule %s)", i, name, od.Decision.Decision, od.Rule)
		if od.Reason != "" {
			s += ": " + od.Reason
		}
		parts[i] = s
	}
	return "policy: " + strings.Join(parts, "; ")
}

// HookInput is the part of a Claude Code PreToolUse hook input the hook
// reads. The client sends more (session_id, transcript_path, cwd,
// permission_mode, tool_use_id); it is ignored.
type HookInput struct {
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
}

// HookOutput is a PreToolUse hook's answer on stdout.
type HookOutput struct {
	HookSpecificOutput HookSpecific `json:"hookSpecificOutput"`
}

// HookSpecific is the PreToolUse decision: permissionDecision allow, ask
// or deny, and the reason (shown to the person for ask, to the model for
// deny).
type HookSpecific struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason"`
}

// HookOptions narrows which tool a hook judges.
type HookOptions struct {
	// Server is the MCP server's name in the client's configuration: the
	// hook judges the tool mcp__SERVER__request. Empty: any
	// mcp__*__request.
	Server string
}

// Hook answers one Claude Code PreToolUse hook input. It returns the
// output to print, or nil when the input is for another tool, which passes
// through untouched (the hook prints nothing and exits 0). p nil (the
// policy could not be loaded; loadErr says why) and input that is not a
// PreToolUse input for the tool are deny, never allow: a hook that cannot
// judge must not open the gate.
func Hook(p *Policy, loadErr error, input []byte, opts *HookOptions) *HookOutput {
	deny := func(reason string) *HookOutput {
		return &HookOutput{HookSpecific{HookEventName: "PreToolUse", PermissionDecision: Deny, PermissionDecisionReason: reason}}
	}
	var in HookInput
	if err := json.Unmarshal(input, &in); err != nil {
		return deny(fmt.Sprintf("policy hook: the hook input is not JSON: %v", err))
	}
	if !isRequestTool(in.ToolName, opts) {
		return nil
	}
	if in.HookEventName != "" && in.HookEventName != "PreToolUse" {
		return deny(fmt.Sprintf("policy hook: hook_event_name is %q; this hook answers PreToolUse", in.HookEventName))
	}
	if p == nil {
		reason := "policy hook: no policy loaded"
		if loadErr != nil {
			reason = "policy hook: the policy could not be loaded: " + loadErr.Error()
		}
		return deny(reason)
	}
	if len(in.ToolInput) == 0 {
		return deny("policy hook: the hook input has no tool_input")
	}
	e := EvalEnvelope(p, in.ToolInput)
	return &HookOutput{HookSpecific{HookEventName: "PreToolUse", PermissionDecision: e.Decision, PermissionDecisionReason: e.Reason}}
}

func isRequestTool(name string, opts *HookOptions) bool {
	if opts != nil && opts.Server != "" {
		return name == "mcp__"+opts.Server+"__request"
	}
	rest, ok := strings.CutPrefix(name, "mcp__")
	return ok && strings.HasSuffix(rest, "__request") && len(rest) > len("__request")
}
