package verbsurface_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/verbsurface/verbsurface/policy"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// A policy file enforced by a surface: load it against the surface's live
// verbs, then make the surface with Options.Decide. What a request would
// ask the person is known before anything runs; without a person to ask
// (no MCP client with elicitation here), the op is refused naming the rule.
func ExampleSurface_Confirmations() {
	ctx := context.Background()
	verbs := exampleSurface(verbsurface.Options{}).PolicyVerbs(ctx)
	p, err := policy.Parse("policy.yaml", []byte(`version: 1
rules:
  - verbs: [job.status]
    decision: allow
  - name: starts-need-my-ok
    verbs: [job.start]
    decision: ask
    reason: starting costs money
`), verbs)
	if err != nil {
		log.Fatal(err)
	}
	surface := exampleSurface(verbsurface.Options{Decide: p})
	req := json.RawMessage(`{"ops":[{"op":"job.status","args":{"id":"7"}},{"op":"job.start","args":{"name":"nightly"}}]}`)
	for _, c := range surface.Confirmations(ctx, req) {
		fmt.Println(c.Index, c.Verb, c.Rule)
	}
	fmt.Println(verbsurface.ConfirmMessage(surface.Confirmations(ctx, req)))
	resp := surface.Handle(ctx, req, nil)
	fmt.Println(resp.Status, resp.Results[1].Error.Code, resp.Results[1].Error.Confirmation)
	// Output:
	// 1 job.start starts-need-my-ok
	// The policy asks you to confirm an op before anything in this request runs.
	//
	// op 1: job.start (rule starts-need-my-ok: starting costs money)
	//   name: nightly
	// run: job status -- 7
	// partial policy_refused unavailable
}
