package verbsurface

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
)

// Catalog is the answer to {"help": true} and to a namespace's listing
// ({"help": "NS.*"}): one compact line per available verb, and the verbs
// that exist but cannot be offered, with the reason. Synonyms and fenced
// commands never appear. A verb whose command is not read yet (see
// [Options.Read]) is listed as available, "pkg.install(…) — install a
// package", and Next says once what "(…)" means.
//
// While every verb's line fits [Options.HelpBudget], Verbs holds them all
// and Namespaces is empty. Past it, the listing groups the verbs by the
// next segment of their names: Verbs holds the lines of the verbs at this
// level and Namespaces one line per group, "server.* — 24 verbs: list,
// describe, create, … — manage servers", which {"help": "server.*"}
// lists in turn. A level still too large for one answer is cut into
// pages (Page of Pages), each within the budget. Next says which call
// reaches the rest, so no verb is ever out of reach.
type Catalog struct {
	// Namespace is the listed namespace ("server.*"); empty for the
	// whole catalog.
	Namespace   string            `json:"namespace,omitempty"`
	Verbs       []string          `json:"verbs"`
	Namespaces  []string          `json:"namespaces,omitempty"`
	Unavailable []UnavailableVerb `json:"unavailable,omitempty"`
	// Total counts the verbs under the listed namespace when they are not
	// all shown as lines here (behind a namespace line or on another
	// page), unavailable ones included.
	Total int    `json:"total,omitempty"`
	Page  int    `json:"page,omitempty"`
	Pages int    `json:"pages,omitempty"`
	Next  string `json:"next"`
}

// DefaultHelpBudget is the most bytes of text one help answer takes when
// Options.HelpBudget is zero: about 2,000 tokens, whatever the number of
// verbs.
const DefaultHelpBudget = 8 << 10

// minHelpBudget is the smallest budget an operator may set: below it a
// single namespace line or a search result could not fit.
const minHelpBudget = 1 << 10

// catalogSummaryMax bounds a catalog line's summary (in runes): the catalog
// must stay near 90 bytes a verb; help for the verb has the full summary.
const catalogSummaryMax = 60

// unavailableReasonMax bounds an unavailable verb's reason in a listing
// by namespace (the flat catalog, within its budget, has them whole);
// {"help": VERB} gives the whole reason.
const unavailableReasonMax = 160

// namespaceFirstVerbs is how many of a namespace's verbs its line names.
const namespaceFirstVerbs = 3

const (
	catalogNext    = `{"help":"VERB"} gives a verb's schema and fingerprint`
	namespacedNext = `{"help":"NS.*"} lists a namespace; {"help":{"search":"WORDS"}} finds verbs by task; {"help":"VERB"} gives a verb's schema and fingerprint`
)

// catalogEntry is one registered verb as a listing shows it.
type catalogEntry struct {
	name        string
	line        string // set when available or pending
	pending     bool   // its command is not read yet: line is "VERB(…) — …"
	unavailable *UnavailableVerb
	path        []string // the command path, for a namespace's summary
}

// entries projects every registered verb (through the cache) into the
// lines a listing shows, in registration order. Fenced verbs are left out.
func (s *Surface) entries(ctx context.Context, rs *requestState) []catalogEntry {
	verbs := s.reg.snapshot()
	out := make([]catalogEntry, 0, len(verbs))
	for _, v := range verbs {
		p := s.project(ctx, rs, v)
		e := catalogEntry{name: v.Name, path: v.Path}
		switch {
		case p.fenced != "":
			continue // never shown: a fenced command is not even named
		case p.ok():
			e.line = catalogLine(v, p, s.summary(v, p))
		case p.unread != nil:
			// Listed as offered: its first use reads it.
			e.line, e.pending = catalogLine(v, p, s.summary(v, p)), true
		case p.internal != nil:
			e.unavailable = &UnavailableVerb{Verb: v.Name, Reason: "internal error: " + p.internal.Error()}
		default:
			e.unavailable = &UnavailableVerb{Verb: v.Name, Param: p.unavailable.Param, Reason: p.unavailable.Reason}
		}
		out = append(out, e)
	}
	return out
}

// catalogLine is a verb's line in the catalog, a listing or a search:
// "agent.submit(model, prompt, +11) — start one agent run".
func catalogLine(v *Verb, p *projection, summary string) string {
	return v.Name + p.signature + " — " + clip(summary, catalogSummaryMax)
}

// helpBudget is the byte budget of one help answer's text.
func (s *Surface) helpBudget() int {
	switch b := s.opts.HelpBudget; {
	case b == 0:
		return DefaultHelpBudget
	case b < 0:
		return int(^uint(0) >> 1) // no budget: the flat catalog of old
	default:
		return b
	}
}

// catalog builds the {"help": true} answer: the whole catalog while it
// fits the budget, else the top level by namespace.
func (s *Surface) catalog(ctx context.Context, rs *requestState) *Catalog {
	c, _ := s.list(ctx, rs, s.entries(ctx, rs), "", 0)
	return c
}

// listing answers {"help": "NS.*"} and {"help": {"list": "NS.*", "page": N}}.
func (s *Surface) listing(ctx context.Context, rs *requestState, ns string, page int) (any, bool) {
	all := s.entries(ctx, rs)
	if ns != "" && !slices.ContainsFunc(all, func(e catalogEntry) bool { return under(e.name, ns) }) {
		msg := fmt.Sprintf("no verb is in namespace %s", short(ns+".*"))
		if near := s.nearNamespaces(all, ns); len(near) > 0 {
			msg += "; did you mean " + quoteList(near) + "?"
		} else {
			msg += `; {"help": true} lists the namespaces`
		}
		return HelpError{&ErrorObject{Code: CodeUnknownVerb, Message: msg}}, false
	}
	c, eo := s.list(ctx, rs, all, ns, page)
	if eo != nil {
		return HelpError{eo}, false
	}
	return c, true
}

// hasNamespace reports whether some available or unavailable verb is
// under ns.
func (s *Surface) hasNamespace(ctx context.Context, rs *requestState, ns string) bool {
	if ns == "" || !slices.ContainsFunc(s.reg.snapshot(), func(v *Verb) bool { return under(v.Name, ns) }) {
		return false
	}
	// Fenced verbs are not even named: only a listed verb makes a namespace.
	return slices.ContainsFunc(s.entries(ctx, rs), func(e catalogEntry) bool { return under(e.name, ns) })
}

// under reports whether verb name lies in namespace ns ("" holds all).
func under(name, ns string) bool {
	return ns == "" || len(name) > len(ns)+1 && name[len(ns)] == '.' && strings.HasPrefix(name, ns)
}

// nearNamespaces suggests namespaces whose names are close to ns.
func (s *Surface) nearNamespaces(all []catalogEntry, ns string) []string {
	seen := map[string]bool{}
	var names []string
	for _, e := range all {
		for i := range len(e.name) {
			if e.name[i] == '.' && !seen[e.name[:i]] {
				seen[e.name[:i]] = true
				names = append(names, e.name[:i])
			}
		}
	}
	var out []string
	for _, m := range closeMatches(ns, names) {
		out = append(out, m+".*")
	}
	return out
}

// listItem is one line of a grouped listing: a verb at this level, an
// unavailable verb at this level, or a namespace.
type listItem struct {
	verb        string
	namespace   string
	unavailable *UnavailableVerb
	pending     bool // verb is a pending verb's line
	size        int  // encoded bytes, with the comma that separates it
}

// list builds the listing of namespace ns ("" for the catalog) within the
// budget: flat when every line fits; else grouped by the next name
// segment; else the grouped items cut into pages.
func (s *Surface) list(ctx context.Context, rs *requestState, all []catalogEntry, ns string, page int) (*Catalog, *ErrorObject) {
	budget := s.helpBudget()
	var in []catalogEntry
	for _, e := range all {
		if under(e.name, ns) {
			in = append(in, e)
		}
	}
	head := &Catalog{Verbs: []string{}, Next: catalogNext}
	if ns != "" {
		head.Namespace = ns + ".*"
	}
	flat := *head
	pending := false // some line of in is a pending verb's
	for _, e := range in {
		if e.unavailable != nil {
			flat.Unavailable = append(flat.Unavailable, *e.unavailable)
		} else {
			flat.Verbs = append(flat.Verbs, e.line)
		}
		pending = pending || e.pending
	}
	if pending {
		flat.Next += pendingNext
	}
	if page <= 1 && encodedLen(&flat) <= budget {
		return &flat, nil
	}

	// Grouped: one item per verb at this level and per namespace below it,
	// in the order of their first verb's registration.
	prefix := 0
	if ns != "" {
		prefix = len(ns) + 1
	}
	var items []listItem
	groups := map[string]int{} // namespace → index in items
	members := map[string][]catalogEntry{}
	for _, e := range in {
		seg, _, deeper := strings.Cut(e.name[prefix:], ".")
		if !deeper {
			if e.unavailable != nil {
				u := *e.unavailable
				u.Reason = clip(u.Reason, unavailableReasonMax)
				items = append(items, listItem{unavailable: &u})
			} else {
				items = append(items, listItem{verb: e.line, pending: e.pending})
			}
			continue
		}
		if _, ok := groups[seg]; !ok {
			groups[seg] = len(items)
			items = append(items, listItem{namespace: seg})
		}
		members[seg] = append(members[seg], e)
	}
	t, _ := s.tree(ctx, rs)
	for i := range items {
		it := &items[i]
		if it.namespace != "" {
			full := it.namespace
			if ns != "" {
				full = ns + "." + it.namespace
			}
			it.namespace = namespaceLine(full, members[it.namespace], prefix+len(it.namespace)+1, namespaceSummary(t, full, members[it.namespace]))
		}
		it.size = itemSize(it)
	}
	head.Next, head.Total = namespacedNext, len(in)
	// Pages: as many items as fit the budget, in order; a page holds at
	// least one item whatever its size (a line is bounded).
	overhead := encodedLen(head) + len(`,"namespaces":[],"unavailable":[],"page":1000,"pages":1000`) + len(pagedNext(ns, 1000, 1000))
	if pending {
		overhead += len(pendingNext)
	}
	var pages [][]listItem
	var cur []listItem
	used := overhead
	for _, it := range items {
		if len(cur) > 0 && used+it.size > budget {
			pages = append(pages, cur)
			cur, used = nil, overhead
		}
		cur = append(cur, it)
		used += it.size
	}
	pages = append(pages, cur)
	if page == 0 {
		page = 1
	}
	if page > len(pages) {
		return nil, &ErrorObject{Code: CodeInvalidArgs, Message: fmt.Sprintf("%s has %d page%s of listing; page %d does not exist",
			listName(ns), len(pages), plural(len(pages), "s", ""), page)}
	}
	c := *head
	shown := false // a pending verb's line is on this page
	for _, it := range pages[page-1] {
		switch {
		case it.namespace != "":
			c.Namespaces = append(c.Namespaces, it.namespace)
		case it.unavailable != nil:
			c.Unavailable = append(c.Unavailable, *it.unavailable)
		default:
			c.Verbs = append(c.Verbs, it.verb)
			shown = shown || it.pending
		}
	}
	if len(pages) > 1 {
		c.Page, c.Pages = page, len(pages)
		c.Next = pagedNext(ns, page, len(pages))
	}
	if shown {
		c.Next += pendingNext
	}
	return &c, nil
}

func listName(ns string) string {
	if ns == "" {
		return "the catalog"
	}
	return strconv.Quote(ns + ".*")
}

// pagedNext says how to reach the other pages, then the rest of help.
func pagedNext(ns string, page, pages int) string {
	list := "*"
	if ns != "" {
		list = ns + ".*"
	}
	next := fmt.Sprintf("page %d of %d", page, pages)
	if page < pages {
		next += fmt.Sprintf(`; {"help":{"list":%q,"page":"%d"}} is the next`, list, page+1)
	}
	return next + "; " + namespacedNext
}

// namespaceLine is "server.* — 24 verbs: list, describe, create, … —
// manage servers" (the summary, when one is known, last).
func namespaceLine(full string, members []catalogEntry, cut int, summary string) string {
	var b strings.Builder
	b.WriteString(full)
	b.WriteString(".* — ")
	b.WriteString(strconv.Itoa(len(members)))
	b.WriteString(plural(len(members), " verbs: ", " verb: "))
	for i, e := range members {
		if i == namespaceFirstVerbs {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.name[cut:])
	}
	if n := unavailableCount(members); n > 0 {
		fmt.Fprintf(&b, " (%d unavailable)", n)
	}
	if summary != "" {
		b.WriteString(" — ")
		b.WriteString(clip(summary, catalogSummaryMax))
	}
	return b.String()
}

func unavailableCount(members []catalogEntry) int {
	n := 0
	for _, e := range members {
		if e.unavailable != nil {
			n++
		}
	}
	return n
}

// namespaceSummary is the summary of the command the namespace's verbs
// share: the group command of their common command path (podman's
// "container" for container.ls, container.rm), else a command named like
// the namespace's last segment at the top of the tree (limcp's "job" for
// job.status, job.wait).
func namespaceSummary(t *projector.Tree, full string, members []catalogEntry) string {
	if t == nil {
		return ""
	}
	common := members[0].path
	for _, e := range members[1:] {
		n := 0
		for n < len(common) && n < len(e.path) && common[n] == e.path[n] {
			n++
		}
		common = common[:n]
	}
	if len(common) > 0 && len(common) < len(members[0].path) {
		if c := t.Find(common...); c != nil && c.Summary != "" {
			return c.Summary
		}
	}
	last := full[strings.LastIndexByte(full, '.')+1:]
	if c := t.Find(last); c != nil && len(c.Path) > 0 {
		return c.Summary
	}
	return ""
}

func itemSize(it *listItem) int {
	switch {
	case it.namespace != "":
		return jsonStringLen(it.namespace) + 1
	case it.unavailable != nil:
		return encodedLen(it.unavailable) + 1
	}
	return jsonStringLen(it.verb) + 1
}

func jsonStringLen(s string) int {
	b, _ := json.Marshal(s)
	return len(b)
}

// encodedLen is the length of v's JSON encoding (0 when it has none).
func encodedLen(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}
