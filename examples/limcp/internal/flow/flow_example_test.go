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

// A step that depends on others gets their outputs after its own prompt.
func ExampleWithInputs() {
	fmt.Println(flow.WithInputs("Summarise the findings.", []flow.Input{
		{Step: "scan", Output: "3 issues"},
		{Step: "lint", Output: "clean"},
	}))
	// Output:
	// Summarise the findings.
	//
	// --- output of scan ---
	// 3 issues
	//
	// --- output of lint ---
	// clean
}
