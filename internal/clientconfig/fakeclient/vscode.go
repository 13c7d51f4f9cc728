package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// VS Code's `code --add-mcp JSON` (src/vs/platform/mcp/common/
// mcpManagementCli.ts): each JSON is {"name": N, "inputs": [...], ...the
// server configuration}; the server goes into the user profile's mcp.json
// under "servers" (replacing one of that name), its inputs into "inputs"
// (by id).

// vscodeUserDir is where the default profile lives: $VSCODE_APPDATA, else
// (Linux) $XDG_CONFIG_HOME or ~/.config, (macOS) ~/Library/Application
// Support, (Windows) %APPDATA%; then Code/User.
func vscodeUserDir() string {
	base := os.Getenv("VSCODE_APPDATA")
	if base == "" {
		switch runtime.GOOS {
		case "darwin":
			base = filepath.Join(home(), "Library", "Application Support")
		case "windows":
			base = os.Getenv("APPDATA")
		default:
			if base = os.Getenv("XDG_CONFIG_HOME"); base == "" {
				base = filepath.Join(home(), ".config")
			}
		}
	}
	return filepath.Join(base, "Code", "User")
}

func vscode(args []string) int {
	var defs []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--add-mcp" && i+1 < len(args) {
			defs = append(defs, args[i+1])
			i++
			continue
		}
		fmt.Fprintf(os.Stderr, "fake code: only --add-mcp JSON and --version are implemented (got %q)\n", args[i])
		return 1
	}
	if len(defs) == 0 {
		fmt.Fprintln(os.Stderr, "fake code: nothing to do (the real one would open a window)")
		return 1
	}
	path := filepath.Join(vscodeUserDir(), "mcp.json")
	doc, err := readJSON(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	servers := object(doc, "servers")
	var names []string
	for _, d := range defs {
		var cfg map[string]any
		if err := json.Unmarshal([]byte(d), &cfg); err != nil {
			fmt.Fprintf(os.Stderr, "Invalid JSON '%s': %v\n", d, err)
			return 1
		}
		name, _ := cfg["name"].(string)
		if name == "" {
			fmt.Fprintf(os.Stderr, "Missing name property in %s\n", d)
			return 1
		}
		if cfg["command"] == nil && cfg["url"] == nil {
			fmt.Fprintf(os.Stderr, "Missing command or URL property in %s\n", d)
			return 1
		}
		inputs, _ := cfg["inputs"].([]any)
		delete(cfg, "name")
		delete(cfg, "inputs")
		servers[name] = cfg
		have, _ := doc["inputs"].([]any)
		for _, in := range inputs {
			id, _ := in.(map[string]any)["id"].(string)
			dup := false
			for _, h := range have {
				if hid, _ := h.(map[string]any)["id"].(string); hid == id {
					dup = true
				}
			}
			if !dup {
				have = append(have, in)
			}
		}
		if len(have) > 0 {
			doc["inputs"] = have
		}
		names = append(names, name)
	}
	if err := writeJSON(path, doc); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("Added MCP servers: %s\n", joinComma(names))
	return 0
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}
