package flow

import (
	"fmt"
	"text/template"
	"text/template/parse"
)

// MaxTemplateActions bounds the actions ({{...}}, if, with) of one step
// prompt. Without loops or recursion a template's work is linear in its
// actions, each touching at most the run's prompt and arguments; this
// makes that linear bound small.
const MaxTemplateActions = 1000

// templateFuncs are the functions a flow template may call: comparisons,
// logic, len and index. Each costs at most what its arguments hold and
// builds no text of its own. print, printf, println, html, js and
// urlquery build strings before anything is written (printf's width alone
// asks for any size: %0999999999d), and call calls arbitrary functions:
// none is offered.
var templateFuncs = map[string]bool{
	"and": true, "or": true, "not": true, "len": true, "index": true, "slice": true,
	"eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true,
}

// parseTemplate parses a step prompt and holds it to what a flow needs
// and what runs in bounded work: text, .prompt and .args fields,
// variables, if, else and with, and the functions of templateFuncs, at
// most MaxTemplateActions actions. range is refused (over an integer or
// an argument it loops as often as the caller says: range 100000000 held
// a CPU until the command's timeout), and so are define, block, template
// (recursion), break and continue. Each refusal names the place in the
// prompt and what to use instead.
func parseTemplate(text string) (*template.Template, error) {
	t, err := template.New("prompt").Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, err
	}
	if len(t.Templates()) > 1 {
		return nil, fmt.Errorf("{{define}} and {{block}} are not allowed in a flow template (a template that calls itself has no bound); %s", allowed)
	}
	if t.Tree == nil || t.Tree.Root == nil {
		return t, nil
	}
	c := &templateCheck{tree: t.Tree}
	c.node(t.Tree.Root)
	if c.err != nil {
		return nil, c.err
	}
	return t, nil
}

// allowed ends every refusal: what a flow template may use.
const allowed = "a flow template may use .prompt, .args.NAME, variables, if/else/with and the functions and, or, not, len, index, slice, eq, ne, lt, le, gt, ge"

type templateCheck struct {
	tree    *parse.Tree
	actions int
	err     error
}

func (c *templateCheck) refuse(n parse.Node, format string, args ...any) {
	if c.err == nil {
		loc, _ := c.tree.ErrorContext(n)
		c.err = fmt.Errorf("%s: %s; %s", loc, fmt.Sprintf(format, args...), allowed)
	}
}

func (c *templateCheck) count(n parse.Node) {
	c.actions++
	if c.actions == MaxTemplateActions+1 {
		c.refuse(n, "more than %d actions", MaxTemplateActions)
	}
}

func (c *templateCheck) node(n parse.Node) {
	if n == nil || c.err != nil {
		return
	}
	switch x := n.(type) {
	case *parse.ListNode:
		if x == nil {
			return
		}
		for _, m := range x.Nodes {
			c.node(m)
		}
	case *parse.TextNode, *parse.CommentNode:
	case *parse.ActionNode:
		c.count(x)
		c.pipe(x.Pipe)
	case *parse.IfNode:
		c.count(x)
		c.pipe(x.Pipe)
		c.node(x.List)
		c.node(x.ElseList)
	case *parse.WithNode:
		c.count(x)
		c.pipe(x.Pipe)
		c.node(x.List)
		c.node(x.ElseList)
	case *parse.RangeNode:
		c.refuse(x, "{{range}} is not allowed in a flow template (it loops as often as its value says, without bound)")
	case *parse.TemplateNode:
		c.refuse(x, "{{template}} is not allowed in a flow template (a template that calls itself has no bound)")
	case *parse.BreakNode, *parse.ContinueNode:
		c.refuse(x, "{{break}} and {{continue}} belong to range, which is not allowed")
	default:
		c.refuse(n, "%s is not allowed in a flow template", n)
	}
}

func (c *templateCheck) pipe(p *parse.PipeNode) {
	if p == nil {
		return
	}
	for _, cmd := range p.Cmds {
		for i, arg := range cmd.Args {
			c.arg(arg, i == 0)
		}
	}
}

func (c *templateCheck) arg(n parse.Node, first bool) {
	switch x := n.(type) {
	case *parse.IdentifierNode:
		if !templateFuncs[x.Ident] {
			c.refuse(x, "the function %s is not allowed in a flow template (it builds text of any size, or calls what it is given)", x.Ident)
		}
	case *parse.PipeNode:
		c.pipe(x)
	case *parse.ChainNode:
		c.arg(x.Node, first)
	}
}
