package store

import (
	"context"
	"time"
)

// KindStats aggregates the records of one kind.
type KindStats struct {
	Kind     Kind             `json:"kind"`
	Total    int              `json:"total"`
	ByStatus map[Status]int   `json:"by_status"`
	Ended    int              `json:"ended"`            // records with both a start and an end
	Duration *DurationSummary `json:"duration_seconds"` // over Ended; null when none
}

// DurationSummary summarises run durations (start to end), in seconds.
type DurationSummary struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	Max  float64 `json:"max"`
}

// Stats counts records by kind and status and summarises durations.
func (s *Store) Stats(ctx context.Context) ([]KindStats, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT kind, status, count(*),
		sum(CASE WHEN started_at > 0 AND ended_at > 0 THEN 1 ELSE 0 END),
		min(CASE WHEN started_at > 0 AND ended_at > 0 THEN ended_at - started_at END),
		sum(CASE WHEN started_at > 0 AND ended_at > 0 THEN ended_at - started_at ELSE 0 END),
		max(CASE WHEN started_at > 0 AND ended_at > 0 THEN ended_at - started_at END)
		FROM records GROUP BY kind, status ORDER BY kind, status`)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	type acc struct {
		KindStats
		min, sum, max int64
	}
	byKind := map[Kind]*acc{}
	for rows.Next() {
		var kind, status string
		var n, ended int
		var mn, mx *int64
		var sum int64
		if err := rows.Scan(&kind, &status, &n, &ended, &mn, &sum, &mx); err != nil {
			return nil, s.wrap(err)
		}
		a := byKind[Kind(kind)]
		if a == nil {
			a = &acc{KindStats: KindStats{Kind: Kind(kind), ByStatus: map[Status]int{}}}
			byKind[Kind(kind)] = a
		}
		a.Total += n
		a.ByStatus[Status(status)] = n
		if ended > 0 {
			if a.Ended == 0 || *mn < a.min {
				a.min = *mn
			}
			if *mx > a.max {
				a.max = *mx
			}
			a.Ended += ended
			a.sum += sum
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap(err)
	}
	out := []KindStats{}
	for _, k := range Kinds {
		a := byKind[k]
		if a == nil {
			out = append(out, KindStats{Kind: k, ByStatus: map[Status]int{}})
			continue
		}
		if a.Ended > 0 {
			sec := func(n int64) float64 { return time.Duration(n).Seconds() }
			a.Duration = &DurationSummary{Min: sec(a.min), Mean: sec(a.sum / int64(a.Ended)), Max: sec(a.max)}
		}
		out = append(out, a.KindStats)
	}
	return out, nil
}

// Counts returns the number of rows of each table (state list, doctor).
func (s *Store) Counts(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	for _, t := range []string{"records", "transitions", "deliveries", "schedules", "teams", "messages", "trust"} {
		var n int
		if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM "+t).Scan(&n); err != nil {
			return nil, s.wrap(err)
		}
		out[t] = n
	}
	return out, nil
}
