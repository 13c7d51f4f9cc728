package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Schedule is a stored cron entry: a limcp spawn command run when due.
type Schedule struct {
	Name    string   `json:"name"`
	Cron    string   `json:"cron"`
	Command []string `json:"command"` // argv after the program, e.g. ["agent","echo","hi"]
	// Cwd is the directory the command runs in when it names none (the
	// adder's working directory). It is not in the machine result: that
	// reaches MCP callers, and the directory is the server's, not theirs
	// (`limcp schedule show` prints it for a person).
	Cwd          string    `json:"-"`
	CreatedAt    time.Time `json:"created_at"`
	NextRunAt    time.Time `json:"next_run_at"`
	LastRunAt    time.Time `json:"last_run_at"`
	LastRecordID string    `json:"last_record_id"`
	LastError    string    `json:"last_error"`
	Version      int64     `json:"version"`
}

// Errors of schedules and teams.
var (
	ErrExists          = errors.New("already exists")
	ErrUnknownSchedule = errors.New("no such schedule")
	ErrUnknownTeam     = errors.New("no such team")
)

const scheduleColumns = "name, cron, command, created_at, next_run_at, last_run_at, last_record_id, last_error, version"

func scanSchedule(row scanner) (Schedule, error) {
	var sc Schedule
	var cmd string
	var created, next, last int64
	if err := row.Scan(&sc.Name, &sc.Cron, &cmd, &created, &next, &last, &sc.LastRecordID, &sc.LastError, &sc.Version); err != nil {
		return Schedule{}, err
	}
	if strings.HasPrefix(cmd, "{") {
		// With a directory: {"argv": [...], "cwd": DIR}.
		var c storedCommand
		if err := json.Unmarshal([]byte(cmd), &c); err != nil {
			return Schedule{}, fmt.Errorf("schedule %s: stored command is not a JSON object of argv and cwd: %w", sc.Name, err)
		}
		sc.Command, sc.Cwd = c.Argv, c.Cwd
	} else if err := json.Unmarshal([]byte(cmd), &sc.Command); err != nil {
		return Schedule{}, fmt.Errorf("schedule %s: stored command is not a JSON array: %w", sc.Name, err)
	}
	sc.CreatedAt, sc.NextRunAt, sc.LastRunAt = fromNanos(created), fromNanos(next), fromNanos(last)
	return sc, nil
}

// storedCommand is the command column of a schedule with a directory; one
// without is a bare JSON array (as every schedule was before).
type storedCommand struct {
	Argv []string `json:"argv"`
	Cwd  string   `json:"cwd"`
}

// AddSchedule stores a new schedule; an existing name is ErrExists.
func (s *Store) AddSchedule(ctx context.Context, sc Schedule) (Schedule, error) {
	return s.AddScheduleWithin(ctx, sc, -1)
}

// ErrScheduleLimit is AddScheduleWithin's refusal: the store already holds
// its cap of schedules.
var ErrScheduleLimit = errors.New("the schedule cap is reached")

// AddScheduleWithin stores a new schedule unless the store already holds
// max (negative: no cap), which is ErrScheduleLimit; the count and the
// insert are one statement, so concurrent adds cannot pass the cap
// together. An existing name is ErrExists.
func (s *Store) AddScheduleWithin(ctx context.Context, sc Schedule, max int) (Schedule, error) {
	cmd, _ := json.Marshal(sc.Command)
	if sc.Cwd != "" {
		cmd, _ = json.Marshal(storedCommand{Argv: sc.Command, Cwd: sc.Cwd})
	}
	sc.CreatedAt = s.now().UTC()
	sc.Version = 1
	cap := int64(max)
	if max < 0 {
		cap = 1 << 62
	}
	res, err := s.db.ExecContext(ctx, `INSERT INTO schedules (name, cron, command, created_at, next_run_at)
		SELECT ?,?,?,?,? WHERE (SELECT COUNT(*) FROM schedules) < ?`,
		sc.Name, sc.Cron, string(cmd), nanos(sc.CreatedAt), nanos(sc.NextRunAt), cap)
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE") {
			return Schedule{}, fmt.Errorf("schedule %q: %w", sc.Name, ErrExists)
		}
		return Schedule{}, s.wrap(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Schedule{}, fmt.Errorf("schedule %q: %w (%d)", sc.Name, ErrScheduleLimit, max)
	}
	return sc, nil
}

// ScheduleCount is how many schedules the store holds.
func (s *Store) ScheduleCount(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM schedules").Scan(&n); err != nil {
		return 0, s.wrap(err)
	}
	return n, nil
}

// GetSchedule returns one schedule.
func (s *Store) GetSchedule(ctx context.Context, name string) (Schedule, error) {
	sc, err := scanSchedule(s.db.QueryRowContext(ctx, "SELECT "+scheduleColumns+" FROM schedules WHERE name = ?", name))
	if errors.Is(err, sql.ErrNoRows) {
		return Schedule{}, fmt.Errorf("schedule %q: %w", name, ErrUnknownSchedule)
	}
	if err != nil {
		return Schedule{}, s.wrap(err)
	}
	return sc, nil
}

// Schedules lists every schedule by name.
func (s *Store) Schedules(ctx context.Context) ([]Schedule, error) {
	return collect(ctx, s, scanSchedule, "SELECT "+scheduleColumns+" FROM schedules ORDER BY name")
}

// RemoveSchedule deletes a schedule.
func (s *Store) RemoveSchedule(ctx context.Context, name string) error {
	res, err := s.db.ExecContext(ctx, "DELETE FROM schedules WHERE name = ?", name)
	if err != nil {
		return s.wrap(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("schedule %q: %w", name, ErrUnknownSchedule)
	}
	return nil
}

// ClaimSchedule advances a due schedule to its next run time by
// compare-and-set on its version, so two concurrent ticks never both start
// the same occurrence. It reports whether this caller won the claim.
func (s *Store) ClaimSchedule(ctx context.Context, sc Schedule, ranAt, next time.Time) (bool, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE schedules SET last_run_at = ?, next_run_at = ?, version = version + 1
		WHERE name = ? AND version = ?`, nanos(ranAt), nanos(next), sc.Name, sc.Version)
	if err != nil {
		return false, s.wrap(err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// RecordScheduleRun notes what a claimed run produced.
func (s *Store) RecordScheduleRun(ctx context.Context, name, recordID, runErr string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE schedules SET last_record_id = ?, last_error = ? WHERE name = ?`, recordID, runErr, name)
	return s.wrap(err)
}
