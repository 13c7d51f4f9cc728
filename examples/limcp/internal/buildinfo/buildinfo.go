// Package buildinfo says which limcp this is, from the build information
// the Go toolchain records in every binary. The CLI (`limcp version`,
// `--version`) and the MCP server (serverInfo.version) both read it here,
// so the two can never disagree.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Version returns limcp's version: the module version when limcp was
// installed as a module (`go install …/examples/limcp@v1.2.3` gives
// "v1.2.3"); otherwise "devel", followed by the VCS revision (12 hex
// digits) and "+dirty" when the build recorded them (a build from a
// clone). It never returns "".
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return fromBuildInfo(bi)
}

func fromBuildInfo(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	var b strings.Builder
	b.WriteString("devel")
	if rev != "" {
		b.WriteString("-" + rev)
		if dirty {
			b.WriteString("+dirty")
		}
	}
	return b.String()
}
