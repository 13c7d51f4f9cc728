package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Notify is a record's terminal-notify setting: where to announce the
// record's end. It is fixed when the record is created and never changes;
// the store only keeps it and, when the record ends, records one pending
// [Delivery] per channel. Choosing and checking a setting (loopback URLs
// only, a command found at submit) is the notify package's job.
type Notify struct {
	// URL receives an HTTP POST of the terminal record ("": none).
	URL string
	// Command is the argv of a command run with no shell, the terminal
	// record on its stdin (empty: none). Command[0] is an absolute path.
	Command []string
	// Timeout bounds each delivery attempt.
	Timeout time.Duration
	// MaxAttempts bounds the attempts of each channel (at least 1).
	MaxAttempts int
}

// Channels of a delivery.
const (
	ChannelURL     = "url"
	ChannelCommand = "command"
)

// Empty reports whether n announces nothing.
func (n Notify) Empty() bool { return n.URL == "" && len(n.Command) == 0 }

// Channels lists the channels n delivers on, in a fixed order.
func (n Notify) Channels() []string {
	var out []string
	if n.URL != "" {
		out = append(out, ChannelURL)
	}
	if len(n.Command) > 0 {
		out = append(out, ChannelCommand)
	}
	return out
}

// NotifyJSON is the machine-result view of a setting and its deliveries,
// the "notify" member of a `job status` record. Every key is always
// present.
type NotifyJSON struct {
	URL         *string  `json:"url"`
	Command     []string `json:"command"`      // null when none
	Timeout     string   `json:"timeout"`      // per attempt, a Go duration
	MaxAttempts int      `json:"max_attempts"` // per channel
	// Deliveries are empty until the record ends; then one per channel.
	Deliveries []DeliveryJSON `json:"deliveries"`
}

// notifyColumn is the stored form of a setting (records.notify).
type notifyColumn struct {
	URL         string   `json:"url,omitempty"`
	Command     []string `json:"command,omitempty"`
	Timeout     string   `json:"timeout"`
	MaxAttempts int      `json:"max_attempts"`
}

func (n Notify) encode() (string, error) {
	if n.Empty() {
		return "", nil
	}
	if n.Timeout <= 0 || n.MaxAttempts < 1 {
		return "", fmt.Errorf("notify setting needs a positive timeout and at least one attempt (have %s, %d)", n.Timeout, n.MaxAttempts)
	}
	b, err := json.Marshal(notifyColumn{URL: n.URL, Command: n.Command, Timeout: n.Timeout.String(), MaxAttempts: n.MaxAttempts})
	return string(b), err
}

func parseNotify(s string) (Notify, error) {
	if s == "" {
		return Notify{}, nil
	}
	var c notifyColumn
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		return Notify{}, err
	}
	d, err := time.ParseDuration(c.Timeout)
	if err != nil {
		return Notify{}, err
	}
	return Notify{URL: c.URL, Command: c.Command, Timeout: d, MaxAttempts: c.MaxAttempts}, nil
}

// DeliveryState is where a delivery stands. The states and their edges:
//
//	pending    → attempting          a claimant took it (attempts + 1)
//	attempting → delivered           the attempt succeeded (final)
//	attempting → retrying            it failed and attempts remain
//	attempting → failed              it failed and none remain (final)
//	retrying   → attempting          its retry time came (attempts + 1)
//	attempting → attempting | failed its claimant vanished (lease expired):
//	                                 a new claimant retries, or it fails
//
// Every edge is one conditional UPDATE (a compare-and-set on the state, the
// attempt number and the claimant), so of any number of claimants exactly
// one holds an attempt. Delivered and failed never change (a trigger
// refuses it).
type DeliveryState string

const (
	DeliveryPending    DeliveryState = "pending"
	DeliveryAttempting DeliveryState = "attempting"
	DeliveryRetrying   DeliveryState = "retrying"
	DeliveryDelivered  DeliveryState = "delivered"
	DeliveryFailed     DeliveryState = "failed"
)

// DeliveryStates lists every state, open ones first.
var DeliveryStates = []DeliveryState{DeliveryPending, DeliveryAttempting, DeliveryRetrying, DeliveryDelivered, DeliveryFailed}

// Final reports whether d is delivered or failed.
func (d DeliveryState) Final() bool { return d == DeliveryDelivered || d == DeliveryFailed }

// Delivery is the announcement of one record's end on one channel.
type Delivery struct {
	RecordID string
	Channel  string
	// TransitionSeq is the audit row (transitions.seq) of the terminal
	// transition this delivery announces; RecordVersion its version.
	TransitionSeq int64
	RecordVersion int64
	State         DeliveryState
	Attempts      int // attempts begun (the current one included)
	MaxAttempts   int
	// LastError is why the most recent failed attempt failed ("" if none
	// failed); it is kept when a later attempt delivers.
	LastError   string
	Claimant    string    // who holds or last held an attempt (pid:start_time)
	CreatedAt   time.Time // with the transition, in its transaction
	AttemptedAt time.Time // start of the latest attempt
	NextAt      time.Time // retrying: not before
	LeaseUntil  time.Time // attempting: the claim lapses after
	FinishedAt  time.Time // delivered or failed
}

// DeliveryJSON is the machine-result view of a delivery.
type DeliveryJSON struct {
	Channel       string        `json:"channel"`
	State         DeliveryState `json:"state"`
	Attempts      int           `json:"attempts"`
	MaxAttempts   int           `json:"max_attempts"`
	LastError     *string       `json:"last_error"`
	TransitionSeq int64         `json:"transition_seq"`
	RecordVersion int64         `json:"record_version"`
	CreatedAt     time.Time     `json:"created_at"`
	AttemptedAt   *time.Time    `json:"attempted_at"`
	NextAttemptAt *time.Time    `json:"next_attempt_at"`
	FinishedAt    *time.Time    `json:"finished_at"`
}

// JSON returns the machine-result view of d.
func (d Delivery) JSON() DeliveryJSON {
	j := DeliveryJSON{Channel: d.Channel, State: d.State, Attempts: d.Attempts, MaxAttempts: d.MaxAttempts,
		TransitionSeq: d.TransitionSeq, RecordVersion: d.RecordVersion, CreatedAt: d.CreatedAt.UTC(),
		AttemptedAt: timePtr(d.AttemptedAt), FinishedAt: timePtr(d.FinishedAt)}
	if d.LastError != "" {
		e := d.LastError
		j.LastError = &e
	}
	if d.State == DeliveryRetrying {
		j.NextAttemptAt = timePtr(d.NextAt)
	}
	return j
}

// ErrClaimLost: the attempt being recorded is no longer held by its
// claimant (its lease lapsed and another claimant took the delivery over).
// Its outcome is discarded.
var ErrClaimLost = errors.New("the delivery attempt is no longer held by this claimant")
