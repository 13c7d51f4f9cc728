//go:build unix

// Package notify is limcp's terminal notify: when a run ends, however it
// ends, its end is announced once, after it is durably recorded, to a
// command and/or a loopback URL — without ever delaying or altering the
// end itself. A notification is a prompt to read state, not proof of it:
// `job status` stays the authority.
//
// # The setting
//
// A run's setting is fixed when it is submitted ([Resolve]), per channel:
// the URL from --notify-url, else $LIMCP_NOTIFY_URL, else config.yaml's
// notify.url; the command from --notify-command (repeated, one argv word
// each), else config.yaml's notify.command. The delivery policy (timeout
// per attempt, attempts per channel) comes from config.yaml. A URL must be
// loopback ([CheckURL]); a command is run with no shell, its argv[0]
// resolved to an absolute path at submit. The parts of a run (a play's
// session, a session's invocations) carry the run's setting, so each
// entity's end is announced. A show has none.
//
// The flags are privileged (see [FlagURL]): the MCP server excludes them
// from its surface by name and attaches its own URL through [EnvURL].
//
// # Exactly once, after the commit
//
// The store's one transition function writes, in the transaction of a
// terminal transition, one pending delivery per channel of the record's
// setting (a primary key of record and channel: a second end is impossible
// by the terminal floor, a second delivery by the key). So every path that
// ends a run — the worker's normal end or timeout, a kill and each entity
// it reaps, the fenced reap of `job observe` — announces it exactly once,
// and nothing is announced that did not commit.
//
// After the commit, the store's terminal hook ([Hook]) starts a delivery
// process ([Launch]: the same binary, hidden command __notify, a new
// session) and returns: the command that ended the run is not delayed.
// The delivery process ([Deliverer]) claims each channel's attempt by
// compare-and-set, so two delivery processes never both hold an attempt;
// delivers; and records the outcome on the delivery row:
//
//	pending → attempting → delivered
//	                     → retrying → attempting → ... (attempts bounded)
//	                     → failed (the last attempt's reason)
//
// Each attempt is bounded by the setting's timeout: an HTTP POST is
// cancelled; a command's whole process group is killed. A delivery whose
// process never started or died is picked up by [Sweep] (called from
// `job observe`).
//
// # The body
//
// The POST body and the command's stdin are the same JSON object: the
// record as `job status --json` prints it ([Body]), terminal, with its
// children and its notify setting and deliveries (this one attempting).
// The record's id and version identify the transition announced. The
// command also gets LIMCP_NOTIFY_ID, LIMCP_NOTIFY_STATUS,
// LIMCP_NOTIFY_ATTEMPT and LIMCP_HOME in its environment and runs in the
// state home.
package notify
