package runs

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
)

// A run records the subject that started it; List and CountLive can keep
// to one subject, and the empty subject means every run.
func TestSubjectRecordedAndCounted(t *testing.T) {
	ctx := context.Background()
	s := open(t, runsDir(t))
	for _, subject := range []string{"alice", "alice", "bob", ""} {
		if _, err := s.Create(ctx, New{Verb: "v", Subject: subject}); err != nil {
			t.Fatal(err)
		}
	}
	ended, err := s.Create(ctx, New{Verb: "v", Subject: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Transition(ctx, Change{ID: ended.ID, Version: ended.Version, To: StatusFailed, Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	for subject, want := range map[string]int{"alice": 2, "bob": 1, "carol": 0, "": 4} {
		if n, err := s.CountLive(ctx, subject); err != nil || n != want {
			t.Errorf("CountLive(%q) = %d, %v; want %d", subject, n, err, want)
		}
	}
	recs, err := s.List(ctx, ListOptions{Subject: "alice"})
	if err != nil || len(recs) != 3 {
		t.Fatalf("List(alice) = %d runs, %v; want 3", len(recs), err)
	}
	for _, r := range recs {
		if r.Subject != "alice" {
			t.Errorf("List(alice) holds a run of %q", r.Subject)
		}
	}
	if recs, _ := s.List(ctx, ListOptions{Subject: "alice", Live: true}); len(recs) != 2 {
		t.Errorf("List(alice, live) = %d runs; want 2", len(recs))
	}
	if recs, _ := s.List(ctx, ListOptions{}); len(recs) != 5 {
		t.Errorf("List() = %d runs; want 5", len(recs))
	}
}

// A store written before runs recorded a subject opens: its runs read as
// having none, and a new run records one.
func TestOpenMigratesStoreWithoutSubject(t *testing.T) {
	ctx := context.Background()
	dir := runsDir(t)
	if err := os.MkdirAll(dir, DirMode); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	// The runs table as the first release created it.
	_, err = db.Exec(`CREATE TABLE runs (id TEXT PRIMARY KEY, verb TEXT NOT NULL, status TEXT NOT NULL, phase TEXT NOT NULL,
		phase_entered_at INTEGER NOT NULL, reason_code TEXT NOT NULL DEFAULT '', outcome TEXT NOT NULL, exit_code INTEGER,
		signal TEXT NOT NULL DEFAULT '', pid INTEGER NOT NULL DEFAULT 0, start_time INTEGER NOT NULL DEFAULT 0,
		sup_pid INTEGER NOT NULL DEFAULT 0, sup_start_time INTEGER NOT NULL DEFAULT 0, kill_requested INTEGER NOT NULL DEFAULT 0,
		created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, started_at INTEGER NOT NULL DEFAULT 0,
		ended_at INTEGER NOT NULL DEFAULT 0, version INTEGER NOT NULL, spec TEXT NOT NULL);
		INSERT INTO runs (id, verb, status, phase, phase_entered_at, outcome, created_at, updated_at, version, spec)
		VALUES ('r-old', 'v', 'running', 'started', 1, 'none', 1, 1, 2, '{}');`)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	s := open(t, dir)
	old, err := s.Get(ctx, "r-old")
	if err != nil || old.Subject != "" || old.Status != StatusRunning {
		t.Fatalf("the older run: %+v, %v; want it running with no subject", old, err)
	}
	r, err := s.Create(ctx, New{Verb: "v", Subject: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := s.CountLive(ctx, "alice"); n != 1 || r.Subject != "alice" {
		t.Errorf("a new run of alice: %+v, %d live; want its subject recorded", r, n)
	}
	if s2 := open(t, dir); s2 == nil {
		t.Fatal("reopening the migrated store")
	}
}
