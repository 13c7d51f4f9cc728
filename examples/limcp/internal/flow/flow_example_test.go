package flow_test

import (
	"fmt"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/flow"
)

func ExampleParse() {
	spec, err := flow.Parse([]byte(`
steps:
  - id: research
    model: echo
    prompt: "research {{.prompt}}"
  - id: summary
    model: echo
    prompt: "summarise"
    depends_on: [research]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	rendered, _ := spec.Render("tides", nil)
	for _, st := range rendered.Steps {
		fmt.Printf("%s: %q after %v\n", st.ID, st.Prompt, st.DependsOn)
	}
	// Output:
	// research: "research tides" after []
	// summary: "summarise" after [research]
}
