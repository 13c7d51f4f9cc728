package machine_test

import (
	"os"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
)

func ExampleWrite() {
	machine.Write(os.Stdout, machine.OK(map[string]string{"id": "0123456789abcdef"}))
	machine.Write(os.Stdout, machine.Fail(machine.Errorf(machine.AmbiguousID,
		map[string]any{"id": "01234567", "candidates": []string{"0123456789abcdef", "0123456799abcdef"}},
		"id prefix %q is ambiguous", "01234567")))
	// Output:
	// {"result_version":1,"ok":true,"data":{"id":"0123456789abcdef"}}
	// {"result_version":1,"ok":false,"error":{"code":"ambiguous_id","message":"id prefix \"01234567\" is ambiguous","details":{"candidates":["0123456789abcdef","0123456799abcdef"],"id":"01234567"}}}
}
