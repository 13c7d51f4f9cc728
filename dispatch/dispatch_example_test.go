//go:build unix

package dispatch_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/verbsurface/verbsurface/dispatch"
)

// shCLI returns a runner whose "CLI" is a /bin/sh script, so the examples
// need nothing built. A real CLI is fronted the same way: NewRunner with its
// path, then Run with the rendered argv.
func shCLI(script string, opts dispatch.Options) *dispatch.Runner {
	opts.LeadingArgs = []string{"-c", script, "sh"}
	r, err := dispatch.NewRunner("/bin/sh", &opts)
	if err != nil {
		panic(err)
	}
	return r
}

func ExampleRunner_Run() {
	r := shCLI(`printf '{"result_version":1,"ok":true,"data":{"id":"%s","status":"running"}}\n' "$1"`, dispatch.Options{})
	data, err := r.Run(context.Background(), []string{"run-42"})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(string(data))
	// Output:
	// {"id":"run-42","status":"running"}
}

func ExampleRunner_Execute() {
	r := shCLI(`echo 'progress: 100%' >&2; echo '{"result_version":1,"ok":true,"data":[1,2,3]}'`, dispatch.Options{})
	res, err := r.Execute(context.Background(), nil)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Printf("data=%s exit=%d stderr=%q\n", res.Data, res.ExitCode, res.Stderr)
	// Output:
	// data=[1,2,3] exit=0 stderr="progress: 100%\n"
}

// A CLI's own error object comes back as a *CLIError carrying its code.
func ExampleCLIError() {
	r := shCLI(`echo '{"result_version":1,"ok":false,"error":{"code":"not_found","message":"no run r9","details":{"id":"r9"}}}'; exit 1`, dispatch.Options{})
	_, err := r.Run(context.Background(), nil)
	var ce *dispatch.CLIError
	if errors.As(err, &ce) {
		fmt.Println(ce.ErrorCode(), ce.Code, ce.Message, string(ce.Details))
	}
	// Output:
	// cli_error not_found no run r9 {"id":"r9"}
}

// Every dispatch failure is an *Error with a Kind; consumers that must not
// import this package match interface{ ErrorCode() string } instead.
func ExampleError() {
	r := shCLI(`sleep 10`, dispatch.Options{Timeout: 100 * time.Millisecond, Grace: 100 * time.Millisecond})
	_, err := r.Run(context.Background(), nil)
	var e *dispatch.Error
	if errors.As(err, &e) {
		fmt.Println(e.Kind)
	}
	var coded interface{ ErrorCode() string }
	if errors.As(err, &coded) {
		fmt.Println(coded.ErrorCode())
	}
	// Output:
	// timeout
	// timeout
}

func ExampleParseMachineResult() {
	for _, stdout := range []string{
		`{"result_version":1,"ok":true,"data":"fine"}`,
		``,
		`{"result_version":1,"ok":true,"data":1}{"result_version":1,"ok":true,"data":2}`,
		`{"result_version":2,"ok":true,"data":1}`,
		`Done!`,
	} {
		mr, err := dispatch.ParseMachineResult([]byte(stdout))
		var e *dispatch.Error
		if errors.As(err, &e) {
			fmt.Println(e.Kind)
			continue
		}
		fmt.Println("ok:", string(mr.Data))
	}
	// Output:
	// ok: "fine"
	// absent_result
	// multiple_results
	// unsupported_result_version
	// invalid_result
}

func ExampleNewRunner() {
	_, err := dispatch.NewRunner("/no/such/cli", &dispatch.Options{})
	fmt.Println(err)
	// Output:
	// dispatch: program /no/such/cli does not exist
}

// A program that writes its JSON report on stderr (as gcc does under
// -fdiagnostics-format=json) is read from there; its stdout comes back in
// stderr's place.
func ExampleStream() {
	r := shCLI(`echo 'checking' ; echo '[{"kind":"error","line":1}]' >&2; exit 1`,
		dispatch.Options{Output: dispatch.OutputJSON, OKExit: []int{0, 1}, OutputStream: dispatch.StreamStderr})
	data, err := r.Run(context.Background(), nil)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(string(data))
	// Output:
	// {"output":[{"kind":"error","line":1}],"exit_code":1,"stdout":"checking\n","replaced_bytes":0}
}
