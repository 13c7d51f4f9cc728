// Package buildinfo says which build of the module's programs this is, from
// the build information the Go toolchain records in every binary. limcp
// and verbsurface both read it here for their version line (`PROGRAM
// version`, `PROGRAM --version`) and the MCP serverInfo.version, so no two
// of them can disagree.
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// Version returns the running program's version: the module version when
// it was installed as a module (`go install …/examples/limcp@v1.2.3` gives
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

// Line is the one line `PROGRAM version` and `PROGRAM --version` both
// print: "limcp version devel-0123456789ab (go1.26.8, linux/amd64)".
func Line(program string) string {
	return program + " version " + Version() + " (" + runtime.Version() + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")"
}
