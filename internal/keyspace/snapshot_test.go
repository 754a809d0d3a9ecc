package keyspace

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// state is what a snapshot must capture of a key: its value (a []byte the
// test mutates in place, as commands mutate values) and its deadline.
type state struct {
	val string
	exp int64
}

func capture(db *DB) map[string]state {
	m := map[string]state{}
	db.ForEach(func(e *Entry) bool {
		m[e.Key()] = state{string(e.Val.([]byte)), e.exp}
		return true
	})
	return m
}

// TestSnapshotIsPointInTime drives a snapshot walk interleaved with every
// kind of change the DB supports (in-place value writes after a lookup,
// Set, Add, Delete, deadlines set, moved and removed, renames, lazy and
// active expiry, forced growth, Flush) and checks that the snapshot saw
// exactly the keys, values and deadlines present when it began, each once.
func TestSnapshotIsPointInTime(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { snapshotRun(t, seed) })
	}
}

func snapshotRun(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 7))
	db := New()
	n := 50 + r.IntN(3000)
	now := int64(1000)
	for i := range n {
		e := db.Add(key(i), fmt.Appendf(nil, "v%d", i))
		if r.IntN(3) == 0 {
			db.SetExpiry(e, now+int64(r.IntN(200)))
		}
	}
	// Half the runs start in the middle of a resize.
	if seed%2 == 0 {
		for db.Rehashing() {
			db.RehashFor(100)
		}
	}
	want := capture(db)
	got := map[string]state{}
	snap := db.BeginSnapshot(func(e *Entry) {
		k := e.Key()
		if _, dup := got[k]; dup {
			t.Fatalf("%q saved twice", k)
		}
		got[k] = state{string(e.Val.([]byte)), e.exp}
	})
	next := n
	pick := func() []byte { return key(r.IntN(next + 10)) }
	for !snap.Complete() {
		snap.Walk(1 + r.IntN(20))
		for range r.IntN(30) {
			switch op := r.IntN(100); {
			case op < 25: // a write command: lookup, then change the value in place
				if e := db.Get(pick(), now); e != nil {
					v := e.Val.([]byte)
					if len(v) > 0 {
						v[0] ^= 0x20
					}
					e.Val = append(v, 'w')
				}
			case op < 35:
				k := pick()
				db.GetNoTouch(k, now)
				db.Set(k, []byte("set"), r.IntN(2) == 0)
			case op < 45:
				db.Add(key(next), []byte("new"))
				next++
			case op < 55:
				db.Delete(pick(), now)
			case op < 65:
				if e := db.Peek(pick()); e != nil {
					db.SetExpiry(e, now+int64(r.IntN(400)))
				}
			case op < 70:
				if e := db.Peek(pick()); e != nil {
					db.Persist(e)
				}
			case op < 78: // RENAME
				src, dst := pick(), key(next)
				next++
				if e := db.GetNoTouch(src, now); e != nil {
					db.MoveTo(e, db, dst)
				}
			case op < 85:
				now += int64(r.IntN(20))
				db.ExpireDue(now, 1+r.IntN(20), nil)
			case op < 88:
				if e := db.Random(); e != nil {
					db.ExpireIfDue(e, now)
				}
			case op < 90: // an entry not from a lookup (RANDOMKEY, eviction)
				if e := db.Random(); e != nil {
					db.SetExpiry(e, now+int64(r.IntN(400)))
				}
			case op < 92:
				// A burst of inserts, enough to force a resize now and then.
				for range r.IntN(n) {
					db.Add(key(next), []byte("burst"))
					next++
				}
			case op < 93 && r.IntN(10) == 0:
				db.Flush()
			default:
				db.Scan(uint64(r.IntN(1<<20)), func(*Entry) {})
			}
		}
	}
	if len(got) != len(want) {
		t.Errorf("saved %d keys, %d were present at the start", len(got), len(want))
	}
	for k, w := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("%q not saved", k)
		} else if g != w {
			t.Errorf("%q saved as %+v, was %+v", k, g, w)
		}
	}
	if db.Snapshotting() {
		t.Fatal("the DB still has the snapshot after it completed")
	}
	for db.RehashFor(100) {
	}
	check(t, db, db.Len())
}

// While a snapshot runs the table does not resize, and lookups stay right
// through the frozen resize; afterwards the held-back resize happens.
func TestSnapshotHoldsResizes(t *testing.T) {
	db := New()
	for i := range 1000 {
		db.Add(key(i), []byte("v"))
	}
	for db.RehashFor(100) {
	}
	b0, _ := db.Buckets()
	saved := 0
	snap := db.BeginSnapshot(func(*Entry) { saved++ })
	for i := 1000; i < 2*b0; i++ {
		db.Add(key(i), []byte("v"))
	}
	if b, b1 := db.Buckets(); b != b0 || b1 != 0 {
		t.Fatalf("table resized during the snapshot: %d, %d", b, b1)
	}
	for i := range 2 * b0 {
		if db.Peek(key(i)) == nil {
			t.Fatalf("key %d lost", i)
		}
	}
	snap.Finish()
	if saved != 1000 {
		t.Fatalf("saved %d keys, want 1000", saved)
	}
	db.Add(key(-1), []byte("v"))
	if !db.Rehashing() {
		t.Fatal("the held-back resize did not start")
	}
	// Past forceResizeRatio the snapshot is finished and the table grows.
	for db.RehashFor(100) {
	}
	b0, _ = db.Buckets()
	saved = 0
	db.BeginSnapshot(func(*Entry) { saved++ })
	start := db.Len()
	for i := 0; db.Snapshotting(); i++ {
		db.Add(fmt.Appendf(nil, "more:%d", i), []byte("v"))
	}
	if saved != start || db.Len() != forceResizeRatio*b0+1 {
		t.Fatalf("forced end saved %d of %d keys at %d keys", saved, start, db.Len())
	}
}

// Aborting hands nothing more over and lets the table resize.
func TestSnapshotAbort(t *testing.T) {
	db := New()
	for i := range 100 {
		db.Add(key(i), []byte("v"))
	}
	saved := 0
	snap := db.BeginSnapshot(func(*Entry) { saved++ })
	snap.Walk(4)
	before := saved
	snap.Abort()
	db.Get(key(1), 0)
	db.Delete(key(2), 0)
	if saved != before || db.Snapshotting() || !snap.Complete() {
		t.Fatalf("after Abort: saved %d (was %d), snapshotting %v", saved, before, db.Snapshotting())
	}
}
