// Package quota holds the state home's bounds on stored and written work:
// how many schedules a home keeps, how many bytes the prompts of one run
// may take once rendered, how many bytes the run data of the whole home
// (everything under runs/) may take, and how many bytes its team boards'
// messages may take together. Each has a default; the
// operator changes it in the limits section of <home>/config.yaml:
//
//	limits:
//	  schedules: 32         # schedules a home keeps (-1: no cap)
//	  run_bytes: 16MiB      # rendered prompts of one run (-1: no cap)
//	  home_bytes: 1GiB      # run data under runs/ (-1: no cap)
//	  board_bytes: 16MiB    # messages on every team board (-1: no cap)
//
// A bound that is reached is a limit_reached refusal naming the bound, its
// value, what is used and how the operator raises it; nothing is written.
// Nothing is expired behind the operator's back: a full home refuses new
// runs until runs are removed (or the bound raised). The home's run data
// is measured by walking runs/ at most every [UsageTTL] (the measure is
// kept in runs/.usage, each admitted run added to it), so a submit does
// not pay a walk of every run; what running runs write between two walks
// is seen at the next one.
package quota
