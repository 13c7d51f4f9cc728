package verbsurface

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// One bound for every answer: a failure is measured and capped like a
// success, because a caller chooses its failures as easily as its
// successes (a program that prints a megabyte and exits 1; a body of
// 800,000 bad file names; one wrong choice of an option with 4,000
// choices). The rules, in the order they apply:
//
//  1. Always: an error about an op's arguments lists at most
//     maxListedProblems problems, then one more_problems problem counting
//     the rest; its schema is left out past maxErrorSchemaBytes (help_call
//     fetches it, cut names its size).
//  2. As each op finishes, its result is measured against what the
//     response has left. A failure that does not fit is compacted (each
//     quote cut to an excerpt, see compactError); a success, or a
//     compacted failure, that still does not fit becomes
//     response_too_large, a refusal of a few hundred bytes: the one excess
//     the cap allows.
//  3. Once every op ran, results are kept in this order while they fit: a
//     spawn's result first (its run's id exists nowhere else), then the
//     rest in op order. A spawn that finished with nothing left over thus
//     displaces the latest results kept before it.
const (
	// maxListedProblems is how many problems an invalid_args lists.
	maxListedProblems = 64
	// maxErrorSchemaBytes is the largest schema an error repeats.
	maxErrorSchemaBytes = 16 << 10
	// quoteBytes is what a compacted failure quotes of any one member.
	quoteBytes = 1 << 10
	// compactProblems is how many problems a compacted failure lists.
	compactProblems = 8
)

// RuleMoreProblems is the last problem of a list cut at its bound: its
// reason counts the problems not listed.
const RuleMoreProblems = "more_problems"

// boundProblems lists at most max problems, the last of them counting
// the rest.
func boundProblems(problems []Problem, max int) []Problem {
	if len(problems) <= max {
		return problems
	}
	more := problemCount(problems) - (max - 1)
	out := append(problems[:max-1:max-1], Problem{Rule: RuleMoreProblems, more: more,
		Reason: fmt.Sprintf("and %d more problems, not listed: fix these and resend to see the rest", more)})
	return out
}

// problemCount is how many problems a list stands for, those a last
// more_problems counts included.
func problemCount(problems []Problem) int {
	n := len(problems)
	if n > 0 && problems[n-1].Rule == RuleMoreProblems {
		n += problems[n-1].more - 1
	}
	return n
}

// boundSchema leaves eo's schema out when it passes maxErrorSchemaBytes,
// saying so in cut: help_call fetches it.
func boundSchema(eo *ErrorObject) {
	if eo.Schema == nil {
		return
	}
	b, err := json.Marshal(eo.Schema)
	if err != nil || len(b) <= maxErrorSchemaBytes {
		return
	}
	eo.Schema = nil
	eo.cut("schema", len(b))
}

func (eo *ErrorObject) cut(member string, size int) {
	if eo.Cut == nil {
		eo.Cut = map[string]int{}
	}
	eo.Cut[member] = size
}

// compactError returns eo with every quote bounded: the message and each
// string of details at most quoteBytes (stderr_tail keeps its end, the
// rest their start), any other detail whose JSON passes quoteBytes
// replaced by the start of that JSON as a string, at most compactProblems
// problems each with a short reason, no schema. cut names each member
// shortened and its size before (for problems, their count). Code,
// help_call, fingerprint, limit and rule are kept: the caller still knows
// what failed and how to recover.
func compactError(eo *ErrorObject) *ErrorObject {
	c := *eo
	c.Cut = nil
	for k, v := range eo.Cut {
		c.cut(k, v)
	}
	if len(c.Message) > quoteBytes {
		c.cut("message", len(c.Message))
		c.Message = head(c.Message, quoteBytes)
	}
	if c.Schema != nil {
		if b, err := json.Marshal(c.Schema); err == nil {
			c.cut("schema", len(b))
		}
		c.Schema = nil
	}
	if len(c.Problems) > compactProblems {
		c.cut("problems", problemCount(c.Problems))
		c.Problems = boundProblems(c.Problems, compactProblems)
	}
	if len(c.Problems) > 0 {
		ps := make([]Problem, len(c.Problems))
		for i, p := range c.Problems {
			if len(p.Reason) > quoteBytes/4 {
				p.Reason = head(p.Reason, quoteBytes/4)
			}
			ps[i] = p
		}
		c.Problems = ps
	}
	if c.Details != nil {
		d := make(map[string]any, len(c.Details))
		for k, v := range c.Details {
			d[k] = v
			s, isString := v.(string)
			if isString && len(s) <= quoteBytes {
				continue
			}
			b, err := json.Marshal(v)
			if err != nil || len(b) <= quoteBytes {
				continue
			}
			c.cut("details."+k, len(b))
			switch {
			case isString && k == "stderr_tail":
				d[k] = tail(s, quoteBytes)
			case isString:
				d[k] = head(s, quoteBytes)
			default:
				d[k] = head(string(b), quoteBytes)
			}
		}
		c.Details = d
	}
	return &c
}

// head is the start of s, at most n bytes cut on a rune boundary, and "…"
// when cut.
func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// tail is the end of s, at most n bytes cut on a rune boundary, after "…"
// when cut.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return "…" + s[i:]
}

// responseBudget applies rules 2 and 3 to a request's results.
type responseBudget struct {
	s     *Surface
	limit int // Options.MaxResponseBytes; negative: no cap
	used  int // bytes the results kept so far take, responseOverhead included
}

func (s *Surface) newResponseBudget() *responseBudget {
	return &responseBudget{s: s, limit: s.opts.MaxResponseBytes, used: responseOverhead}
}

// add fits r (rule 2). A spawn's success is
// not cut here, whatever room is left: finish decides what makes room
// for it.
func (b *responseBudget) add(r *OpResult) {
	if b.limit < 0 {
		return
	}
	if r.OK && b.s.startsRuns(r) {
		if size, err := encodedSize(r); err == nil {
			b.used += size + 1
		}
		return
	}
	b.used += b.fit(r, b.limit-b.used) + 1
}

// fit shrinks r until it takes at most room bytes, when it can, and
// returns its size: a failure is compacted, then anything still too large
// becomes response_too_large.
func (b *responseBudget) fit(r *OpResult, room int) int {
	size, err := encodedSize(r)
	if err != nil {
		return 0 // Response.JSON reports an unencodable result as it is
	}
	if size <= room {
		return size
	}
	if !r.OK && r.Error != nil && r.Error.Code != CodeResponseTooLarge {
		r.Error = compactError(r.Error)
		if size2, err := encodedSize(r); err == nil && size2 <= room {
			return size2
		}
	}
	b.tooLarge(r, size)
	size, _ = encodedSize(r)
	return size
}

func (b *responseBudget) tooLarge(r *OpResult, size int) {
	used := b.used
	if r.OK || r.Error == nil {
		r.OK, r.Error = false, responseTooLarge(r.Op, size, used, b.limit)
	} else if r.Error.Code != CodeResponseTooLarge {
		eo := responseTooLarge(r.Op, size, used, b.limit)
		eo.Message = fmt.Sprintf("the error of %s (%d bytes) would take the response past its cap of %d bytes (%d already used); "+
			"details.code is its code: send the op in a request of its own to see the rest", short(r.Op), size, b.limit, used)
		eo.Details = map[string]any{"code": r.Error.Code}
		r.Error = eo
	}
	r.Result, r.Info = nil, nil
}

// finish applies rule 3 once every op ran: spawn results claim their room
// first, then the rest in op order, each cut as add would cut it.
func (b *responseBudget) finish(results []*OpResult) {
	if b.limit < 0 || b.used <= b.limit {
		return
	}
	first := func(r *OpResult) bool { return r.OK && b.s.startsRuns(r) }
	order := make([]*OpResult, 0, len(results))
	for _, r := range results {
		if first(r) {
			order = append(order, r)
		}
	}
	for _, r := range results {
		if !first(r) {
			order = append(order, r)
		}
	}
	b.used = responseOverhead
	for _, r := range order {
		b.used += b.fit(r, b.limit-b.used) + 1
	}
}

// startsRuns reports whether r is the result of an op that starts runs: a
// spawn verb's, or one marked Verb.Spawns.
func (s *Surface) startsRuns(r *OpResult) bool {
	if r.Class == ClassSpawn {
		return true
	}
	v := s.reg.lookup(r.Op)
	return v != nil && v.Spawns
}
