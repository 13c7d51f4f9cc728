//go:build unix

package dispatch_test

import (
	"errors"
	"fmt"

	"github.com/verbsurface/verbsurface/dispatch"
)

// A linter run in the background wrote its findings to a file and exited
// 1, which the verb counts as ok; later its output is read exactly as a
// foreground op of the same runner would have read it. An exit outside
// the ok exits is the foreground's nonzero_exit, findings kept.
func ExampleRunner_Interpret() {
	r, err := dispatch.NewRunner("/bin/sh", &dispatch.Options{Output: dispatch.OutputJSON, OKExit: []int{0, 1}})
	if err != nil {
		panic(err)
	}
	stdout := []byte(`[{"file": "a.yaml", "line": 3}]` + "\n")
	data, err := r.Interpret([]string{"lint.sh"}, stdout, nil, 1, "")
	fmt.Println(string(data), err)

	_, err = r.Interpret([]string{"lint.sh"}, stdout, []byte("crashed\n"), 2, "")
	var de *dispatch.Error
	if errors.As(err, &de) {
		fmt.Println(de.Kind, de.ExitCode, string(de.Output))
	}
	// Output:
	// {"output":[{"file":"a.yaml","line":3}],"exit_code":1,"stderr":"","replaced_bytes":0} <nil>
	// nonzero_exit 2 [{"file":"a.yaml","line":3}]
}
