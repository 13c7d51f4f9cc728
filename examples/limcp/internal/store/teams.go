package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
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

// Post appends a message to a board, whatever the boards hold.
func (s *Store) Post(ctx context.Context, m Message) (Message, error) {
	return s.PostWithin(ctx, m, -1)
}

// MessageOverhead is what a message costs besides its author, body and
// record id in BoardBytes: its row. So a bound on board bytes also bounds
// how many empty messages a home keeps.
const MessageOverhead = 64

// ErrBoardLimit is PostWithin's refusal: the message would take the
// boards' bytes past the bound.
var ErrBoardLimit = errors.New("the team boards' bound is reached")

// PostWithin appends a message to a board unless the messages of every
// board, this one with them, would take more than max bytes (BoardBytes;
// negative: no bound), which is ErrBoardLimit. The sum and the insert are
// one statement, so concurrent posts cannot pass the bound together.
func (s *Store) PostWithin(ctx context.Context, m Message, max int64) (Message, error) {
	ok, err := s.TeamExists(ctx, m.Team)
	if err != nil {
		return Message{}, err
	}
	if !ok {
		return Message{}, fmt.Errorf("team %q: %w", m.Team, ErrUnknownTeam)
	}
	if max < 0 {
		max = 1 << 62
	}
	m.At = s.now().UTC()
	size := int64(len(m.Author) + len(m.Body) + len(m.RecordID) + MessageOverhead)
	res, err := s.db.ExecContext(ctx, "INSERT INTO messages (team, author, body, record_id, at) SELECT ?,?,?,?,? WHERE ("+boardBytesQuery+") + ? <= ?",
		m.Team, m.Author, m.Body, m.RecordID, nanos(m.At), size, max)
	if err != nil {
		return Message{}, s.wrap(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Message{}, fmt.Errorf("a message of %d bytes on team %q: %w (%d)", size, m.Team, ErrBoardLimit, max)
	}
	m.Seq, _ = res.LastInsertId()
	return m, nil
}

// boardBytesQuery sums BoardBytes: lengths in bytes, not characters.
var boardBytesQuery = `SELECT COALESCE(SUM(length(CAST(author AS BLOB)) + length(CAST(body AS BLOB)) + length(CAST(record_id AS BLOB)) + ` +
	strconv.Itoa(MessageOverhead) + `), 0) FROM messages`

// BoardBytes is what the messages of every board take: their authors,
// bodies and record ids in bytes, and MessageOverhead each.
func (s *Store) BoardBytes(ctx context.Context) (int64, error) {
	var n int64
	if err := s.db.QueryRowContext(ctx, boardBytesQuery).Scan(&n); err != nil {
		return 0, s.wrap(err)
	}
	return n, nil
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
