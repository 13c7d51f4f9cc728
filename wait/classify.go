package wait

import (
	"fmt"
	"time"
)

// Class is where one observed id stands: exactly one of the values in
// [Classes].
type Class string

// The classes of the partition. Every Class constant is declared here, with
// the explicit type Class, and listed in [Classes] in the same change that
// teaches [Classify] to produce it (a test parses this file to hold both to
// that).
const (
	// ClassTerminal: the lifecycle store records the run as finished.
	ClassTerminal Class = "terminal"
	// ClassPending: waiting can still change the answer, because something
	// shows the run progressing (a live process, or a young spawn).
	ClassPending Class = "pending"
	// ClassStoppedWithoutEnd: the run stopped, or cannot be shown to be
	// progressing, and is not recorded terminal. Waiting is not expected to
	// change this on its own.
	ClassStoppedWithoutEnd Class = "stopped_without_end"
	// ClassUnresolvedSpawn: the record is still preparing past the age
	// threshold; there is no process to prove absent.
	ClassUnresolvedSpawn Class = "unresolved_spawn"
)

// Classes lists every value [Classify] can return, in the order the partition
// reports them. A new classification is added here at the same time as it is
// added to Classify; consumers that must handle every class (an MCP binding
// rendering the lists, a caller's loop) iterate over this list.
//
// Classes returns a fresh slice each call, so no caller can change the list
// another sees.
func Classes() []Class {
	return []Class{ClassTerminal, ClassPending, ClassStoppedWithoutEnd, ClassUnresolvedSpawn}
}

// Classify reports the class of one observation at the moment now, applying
// the following rules in the given order; the first that matches decides:
//
//   - If the record is terminal (o.Terminal), the class is [ClassTerminal].
//     The authority's terminal flag decides, not the status name: the outcome
//     table only names outcomes (see [OutcomeTable]).
//
//   - If a conclusive finding could not be published (o.PublishFailed: the
//     process was found gone but the compare-and-set write recording it was
//     refused), the class is [ClassStoppedWithoutEnd], whatever the phase and
//     evidence say: the record is not going to move by itself.
//
//   - If the phase is started and the process is shown alive, the class is
//     [ClassPending].
//
//   - If the phase is started and the process is not shown alive, the class
//     is [ClassStoppedWithoutEnd]. This covers three cases. Process gone with
//     no end recorded: it stopped without an end. Process gone with an end
//     recorded while the status is not yet terminal: nothing shows it
//     progressing; if the transition is merely in flight, the one-poll floor
//     of [Wait] gives it an interval to land. Process evidence unknown: see
//     the note below.
//
//   - If the phase is preparing and the phase was entered less than
//     preparingThreshold before now, the class is [ClassPending]. A phase
//     entered in the future (clock skew) counts as entered now.
//
//   - If the phase is preparing otherwise (entered at or past the threshold,
//     or at an unrecorded zero time, or preparingThreshold <= 0), the class
//     is [ClassUnresolvedSpawn]. Process evidence is not consulted: a
//     preparing record has no process identity to check.
//
//   - If the phase is unrecorded (or any value this package does not know)
//     and the process is shown alive, the class is [ClassPending].
//
//   - Otherwise (no known phase, process not shown alive) the class is
//     [ClassStoppedWithoutEnd].
//
// Unknown evidence on a started record is [ClassStoppedWithoutEnd], not
// [ClassPending]. Pending is a promise that waiting can change the answer,
// and a caller loops on it; unknown evidence makes no such promise, since it
// can stay unknown forever (an identity that cannot be checked), and a
// caller looping on pending would then be stranded. Stopped-without-end does
// not claim the process is gone: nothing is reaped on unknown evidence (that
// is the lifecycle authority's job, and it only reaps on conclusive
// evidence), the entry still carries possibly_orphaned, and the caller can
// wait again or kill. The same reasoning puts a record with no phase and
// unknown evidence in the same class.
//
// Classify does not look at o.Error: an observation with an error has no
// class, and [Partition] leaves such ids out of every set. Classify is pure:
// it reads only its arguments.
func Classify(o Observation, now time.Time, preparingThreshold time.Duration) Class {
	if o.Terminal {
		return ClassTerminal
	}
	if o.PublishFailed {
		return ClassStoppedWithoutEnd
	}
	switch o.Phase {
	case PhaseStarted:
		if o.Process == EvidenceAlive {
			return ClassPending
		}
		return ClassStoppedWithoutEnd
	case PhasePreparing:
		if preparingYoung(o.PhaseEnteredAt, now, preparingThreshold) {
			return ClassPending
		}
		return ClassUnresolvedSpawn
	}
	if o.Process == EvidenceAlive {
		return ClassPending
	}
	return ClassStoppedWithoutEnd
}

// preparingYoung reports whether a preparing phase entered at entered is
// still younger than threshold at now. A zero entered time is not young: the
// store did not say when preparing began, so nothing shows the spawn is
// recent.
func preparingYoung(entered, now time.Time, threshold time.Duration) bool {
	if entered.IsZero() || threshold <= 0 {
		return false
	}
	age := now.Sub(entered)
	if age < 0 {
		age = 0
	}
	return age < threshold
}

// Sets is the partition of a set of observations: every distinct id observed
// without error is in exactly one of Terminal, Pending, StoppedWithoutEnd
// and UnresolvedSpawn; every id with an error is in Errored and in none of
// the four. Each list holds distinct ids in order of first appearance and is
// never nil (so it marshals as [] rather than null).
type Sets struct {
	Terminal          []string
	Pending           []string
	StoppedWithoutEnd []string
	UnresolvedSpawn   []string
	Errored           []string
}

// Of returns the list for class c, or nil for a value not in [Classes].
func (s *Sets) Of(c Class) []string {
	switch c {
	case ClassTerminal:
		return s.Terminal
	case ClassPending:
		return s.Pending
	case ClassStoppedWithoutEnd:
		return s.StoppedWithoutEnd
	case ClassUnresolvedSpawn:
		return s.UnresolvedSpawn
	}
	return nil
}

// add appends id to the list for c. A class with no list is a bug in this
// package (Classify returned a value missing from Classes), so it panics
// rather than drop the id from every set.
func (s *Sets) add(c Class, id string) {
	switch c {
	case ClassTerminal:
		s.Terminal = append(s.Terminal, id)
	case ClassPending:
		s.Pending = append(s.Pending, id)
	case ClassStoppedWithoutEnd:
		s.StoppedWithoutEnd = append(s.StoppedWithoutEnd, id)
	case ClassUnresolvedSpawn:
		s.UnresolvedSpawn = append(s.UnresolvedSpawn, id)
	default:
		panic(fmt.Sprintf("wait: id %q classified %q, which is not in Classes()", id, c))
	}
}

// settledButUnfinished reports whether any id is in a set that waiting is
// not expected to change yet that is not terminal: stopped without end,
// unresolved spawn, or errored. These are the ids the one-poll floor of
// [Wait] re-observes.
func (s *Sets) settledButUnfinished() bool {
	return len(s.StoppedWithoutEnd)+len(s.UnresolvedSpawn)+len(s.Errored) > 0
}

// Partition classifies every distinct id in obs with [Classify] and returns
// the sets. The rules, in order:
//
//   - An id with an error in any of its observations is errored: it goes to
//     Errored and to none of the four class sets.
//   - Otherwise the first observation of the id decides its class; later
//     observations of the same id are ignored. An observer reports one record
//     per id, so duplicates agree; if they do not, first-wins keeps the sets
//     disjoint.
//
// Partition is pure; its cost is one map insert and one Classify per
// observation.
func Partition(obs []Observation, now time.Time, preparingThreshold time.Duration) Sets {
	// first[j] is the index in obs of the j-th distinct id's first
	// observation; errored[j] says whether any observation of it erred.
	index := make(map[string]int, len(obs))
	first := make([]int, 0, len(obs))
	errored := make([]bool, 0, len(obs))
	for i := range obs {
		j, seen := index[obs[i].ID]
		if !seen {
			index[obs[i].ID] = len(first)
			first = append(first, i)
			errored = append(errored, obs[i].Error != nil)
			continue
		}
		if obs[i].Error != nil {
			errored[j] = true
		}
	}
	// Classify once, count, then fill lists of exact size: at 10,000 ids
	// this halves the cost of growing the lists by appending.
	classes := make([]Class, len(first))
	var nTerm, nPend, nStop, nSpawn, nErr int
	for j, i := range first {
		if errored[j] {
			nErr++
			continue
		}
		c := Classify(obs[i], now, preparingThreshold)
		classes[j] = c
		switch c {
		case ClassTerminal:
			nTerm++
		case ClassPending:
			nPend++
		case ClassStoppedWithoutEnd:
			nStop++
		case ClassUnresolvedSpawn:
			nSpawn++
		}
	}
	s := Sets{
		Terminal:          make([]string, 0, nTerm),
		Pending:           make([]string, 0, nPend),
		StoppedWithoutEnd: make([]string, 0, nStop),
		UnresolvedSpawn:   make([]string, 0, nSpawn),
		Errored:           make([]string, 0, nErr),
	}
	for j, i := range first {
		if errored[j] {
			s.Errored = append(s.Errored, obs[i].ID)
			continue
		}
		s.add(classes[j], obs[i].ID)
	}
	return s
}
