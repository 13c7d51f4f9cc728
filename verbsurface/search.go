package verbsurface

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface/internal/rank"
)

// SearchResult is the answer to {"help": {"search": "WORDS"}}: the catalog
// lines of the verbs that best match the words, best first, ranked by BM25
// over each verb's name, summary, and parameter names and help.
type SearchResult struct {
	Search string   `json:"search"`
	Verbs  []string `json:"verbs"`
	Next   string   `json:"next"`
}

// DefaultSearchResults is how many verbs a search returns when
// Options.SearchResults is zero: enough that the right one is almost
// always there, few enough that the choice stays easy.
const DefaultSearchResults = 8

const (
	searchNext     = `{"help":"VERB"} gives a verb's schema and fingerprint; {"help":true} lists the catalog`
	searchNoneNext = `no verb matched these words; try other words, or {"help":true} to browse the catalog`
)

// searchIndex is the surface's ranking index and what it was built from:
// rebuilt when a verb's projection changes (a new binary, a new tree).
type searchIndex struct {
	// mu is held for reading while a search reads idx, and for writing
	// while idx is replaced and the old one closed.
	mu    sync.RWMutex
	key   []*projector.Command // each available verb's projected command, in order
	names []string
	lines []searchLine
	idx   *rank.Index
}

// searchLine is an indexed verb's catalog line.
type searchLine struct {
	text    string
	pending bool // the verb's command is not read yet: "VERB(…) — …"
}

// searchHelp answers a search.
func (s *Surface) searchHelp(ctx context.Context, rs *requestState, words string) (any, bool) {
	idx, lines, release, err := s.searchIndexFor(ctx, rs)
	if err != nil {
		return HelpError{&ErrorObject{Code: CodeInternalError, Message: err.Error()}}, false
	}
	n := s.opts.SearchResults
	if n == 0 {
		n = DefaultSearchResults
	}
	hits, err := idx.Search(words, n)
	release()
	if err != nil {
		return HelpError{&ErrorObject{Code: CodeInternalError, Message: err.Error()}}, false
	}
	out := &SearchResult{Search: words, Verbs: []string{}, Next: searchNext}
	if len(hits) == 0 {
		out.Next = searchNoneNext
	}
	budget := s.helpBudget()
	used := encodedLen(out) + len(pendingNext)
	pending := false
	for _, i := range hits {
		size := jsonStringLen(lines[i].text) + 1
		if used+size > budget {
			break
		}
		out.Verbs = append(out.Verbs, lines[i].text)
		used += size
		pending = pending || lines[i].pending
	}
	if pending {
		out.Next += pendingNext
	}
	return out, true
}

// searchIndexFor returns the index over the available verbs as they are
// projected now, building it on first use and again when any projection
// changed, and each indexed verb's catalog line. The caller searches, then
// calls release (the index stays open until then).
func (s *Surface) searchIndexFor(ctx context.Context, rs *requestState) (*rank.Index, []searchLine, func(), error) {
	var verbs []offeredVerb
	var key []*projector.Command
	var names []string
	for _, v := range s.reg.snapshot() {
		p := s.project(ctx, rs, v)
		cmd := p.cmd
		if p.unread != nil {
			cmd = p.unread // found by its name and summary until it is read
		} else if !p.ok() {
			continue
		}
		verbs = append(verbs, offeredVerb{v, p})
		key = append(key, cmd)
		names = append(names, v.Name)
	}
	si := &s.search
	current := func() bool { return si.idx != nil && slices.Equal(si.key, key) && slices.Equal(si.names, names) }
	for {
		si.mu.RLock()
		if current() {
			return si.idx, si.lines, si.mu.RUnlock, nil
		}
		si.mu.RUnlock()
		if err := si.rebuild(s, verbs, key, names, current); err != nil {
			return nil, nil, nil, err
		}
	}
}

// rebuild replaces the index with one over verbs, unless another request
// built it meanwhile (current reports so).
func (si *searchIndex) rebuild(s *Surface, verbs []offeredVerb, key []*projector.Command, names []string, current func() bool) error {
	si.mu.Lock()
	defer si.mu.Unlock()
	if current() {
		return nil
	}
	docs := make([]rank.Doc, len(verbs))
	lines := make([]searchLine, len(verbs))
	for i, o := range verbs {
		summary := s.summary(o.v, o.p)
		cmd := o.p.cmd
		if o.p.unread != nil {
			cmd = o.p.unread
		}
		docs[i] = searchDoc(o.v, summary, cmd)
		lines[i] = searchLine{text: catalogLine(o.v, o.p, summary), pending: o.p.unread != nil}
	}
	idx, err := rank.New(docs)
	if err != nil {
		return fmt.Errorf("verbsurface: the search index: %w", err)
	}
	if si.idx != nil {
		_ = si.idx.Close() // no search holds it: they hold the read lock
	}
	si.key, si.names, si.lines, si.idx = key, names, lines, idx
	return nil
}

// offeredVerb is a verb the surface offers (or will, once its command is
// read), with its projection.
type offeredVerb struct {
	v *Verb
	p *projection
}

// searchDoc is what the ranking reads of one verb.
func searchDoc(v *Verb, summary string, cmd *projector.Command) rank.Doc {
	d := rank.Doc{Name: v.Name, Summary: summary}
	for _, p := range cmd.Params {
		d.Params = append(d.Params, p.Name+" "+p.Help)
	}
	return d
}
