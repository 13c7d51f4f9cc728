// Package flow is the small DAG of agent steps a flow (and a playbook)
// runs: each step names a model and a prompt, and may depend on others
// whose outputs are passed to it.
//
//	steps:
//	  - id: research
//	    model: echo
//	    prompt: "Research {{.prompt}}"
//	  - id: summary
//	    model: echo:delay=100ms
//	    prompt: "Summarise the research at depth {{.args.depth}}"
//	    depends_on: [research]
//
// A step's prompt is a Go text/template rendered with .prompt (the run's
// prompt) and .args (a playbook's argument values); a missing key is an
// error, not an empty string, and so is a prompt that renders to more than
// [MaxRenderedBytes].
//
// The template language is held to what a flow needs and what runs in
// bounded work: text, fields, variables, if/else/with and the functions
// and, or, not, len, index, slice, eq, ne, lt, le, gt, ge, at most
// [MaxTemplateActions] actions per prompt. range (a loop as long as its
// value says), define, block and template (recursion), break and
// continue, and the functions that build text of any size before it is
// written (print, printf, println, html, js, urlquery) or call what they
// are given (call) are refused when the spec is read, each naming the
// place and what to use instead. Without loops or recursion rendering is
// linear in the prompt's actions. When a step runs, the outputs of the steps it
// depends on are appended to its rendered prompt, each under a line
// "--- output of STEP ---", in depends_on order.
//
// Steps whose dependencies have all completed run concurrently; a step
// whose dependency did not complete is aborted (reason
// run.aborted.dependency_failed) and never runs.
package flow
