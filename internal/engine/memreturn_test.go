package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/clock"
	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/keyspace"
)

// newTestEngine is an engine without the families, for tests of its own
// machinery.
func newTestEngine(t *testing.T) *Engine {
	t.Helper()
	if Table == nil {
		Install() // the engine's own commands are enough here
	}
	cfg := config.DefaultConfig()
	cfg.SetDir(t.TempDir(), "")
	return New(cfg, clock.NewManual(time.Unix(1_700_000_000, 0)), nil)
}

// startBigShrink fills database 0 past bigTable keys, then deletes all but
// 1000 of them, which starts the table's shrink; it returns the database,
// a key that stays and how many were deleted.
func startBigShrink(t *testing.T, e *Engine) (db *keyspace.DB, kept []byte, deleted int) {
	t.Helper()
	db = e.DB(0)
	for i := 0; db.Len() <= BigTable; i++ {
		db.Add(fmt.Appendf(nil, "k%d", i), nil)
	}
	for db.Rehashing() { // the growth's: not the shrink under test
		db.RehashFor(1000)
	}
	var victims []*keyspace.Entry
	db.ForEach(func(e *keyspace.Entry) bool { victims = append(victims, e); return true })
	kept = append([]byte(nil), victims[0].Key()...)
	for _, e := range victims[1000:] {
		db.Remove(e)
	}
	if !db.Rehashing() {
		t.Fatal("no shrink started")
	}
	if !e.lastReturn.IsZero() {
		t.Fatal("memory returned before the shrink")
	}
	return db, kept, len(victims) - 1000
}

// Finishing the shrink of a big table hands the memory back at once
// (returnMemory): a rate-limit load allocates nothing, so no collection
// would otherwise come to free the old table. The same when the lookups'
// own steps finish the shrink, as the traffic in an expiry storm's wake
// often does before the cron's turn: the cron still sees the table go.
func TestShrinkOfBigTableReturnsMemory(t *testing.T) {
	for _, byLookups := range []bool{false, true} {
		t.Run(map[bool]string{false: "finished by the cron", true: "finished by lookups"}[byLookups], func(t *testing.T) {
			e := newTestEngine(t)
			db, kept, _ := startBigShrink(t, e)
			for i := 0; byLookups && db.Rehashing(); i++ {
				if i > 10_000_000 {
					t.Fatal("lookups never finished the shrink")
				}
				db.Get(kept, 0)
			}
			if !e.lastReturn.IsZero() {
				t.Fatal("memory returned before the cron's turn")
			}
			for i := 0; db.Rehashing() || i == 0; i++ {
				if i > 10_000 {
					t.Fatal("RehashActively never finished")
				}
				e.RehashActively(time.Millisecond)
			}
			if size, _ := db.Buckets(); size > 1024 {
				t.Fatalf("%d buckets for %d keys", size, db.Len())
			}
			if e.lastReturn.IsZero() || e.returnPending {
				t.Fatal("the freed table was not handed back")
			}
		})
	}
}

// A reclamation's return waits for a big table's shrink under way, so that
// one collection hands back the keys and the table; then it goes ahead.
func TestReturnWaitsForBigShrink(t *testing.T) {
	e := newTestEngine(t)
	db, kept, deleted := startBigShrink(t, e)
	e.reclaimed = deleted // as an expiry storm leaves it
	e.ReturnMemory()
	if !e.lastReturn.IsZero() || !e.returnPending {
		t.Fatalf("returned during the shrink (pending %v)", e.returnPending)
	}
	for db.Rehashing() {
		db.Get(kept, 0)
	}
	e.ReturnMemory()
	if e.lastReturn.IsZero() || e.returnPending {
		t.Fatal("not returned once the shrink was done")
	}
}
