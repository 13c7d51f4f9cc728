package procid_test

import (
	"fmt"
	"os"

	"github.com/verbsurface/verbsurface/internal/procid"
)

// A recorded identity is checked, never a bare pid: the same pid with
// another start time is a different process.
func ExampleCheck() {
	self, err := procid.Of(os.Getpid())
	if err != nil {
		panic(err)
	}
	fmt.Println(procid.Check(self))
	reused := self
	reused.StartTime++ // what a recycled pid looks like
	fmt.Println(procid.Check(reused))
	// Output:
	// alive
	// gone
}
