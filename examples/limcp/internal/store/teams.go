package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Team is a message board.
type Team struct {
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
	Messages  int       `json:"messages"`
}

// Message is one post on a team board.
type Message struct {
	Seq      int64     `json:"seq"`
	Team     string    `json:"team"`
	Author   string    `json:"author"`
	Body     string    `json:"body"`
	RecordID string    `json:"record_id"`
	At       time.Time `json:"at"`
}

// CreateTeam creates a board; an existing name is ErrExists.
func (s *Store) CreateTeam(ctx context.Context, name string) (Team, error) {
	t := Team{Name: name, CreatedAt: s.now().UTC()}
	if _, err := s.db.ExecContext(ctx, "INSERT INTO teams (name, created_at) VALUES (?, ?)", name, nanos(t.CreatedAt)); err != nil {
		if strings.Contains(err.Error(), "UNIQUE") {
			return Team{}, fmt.Errorf("team %q: %w", name, ErrExists)
		}
		return Team{}, s.wrap(err)
	}
	return t, nil
}

// Teams lists every board with its message count.
func (s *Store) Teams(ctx context.Context) ([]Team, error) {
	return collect(ctx, s, func(row scanner) (Team, error) {
		var t Team
		var at int64
		err := row.Scan(&t.Name, &at, &t.Messages)
		t.CreatedAt = fromNanos(at)
		return t, err
	}, `SELECT t.name, t.created_at, (SELECT count(*) FROM messages m WHERE m.team = t.name) FROM teams t ORDER BY t.name`)
}

// TeamExists reports whether a board exists.
func (s *Store) TeamExists(ctx context.Context, name string) (bool, error) {
	var x string
	err := s.db.QueryRowContext(ctx, "SELECT name FROM teams WHERE name = ?", name).Scan(&x)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, s.wrap(err)
}

// Post appends a message to a board.
func (s *Store) Post(ctx context.Context, m Message) (Message, error) {
	ok, err := s.TeamExists(ctx, m.Team)
	if err != nil {
		return Message{}, err
	}
	if !ok {
		return Message{}, fmt.Errorf("team %q: %w", m.Team, ErrUnknownTeam)
	}
	m.At = s.now().UTC()
	res, err := s.db.ExecContext(ctx, "INSERT INTO messages (team, author, body, record_id, at) VALUES (?,?,?,?,?)",
		m.Team, m.Author, m.Body, m.RecordID, nanos(m.At))
	if err != nil {
		return Message{}, s.wrap(err)
	}
	m.Seq, _ = res.LastInsertId()
	return m, nil
}

// Read returns up to limit messages of a board with seq > after, oldest first.
func (s *Store) Read(ctx context.Context, team string, after int64, limit int) ([]Message, error) {
	ok, err := s.TeamExists(ctx, team)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("team %q: %w", team, ErrUnknownTeam)
	}
	return collect(ctx, s, func(row scanner) (Message, error) {
		var m Message
		var at int64
		err := row.Scan(&m.Seq, &m.Team, &m.Author, &m.Body, &m.RecordID, &at)
		m.At = fromNanos(at)
		return m, err
	}, `SELECT seq, team, author, body, record_id, at FROM messages WHERE team = ? AND seq > ? ORDER BY seq LIMIT ?`, team, after, limit)
}
