package machine_test

import (
	"os"

	"github.com/verbsurface/verbsurface/dispatch/machine"
)

func ExampleWriteOK() {
	machine.WriteOK(os.Stdout, map[string]any{"id": "n1"})
	machine.WriteError(os.Stdout, machine.Errorf("unknown_id", map[string]any{"id": "n9"}, "no note n9"))
	// Output:
	// {"result_version":1,"ok":true,"data":{"id":"n1"}}
	// {"result_version":1,"ok":false,"error":{"code":"unknown_id","message":"no note n9","details":{"id":"n9"}}}
}
