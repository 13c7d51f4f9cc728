package schedule_test

import (
	"fmt"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/schedule"
)

func ExampleParse() {
	s, _ := schedule.Parse("30 3 * * *")
	fmt.Println(s.Next(time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)))
	_, err := schedule.Parse("30 3 * *")
	fmt.Println(err != nil)
	// Output:
	// 2030-01-02 03:30:00 +0000 UTC
	// true
}
