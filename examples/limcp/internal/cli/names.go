//go:build unix

package cli

import (
	"regexp"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/projector/fromcobra"
)

// NamePattern is what a name a caller gives to something limcp keeps may
// be: a schedule, a team board, a show. Letters, digits, '.', '_' and
// '-', 1 to 64 of them: no '/', no space, no control character, so a name
// is never a path and prints as itself. The schema states it (a caller is
// refused at validation) and the CLI checks it again.
const NamePattern = `^[A-Za-z0-9._-]{1,64}$`

var nameRE = regexp.MustCompile(NamePattern)

// constrainName states NamePattern in the schema of param.
func constrainName(c *cobra.Command, param string) {
	fromcobra.Constrain(c, param, fromcobra.Constraint{Pattern: NamePattern})
}

// checkName refuses a name that does not match NamePattern.
func checkName(param, name string) error {
	if !nameRE.MatchString(name) {
		return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": param},
			"%s %q is not a name: 1 to 64 letters, digits, '.', '_' or '-' (pattern %s)", param, name, NamePattern)
	}
	return nil
}
