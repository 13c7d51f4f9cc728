package verbsurface

import (
	"errors"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
)

// RuleCLIRefused: the CLI itself refused a value the schema admits, at parse
// time (a pflag Value's Set, an argparse type= callable or choices check,
// its own check of one argument), and named the parameter in its machine
// result. The schema cannot say everything a CLI's own validator checks
// (a custom flag type is string-in); the reason is the CLI's message.
const RuleCLIRefused = "cli_refused"

// CLIArgumentCodes are the CLI machine-result error codes that mean "one
// argument is not acceptable": a usage error (the command line did not
// parse, for example a flag's value type refused it) or an invalid argument
// (it parsed but the value is refused). When a CLI's error object has one
// of these codes and names the argument in its details — "param" (the
// parameter's schema name) or "argument" (a flag's name, with or without
// its dashes, or a positional's name) — and that names a parameter of the
// verb, the op fails with invalid_args on that parameter, carrying the
// schema, fingerprint and help call like every argument error, instead of
// cli_error. Otherwise the CLI's error passes through as cli_error.
var CLIArgumentCodes = []string{"invalid_argument", "usage_error"}

// cliArgumentProblem reads err as the CLI naming one refused argument of cmd
// (see CLIArgumentCodes), or returns nil.
func cliArgumentProblem(err error, cmd *projector.Command) *Problem {
	var c coded
	var d detailed
	if !errors.As(err, &c) || c.ErrorCode() != CodeCLIError || !errors.As(err, &d) {
		return nil
	}
	outer := d.ErrorDetails()
	code, _ := outer["code"].(string)
	known := false
	for _, k := range CLIArgumentCodes {
		known = known || code == k
	}
	inner, _ := outer["details"].(map[string]any)
	if !known || inner == nil {
		return nil
	}
	message, _ := outer["message"].(string)
	for _, key := range []string{"param", "argument"} {
		name, _ := inner[key].(string)
		if name == "" {
			continue
		}
		if p := paramNamed(cmd, name); p != nil {
			return &Problem{Param: p.Name, Rule: RuleCLIRefused,
				Reason: "the CLI refused this value: " + message}
		}
	}
	return nil
}

// paramNamed finds the parameter a CLI names: by schema name, by an option
// string ("--count", "-n"), by a flag's name without dashes ("count", "dry-run"),
// or by an argparse dest a flag was split from.
func paramNamed(cmd *projector.Command, name string) *projector.Param {
	for _, p := range cmd.Params {
		if p.Name == name {
			return p
		}
	}
	for _, p := range cmd.Params {
		for _, o := range append(append([]string(nil), p.Options...), p.NegOptions...) {
			if o == name || strings.TrimLeft(o, "-") == strings.TrimLeft(name, "-") {
				return p
			}
		}
	}
	return nil
}
