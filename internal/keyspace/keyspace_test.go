package keyspace

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func key(i int) []byte { return fmt.Appendf(nil, "key:%d", i) }

// check verifies the table's invariants: every entry sits in the bucket its
// hash selects (in ht[0] at or above rehashIdx, else in ht[1]), the per-table
// counts are right and the total matches want.
func check(t *testing.T, db *DB, want int) {
	t.Helper()
	n := [2]int{}
	for ti, tab := range db.ht {
		for i, e := range tab {
			for ; e != nil; e = e.next {
				if got := int(db.hashOf(e) & uint64(len(tab)-1)); got != i {
					t.Fatalf("ht[%d]: %q in bucket %d, belongs in %d", ti, e.Key(), i, got)
				}
				if ti == 0 && db.rehashIdx >= 0 && i < db.rehashIdx {
					t.Fatalf("ht[0] bucket %d below rehashIdx %d not empty", i, db.rehashIdx)
				}
				n[ti]++
			}
		}
	}
	if n != db.used {
		t.Fatalf("used = %v, counted %v", db.used, n)
	}
	if db.Len() != want {
		t.Fatalf("Len = %d, want %d", db.Len(), want)
	}
}

func TestKeyspaceExpiryBoundary(t *testing.T) {
	db := New()
	e := db.Set([]byte("k"), []byte("v"), false)
	db.SetExpiry(e, 1000)
	if db.Get([]byte("k"), 1000) == nil {
		t.Fatal("key gone at now == deadline; Redis keeps it alive")
	}
	if db.Get([]byte("k"), 1001) != nil {
		t.Fatal("key alive at now > deadline")
	}
	if db.Len() != 0 || db.ExpiresLen() != 0 || db.Expired != 1 {
		t.Fatalf("lazy expiry left Len=%d ExpiresLen=%d Expired=%d", db.Len(), db.ExpiresLen(), db.Expired)
	}
}

func TestKeyspaceGrowsAndShrinksIncrementally(t *testing.T) {
	db := New()
	const n = 5000
	sawRehash := false
	for i := range n {
		db.Add(key(i), i)
		if db.Rehashing() {
			sawRehash = true
			// Mid-rehash every key must still be found.
			if i%97 == 0 {
				for j := 0; j <= i; j += 13 {
					if e := db.Peek(key(j)); e == nil || e.Val.(int) != j {
						t.Fatalf("key %d lost during rehash at insert %d", j, i)
					}
				}
			}
		}
	}
	if !sawRehash {
		t.Fatal("growing to 5000 keys never rehashed incrementally")
	}
	check(t, db, n)
	for db.RehashFor(100) {
	}
	if b0, _ := db.Buckets(); b0 < n {
		t.Fatalf("table has %d buckets for %d keys", b0, n)
	}
	for i := range n - 10 {
		if !db.Delete(key(i), 0) {
			t.Fatalf("Delete(%d) found nothing", i)
		}
	}
	for db.RehashFor(100) {
	}
	check(t, db, 10)
	if b0, _ := db.Buckets(); b0 != minBuckets {
		t.Fatalf("after emptying, %d buckets, want %d", b0, minBuckets)
	}
	for i := n - 10; i < n; i++ {
		if db.Peek(key(i)) == nil {
			t.Fatalf("key %d lost by shrinking", i)
		}
	}
}

// One operation moves at most one bucket (plus ten empty ones), so no single
// command pays for the whole resize.
func TestKeyspaceRehashIsBounded(t *testing.T) {
	db := New()
	for i := 0; i < 1<<14; i++ {
		db.Add(key(i), i)
	}
	for db.RehashFor(1000) {
	}
	b0, _ := db.Buckets()
	for db.Len() < b0 {
		db.Add(fmt.Appendf(nil, "x%d", db.Len()), 0)
	}
	db.Add([]byte("trigger"), 0)
	if !db.Rehashing() {
		t.Fatal("no rehash started")
	}
	before := db.rehashIdx
	db.Peek([]byte("nothing"))
	if moved := db.rehashIdx - before; moved < 1 || moved > 11 {
		t.Fatalf("one lookup advanced the rehash by %d buckets", moved)
	}
}

// scanAll runs a full SCAN, calling between after each step, and returns how
// many times each key was seen.
func scanAll(db *DB, between func()) map[string]int {
	seen := map[string]int{}
	cursor := uint64(0)
	for {
		cursor = db.Scan(cursor, func(e *Entry) { seen[e.Key()]++ })
		if cursor == 0 {
			return seen
		}
		between()
	}
}

// The SCAN guarantee: a key present for the whole scan is returned at least
// once, whatever happens to the table between calls: growth, shrinking, and
// rehashes in progress at any step.
func TestKeyspaceScanGuarantee(t *testing.T) {
	for seed := range uint64(8) {
		r := rand.New(rand.NewPCG(seed, 1))
		db := New()
		stable := r.IntN(2000) + 1
		for i := range stable {
			db.Add(key(i), i)
		}
		// Churn keys come and go: bursts of inserts force growth, bursts of
		// deletes force shrinking.
		churn := map[string]bool{}
		next := 0
		between := func() {
			switch r.IntN(3) {
			case 0:
				for range r.IntN(400) {
					k := fmt.Sprint("churn:", next)
					next++
					db.Add([]byte(k), 0)
					churn[k] = true
				}
			case 1:
				for k := range churn {
					if r.IntN(4) != 0 {
						db.Delete([]byte(k), 0)
						delete(churn, k)
					}
				}
			}
			db.Peek([]byte("step")) // advance any rehash
		}
		seen := scanAll(db, between)
		for i := range stable {
			if seen[string(key(i))] == 0 {
				t.Fatalf("seed %d: stable key %d never returned by SCAN", seed, i)
			}
		}
		check(t, db, stable+len(churn))
	}
}

func TestKeyspaceScanDuringRehashVisitsEachKeyOnce(t *testing.T) {
	db := New()
	for i := range 1024 {
		db.Add(key(i), i)
	}
	if !db.Rehashing() {
		db.Add([]byte("one more"), 0)
	}
	// Without table changes between calls, even mid-rehash no key repeats.
	seen := scanAll(db, func() {})
	if len(seen) != db.Len() {
		t.Fatalf("scan saw %d keys of %d", len(seen), db.Len())
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("%q seen %d times", k, n)
		}
	}
}

func TestKeyspaceRandom(t *testing.T) {
	db := New()
	if db.Random() != nil {
		t.Fatal("Random on empty DB")
	}
	const n = 40
	for i := range n {
		db.Add(key(i), i)
	}
	// Make the table mid-rehash, then check every key can come out.
	for i := 0; !db.Rehashing(); i++ {
		db.Add(fmt.Appendf(nil, "%v%v", "pad", i), -1)
	}
	all := db.Len()
	seen := map[string]bool{}
	for range 200 * all {
		e := db.Random()
		if e == nil || db.Peek([]byte(e.Key())) != e {
			t.Fatal("Random returned an entry not in the DB")
		}
		seen[e.Key()] = true
	}
	if len(seen) != all {
		t.Fatalf("Random reached %d of %d keys", len(seen), all)
	}
}

func TestKeyspaceMoveToKeepsTTLAndStats(t *testing.T) {
	src, dst := New(), New()
	e := src.Set([]byte("a"), []byte("v"), false)
	src.SetExpiry(e, 5000)
	e.Enc = EncRaw
	e.lru = 1234
	var deleted []string
	src.OnDelete = func(k string) { deleted = append(deleted, k) }
	ne := src.MoveTo(e, dst, []byte("b"))
	if src.Len() != 0 || src.ExpiresLen() != 0 || dst.Len() != 1 || dst.ExpiresLen() != 1 {
		t.Fatalf("after move: src %d/%d dst %d/%d", src.Len(), src.ExpiresLen(), dst.Len(), dst.ExpiresLen())
	}
	if ne.Key() != "b" || ne.Expiry() != 5000 || ne.Enc != EncRaw || ne.LRU() != 1234 || string(ne.Val.([]byte)) != "v" {
		t.Fatalf("moved entry %+v", ne)
	}
	if len(deleted) != 1 || deleted[0] != "a" {
		t.Fatalf("OnDelete calls %v", deleted)
	}
	// Renaming within one DB.
	ne = dst.MoveTo(ne, dst, []byte("c"))
	if dst.Peek([]byte("b")) != nil || dst.Peek([]byte("c")) != ne || ne.Expiry() != 5000 {
		t.Fatal("rename within a DB failed")
	}
	if due, _ := dst.ExpireDue(5001, 10, nil); due != 1 || dst.Len() != 0 {
		t.Fatalf("moved deadline not indexed under the new key: due %d len %d", due, dst.Len())
	}
}

func TestKeyspaceFlushAndForEach(t *testing.T) {
	db := New()
	for i := range 100 {
		e := db.Add(key(i), i)
		db.SetExpiry(e, int64(1000+i))
	}
	n := 0
	db.ForEach(func(*Entry) bool { n++; return true })
	if n != 100 {
		t.Fatalf("ForEach visited %d", n)
	}
	var deleted int
	db.OnDelete = func(string) { deleted++ }
	db.Flush()
	if db.Len() != 0 || db.ExpiresLen() != 0 || deleted != 100 || db.Rehashing() {
		t.Fatalf("after Flush: len %d expires %d deleted %d", db.Len(), db.ExpiresLen(), deleted)
	}
	check(t, db, 0)
}

func BenchmarkKeyspaceGet(b *testing.B) {
	db := New()
	for i := range 1 << 16 {
		db.Add(key(i), i)
	}
	keys := make([][]byte, 1<<16)
	for i := range keys {
		keys[i] = key(i)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		db.Get(keys[i&(1<<16-1)], 1)
	}
}

type touchVal struct{ touched *int }

func (v touchVal) Touch() uint64 { *v.touched++; return 1 }

// TouchAll only reads: it must find the keys' values (in either table while
// a resize is under way) and change nothing, not even the resize's progress
// or access times.
func TestTouchAllChangesNothing(t *testing.T) {
	db := New()
	touched := 0
	for i := 0; i < 100; i++ {
		db.Add(key(i), touchVal{&touched})
	}
	for !db.Rehashing() { // stop in the middle of a resize
		db.Add(fmt.Appendf(nil, "pad%d", db.Len()), 0)
	}
	var keys [][]byte
	for i := 0; i < 40; i++ { // more than TouchAll takes: the rest are ignored
		keys = append(keys, key(i*2))
	}
	keys[3] = []byte("missing")
	idx, n, asec := db.rehashIdx, db.Len(), db.Peek(key(0)).lru
	if got := db.TouchAll(keys); got != 31 || touched != 31 {
		t.Fatalf("TouchAll touched %d values (sum %d), want 31", touched, got)
	}
	if db.rehashIdx != idx || db.Len() != n || db.Peek(key(0)).lru != asec {
		t.Fatal("TouchAll changed the table")
	}
	if db.TouchAll(nil) != 0 {
		t.Fatal("TouchAll of no keys")
	}
}

// OnNew hands over the entry's own key, which its receivers may keep (the
// cluster's slot index): never the caller's bytes, which a client's next
// command overwrites in its query buffer.
func TestOnNewKeyIsTheEntrys(t *testing.T) {
	for _, key := range []string{"{u}a", strings.Repeat("long-key-", 10)} {
		db := New()
		var got string
		db.OnNew = func(k string) { got = k }
		buf := []byte(key)
		db.Add(buf, nil)
		for i := range buf {
			buf[i] = 'z'
		}
		if got != key {
			t.Fatalf("OnNew kept %q, want %q", got, key)
		}
	}
}
