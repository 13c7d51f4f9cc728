// Package rank finds the verbs that best match a task phrase. It indexes
// each verb's name, summary and parameters in an in-memory full-text
// index (bleve) and ranks them with BM25, the ranking function of the
// field, over English-analysed text (lower case, stop words dropped,
// Porter stems), so "listing containers" finds a verb named
// container.list summarised "List containers".
package rank

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Doc is one verb as the index sees it.
type Doc struct {
	// Name is the verb ("container.list"); its segments are indexed as
	// words.
	Name string
	// Summary is the verb's one-line summary.
	Summary string
	// Params are the verb's parameter names and their help, one entry
	// each.
	Params []string
}

// Field weights: a word of the verb's own name (or the everyday word for
// it) says most about what it does, its summary next, its parameters
// least (a parameter named "server" is on many verbs that do not act on
// servers). Chosen on testdata/search/phrases.tsv, then checked once on
// heldout.tsv (see the search figure in docs/figures.md).
const (
	nameBoost    = 3.0
	akaBoost     = 3.0
	summaryBoost = 2.0
	paramsBoost  = 0.25
)

// Index ranks a fixed set of docs. It is safe for concurrent use.
type Index struct {
	idx bleve.Index
	n   int
}

type indexed struct {
	Name    string `json:"name"`
	Aka     string `json:"aka"`
	Summary string `json:"summary"`
	Params  string `json:"params"`
}

// New indexes docs in memory.
func New(docs []Doc) (*Index, error) {
	m := bleve.NewIndexMapping()
	m.ScoringModel = "bm25"
	m.DefaultAnalyzer = en.AnalyzerName
	dm := bleve.NewDocumentStaticMapping()
	for _, f := range []string{"name", "aka", "summary", "params"} {
		fm := mapping.NewTextFieldMapping()
		fm.Analyzer = en.AnalyzerName
		fm.Store = false
		fm.IncludeInAll = false
		fm.IncludeTermVectors = false
		dm.AddFieldMappingsAt(f, fm)
	}
	m.DefaultMapping = dm
	m.StoreDynamic = false
	m.IndexDynamic = false
	idx, err := bleve.NewMemOnly(m)
	if err != nil {
		return nil, fmt.Errorf("rank: a new index: %w", err)
	}
	b := idx.NewBatch()
	for i, d := range docs {
		if err := b.Index(fmt.Sprintf("%08d", i), indexed{Name: words(d.Name), Aka: akaWords(d.Name), Summary: d.Summary, Params: words(strings.Join(d.Params, " \n "))}); err != nil {
			return nil, fmt.Errorf("rank: indexing %q: %w", d.Name, err)
		}
	}
	if err := idx.Batch(b); err != nil {
		return nil, fmt.Errorf("rank: indexing %d verbs: %w", len(docs), err)
	}
	return &Index{idx: idx, n: len(docs)}, nil
}

// words turns a verb or parameter name into words: "image.prune_all"
// reads "image prune all".
func words(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '.', '_', '-', '/', ':':
			return ' '
		}
		return r
	}, s)
}

// akaWords are the everyday words for the command words of a verb's name:
// commands are named tersely ("rmi", "ps", "poweroff", "describe") and
// tasks are asked for plainly ("delete an image", "turn off a server",
// "show the details"). They are a field of their own, so a name's own
// words keep their weight (BM25 discounts a longer field).
func akaWords(name string) string {
	var b strings.Builder
	for _, w := range strings.Fields(words(name)) {
		if more, ok := commandWords[strings.ToLower(w)]; ok {
			b.WriteString(more)
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// commandWords maps the words command-line programs name their commands
// with to the everyday words of the same action: the conventions of Unix
// tools, container and cloud CLIs, and version control. It says what a
// command word means, never which command a task needs; every program's
// own summaries are indexed beside it.
var commandWords = func() map[string]string {
	groups := [][]string{
		{"rm", "rmi", "remove", "delete", "del", "destroy", "erase", "purge", "drop"},
		{"ls", "list", "ps", "enumerate"},
		{"describe", "inspect", "show", "view", "get", "info", "display", "details", "status", "read"},
		{"create", "new", "add", "make", "mk", "init", "reserve", "allocate"},
		{"start", "poweron", "boot", "up", "launch", "resume", "unpause", "run", "trigger"},
		{"stop", "poweroff", "halt", "shutdown", "down", "kill", "pause", "terminate"},
		{"push", "upload", "publish"},
		{"pull", "download", "fetch"},
		{"login", "signin", "authenticate", "log", "sign"},
		{"logout", "signout"},
		{"cp", "copy"},
		{"mv", "move", "rename"},
		{"exec", "execute", "command"},
		{"stats", "statistics", "usage", "metrics", "resources", "cpu", "memory"},
		{"top", "processes"},
		{"df", "disk", "space", "usage"},
		{"prune", "clean", "cleanup", "unused", "free", "gc"},
		{"edit", "update", "modify", "change", "set"},
		{"resize", "scale", "grow", "shrink", "size", "change-type"},
		{"diff", "changes", "difference", "compare"},
		{"logs", "log", "output"},
		{"snapshot", "image", "backup", "save"},
		{"attach", "connect", "assign", "apply"},
		{"detach", "disconnect", "unassign"},
		{"clone", "copy", "fork"},
		{"merge", "combine"},
		{"watch", "follow", "wait"},
		{"rerun", "retry", "restart"},
		{"comment", "reply", "note"},
		{"version", "release"},
		{"search", "find", "query", "lookup"},
	}
	m := map[string]string{}
	for _, g := range groups {
		for _, w := range g {
			var others []string
			for _, o := range g {
				if o != w {
					others = append(others, o)
				}
			}
			if m[w] != "" {
				m[w] += " "
			}
			m[w] += strings.Join(others, " ")
		}
	}
	return m
}()

// phrasalVerbs rewrites the two-word English verbs of tasks into the one
// word command names use ("turn off" is poweroff, "log in" is login),
// which the analyzer would otherwise cut to a stop word and a stem.
var phrasalVerbs = strings.NewReplacer(
	" turn off ", " poweroff stop ", " turn on ", " poweron start ",
	" shut down ", " shutdown ", " power off ", " poweroff ", " power on ", " poweron ",
	" log in ", " login ", " logged in ", " login status ", " sign in ", " login ",
	" log out ", " logout ", " sign out ", " logout ",
	" clean up ", " cleanup prune ", " set up ", " setup ",
	" look up ", " lookup ", " back up ", " backup ",
)

// Search returns the indexes (into the docs given to New) of at most n
// docs that match the phrase, best first; ties keep the docs' order. A
// phrase with no indexed word matches nothing.
func (x *Index) Search(phrase string, n int) ([]int, error) {
	if n <= 0 || x.n == 0 {
		return nil, nil
	}
	phrase = phrasalVerbs.Replace(" " + strings.ToLower(words(phrase)) + " ")
	var clauses []query.Query
	for _, f := range []struct {
		field string
		boost float64
	}{{"name", nameBoost}, {"aka", akaBoost}, {"summary", summaryBoost}, {"params", paramsBoost}} {
		q := bleve.NewMatchQuery(phrase)
		q.SetField(f.field)
		q.Analyzer = en.AnalyzerName
		q.SetBoost(f.boost)
		clauses = append(clauses, q)
	}
	req := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(clauses...), n, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	res, err := x.idx.Search(req)
	if err != nil {
		return nil, fmt.Errorf("rank: searching %q: %w", phrase, err)
	}
	out := make([]int, 0, len(res.Hits))
	for _, h := range res.Hits {
		i, err := strconv.Atoi(h.ID)
		if err != nil || i < 0 || i >= x.n {
			return nil, errors.New("rank: the index returned an unknown document " + strconv.Quote(h.ID))
		}
		out = append(out, i)
	}
	return out, nil
}

// Close releases the index.
func (x *Index) Close() error { return x.idx.Close() }
