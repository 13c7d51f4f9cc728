package cobrart

import (
	"fmt"
	"reflect"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/verbsurface/verbsurface/projector"
)

// Check is the parsing half of a cobra round-trip property: it parses
// argv, which RenderArgv gave for args, with the command at cmd.Path of a
// fresh tree from root, and reports the first parameter of cmd whose
// value cobra read back differs from the one given (an omitted parameter
// must stay unset, a bare option must store its no-value default), or
// the parser's refusal. The fixture tests of the cobra adapters and the
// corpus of third-party CLIs share it.
func Check(root func() *cobra.Command, cmd *projector.Command, args map[string]any, argv []string) error {
	cc, pos, err := Parse(root(), cmd.Path, argv)
	if err != nil {
		return fmt.Errorf("the CLI's parser rejected the rendered argv: %v", err)
	}
	got, err := Values(cmd, cc, pos)
	if err != nil {
		return err
	}
	for _, p := range cmd.Params {
		v, given := args[p.Name]
		g, parsed := got[p.Name]
		switch {
		case !given:
			if parsed && !(p.Positional() && reflect.DeepEqual(g, []any{})) {
				var changed []string
				cc.Flags().VisitAll(func(f *pflag.Flag) {
					if f.Changed {
						changed = append(changed, f.Name)
					}
				})
				return fmt.Errorf("parameter %s: omitted but parsed as %#v (changed %v)", p.Name, g, changed)
			}
		case !parsed:
			if items, ok := v.([]any); !ok || len(items) > 0 {
				return fmt.Errorf("parameter %s: given %#v but not parsed", p.Name, v)
			}
		case p.Bare && v == true:
			if fmt.Sprint(g) != fmt.Sprint(p.Const) {
				return fmt.Errorf("parameter %s: given bare, parsed %#v, want its no-value default %q", p.Name, g, p.Const)
			}
		default:
			if want := Want(p, v); !reflect.DeepEqual(g, want) {
				return fmt.Errorf("parameter %s: parsed %#v, want %#v", p.Name, g, want)
			}
		}
	}
	return nil
}
