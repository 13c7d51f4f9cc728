package wait

import (
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestClassify has one row per rule of Classify, in the order the rules are
// checked, plus rows pinning that an earlier rule beats a later one.
func TestClassify(t *testing.T) {
	now := epoch
	const threshold = 30 * time.Second
	started := func(ev Evidence, end bool) Observation {
		return Observation{Status: "running", Phase: PhaseStarted, PhaseEnteredAt: now.Add(-time.Hour), Process: ev, EndRecorded: end}
	}
	prep := func(age time.Duration) Observation {
		return Observation{Status: "preparing", Phase: PhasePreparing, PhaseEnteredAt: now.Add(-age), Process: EvidenceUnknown}
	}
	unrecorded := func(ev Evidence) Observation {
		return Observation{Status: "running", Phase: PhaseUnrecorded, Process: ev}
	}
	with := func(o Observation, f func(*Observation)) Observation { f(&o); return o }

	tests := []struct {
		name string
		obs  Observation
		want Class
	}{
		// Rule 1.
		{"terminal is terminal", Observation{Status: "completed", Terminal: true}, ClassTerminal},
		{"terminal beats publish failed", with(started(EvidenceGone, false), func(o *Observation) { o.Terminal = true; o.PublishFailed = true }), ClassTerminal},
		{"terminal beats alive process", with(started(EvidenceAlive, false), func(o *Observation) { o.Terminal = true }), ClassTerminal},
		{"terminal beats old preparing", with(prep(time.Hour), func(o *Observation) { o.Terminal = true }), ClassTerminal},
		// Rule 2.
		{"conclusive finding not published is stopped without end", with(started(EvidenceGone, false), func(o *Observation) { o.PublishFailed = true }), ClassStoppedWithoutEnd},
		{"publish failed beats alive evidence", with(started(EvidenceAlive, false), func(o *Observation) { o.PublishFailed = true }), ClassStoppedWithoutEnd},
		{"publish failed beats young preparing", with(prep(time.Second), func(o *Observation) { o.PublishFailed = true }), ClassStoppedWithoutEnd},
		// Rule 3.
		{"started and alive is pending", started(EvidenceAlive, false), ClassPending},
		{"started and alive with end recorded is pending", started(EvidenceAlive, true), ClassPending},
		// Rule 4.
		{"started and gone with no end is stopped without end", started(EvidenceGone, false), ClassStoppedWithoutEnd},
		{"started and gone with end recorded but not terminal is stopped without end", started(EvidenceGone, true), ClassStoppedWithoutEnd},
		{"started with unknown evidence is stopped without end", started(EvidenceUnknown, false), ClassStoppedWithoutEnd},
		{"started with unreported evidence is stopped without end", started("", false), ClassStoppedWithoutEnd},
		// Rule 5.
		{"preparing younger than threshold is pending", prep(threshold - time.Nanosecond), ClassPending},
		{"preparing just entered is pending", prep(0), ClassPending},
		{"preparing entered in the future is pending", prep(-time.Minute), ClassPending},
		// Rule 6.
		{"preparing at threshold is unresolved spawn", prep(threshold), ClassUnresolvedSpawn},
		{"preparing older than threshold is unresolved spawn", prep(threshold + time.Nanosecond), ClassUnresolvedSpawn},
		{"preparing with no entry time is unresolved spawn", with(prep(0), func(o *Observation) { o.PhaseEnteredAt = time.Time{} }), ClassUnresolvedSpawn},
		{"old preparing is unresolved spawn even if shown alive", with(prep(time.Hour), func(o *Observation) { o.Process = EvidenceAlive }), ClassUnresolvedSpawn},
		// Rule 7.
		{"no phase and alive is pending", unrecorded(EvidenceAlive), ClassPending},
		{"unknown phase and alive is pending", with(unrecorded(EvidenceAlive), func(o *Observation) { o.Phase = "finishing" }), ClassPending},
		// Rule 8.
		{"no phase and gone is stopped without end", unrecorded(EvidenceGone), ClassStoppedWithoutEnd},
		{"no phase and unknown evidence is stopped without end", unrecorded(EvidenceUnknown), ClassStoppedWithoutEnd},
		{"no phase and no evidence is stopped without end", Observation{}, ClassStoppedWithoutEnd},
		{"unknown phase and gone is stopped without end", with(unrecorded(EvidenceGone), func(o *Observation) { o.Phase = "finishing" }), ClassStoppedWithoutEnd},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.obs, now, threshold); got != tt.want {
				t.Errorf("Classify(%+v) = %q, want %q", tt.obs, got, tt.want)
			}
		})
	}
}

func TestClassifyNonPositiveThresholdMakesEveryPreparingUnresolved(t *testing.T) {
	o := Observation{Phase: PhasePreparing, PhaseEnteredAt: epoch}
	for _, th := range []time.Duration{0, -time.Second} {
		if got := Classify(o, epoch, th); got != ClassUnresolvedSpawn {
			t.Errorf("threshold %v: Classify = %q, want %q", th, got, ClassUnresolvedSpawn)
		}
	}
}

// TestClassesListsEveryClassConstant parses the package source: every
// constant of type Class must be in Classes(), and Classes() must hold
// nothing else. Adding a class without listing it fails here.
func TestClassesListsEveryClassConstant(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var declared []Class
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Class" {
					continue
				}
				for _, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Fatalf("%s: Class constant is not a string literal", fset.Position(v.Pos()))
					}
					s, _ := strconv.Unquote(lit.Value)
					declared = append(declared, Class(s))
				}
			}
		}
	}
	listed := Classes()
	slices.Sort(declared)
	slices.Sort(listed)
	if !slices.Equal(declared, listed) {
		t.Errorf("Class constants declared %q, Classes() lists %q", declared, listed)
	}
	if len(listed) != 4 {
		t.Errorf("Classes() has %d classes, want 4: %q", len(listed), listed)
	}
}

// TestClassesIsACopy: one caller changing the list cannot change another's.
func TestClassesIsACopy(t *testing.T) {
	a := Classes()
	a[0] = "mutated"
	if Classes()[0] == "mutated" {
		t.Error("Classes() returned shared storage")
	}
}

// TestClassifyProducesOnlyListedClasses: whatever the observation, Classify
// returns a value in Classes() and Sets.Of has a list for it.
func TestClassifyProducesOnlyListedClasses(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	listed := Classes()
	var s Sets
	for i := range 20000 {
		o := randomObservation(r, "x", epoch, 30*time.Second)
		o.Error = nil
		c := Classify(o, epoch, 30*time.Second)
		if !slices.Contains(listed, c) {
			t.Fatalf("case %d: Classify(%+v) = %q, not in Classes() %q", i, o, c, listed)
		}
		s.add(c, "x") // panics on a class with no list
	}
}
