//go:build unix

package dispatch

import (
	"context"
	"os"
	"strings"
	"time"
)

// serverHelperEnv makes the test binary a "server": it runs `fakecli hang
// PIDFILE SNAPSHOT` through a Runner, the snapshot a PromptSnapshots
// preparer made, and waits (serverHelper). The value is the fake CLI.
const serverHelperEnv = "DISPATCH_TEST_SERVER"

func serverHelper() int {
	r, err := NewRunner(os.Getenv(serverHelperEnv), &Options{Timeout: time.Minute})
	if err != nil {
		return 2
	}
	prepared, _, cleanup, err := PromptSnapshots{Dir: os.Getenv("DISPATCH_TEST_SNAPDIR")}.Prepare(context.Background(),
		map[string]any{"prompt": strings.Repeat("p", DefaultMaxArgBytes+1)})
	if err != nil {
		return 3
	}
	defer cleanup()
	_, _ = r.Execute(context.Background(), []string{"hang", os.Args[1], prepared["prompt_file"].(string)})
	return 0
}
