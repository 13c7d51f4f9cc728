package wait

// Result is what one [Wait] call learned. It is also the JSON shape of the
// job.wait verb's data: every list is present (never null), every entry has
// the same keys.
type Result struct {
	// Entries has one entry per requested id, in input order; an id
	// requested twice has two (identical) entries.
	Entries []Entry `json:"entries"`

	// AllTerminal is true when every requested id was observed without
	// error and is terminal. An id that could not be observed is not
	// terminal, so any errored id makes it false: "all terminal" must never
	// hide an id the caller may have mistyped. A caller deciding whether to
	// wait again should look at Pending (see the package example), which
	// errored ids never enter.
	AllTerminal bool `json:"all_terminal"`

	// TimedOut is true when the window ended with ids still pending (a
	// snapshot that saw a pending id counts). Expiry is not an error.
	TimedOut bool `json:"timed_out"`

	// The non-terminal classes, as distinct full ids in input order (see
	// [Classify]); two prefixes of one record count once.
	Pending           []string `json:"pending"`
	StoppedWithoutEnd []string `json:"stopped_without_end"`
	UnresolvedSpawn   []string `json:"unresolved_spawn"`

	// UnresolvedSpawnAgeSeconds is the preparing threshold in effect.
	UnresolvedSpawnAgeSeconds float64 `json:"unresolved_spawn_age_seconds"`

	// The effective bounds, after defaults and clamping.
	MaxWaitSeconds      float64 `json:"max_wait_seconds"`
	PollIntervalSeconds float64 `json:"poll_interval_seconds"`
}

// Entry is one requested id as last observed. Error is null unless the id
// could not be observed, in which case every other field is zero and the
// outcome is none. ID is the record's full id whenever the authority
// resolved one, so an entry and every other result name a run alike;
// Requested is the id as the caller gave it, present only when it differs
// (a prefix).
type Entry struct {
	ID               string   `json:"id"`
	Requested        string   `json:"requested,omitempty"`
	Kind             string   `json:"kind"`
	Label            string   `json:"label"`
	Status           string   `json:"status"`
	Terminal         bool     `json:"terminal"`
	Outcome          Outcome  `json:"outcome"`
	ReasonCode       string   `json:"reason_code"`
	PossiblyOrphaned bool     `json:"possibly_orphaned"`
	Error            *IDError `json:"error"` // deliberately no omitempty: always present, null when observed
}

// entryOf builds the entry for requested id from its observation.
func entryOf(id string, o Observation, outcomes OutcomeTable) Entry {
	if o.Error != nil {
		e := *o.Error // a copy, so the result never aliases the observer's memory
		return Entry{ID: id, Outcome: OutcomeNone, Error: &e}
	}
	full, requested := id, ""
	if o.RecordID != "" && o.RecordID != id {
		full, requested = o.RecordID, id
	}
	return Entry{
		ID:               full,
		Requested:        requested,
		Kind:             o.Kind,
		Label:            o.Label,
		Status:           o.Status,
		Terminal:         o.Terminal,
		Outcome:          outcomes.Outcome(o),
		ReasonCode:       o.ReasonCode,
		PossiblyOrphaned: o.PossiblyOrphaned,
	}
}
