package keyslot

import (
	"fmt"
	"slices"
	"testing"
)

// fakeDB is the database an index walks: its keys in insertion order.
type fakeDB struct {
	keys []string
	x    *Index
}

func newFakeDB() *fakeDB {
	db := &fakeDB{}
	db.x = NewIndex(func(fn func(string)) {
		for _, k := range db.keys {
			fn(k)
		}
	})
	return db
}

func (db *fakeDB) add(k string) { db.keys = append(db.keys, k); db.x.Add(k) }

func (db *fakeDB) remove(k string) {
	db.keys = slices.DeleteFunc(db.keys, func(s string) bool { return s == k })
	db.x.Remove(k)
}

func TestIndex(t *testing.T) {
	db := newFakeDB()
	x := db.x
	for _, k := range []string{"{u}a", "{u}b", "other"} {
		db.add(k)
	}
	s := int(Slot([]byte("{u}")))
	if x.lists != nil {
		t.Fatal("lists built before anyone asked for keys")
	}
	for _, tc := range []struct {
		name        string
		add, remove string
		want        []string
	}{
		// Built from the walk, each key put first: the walk's order
		// reversed (newest first for a walk in insertion order).
		{"as walked", "", "", []string{"{u}b", "{u}a"}},
		// After the build, a new key goes first, as Redis lists them.
		{"added after the build", "{u}c", "", []string{"{u}c", "{u}b", "{u}a"}},
		{"the middle removed", "", "{u}b", []string{"{u}c", "{u}a"}},
		{"the head removed", "", "{u}c", []string{"{u}a"}},
		{"the last removed", "", "{u}a", nil},
	} {
		if tc.add != "" {
			db.add(tc.add)
		}
		if tc.remove != "" {
			db.remove(tc.remove)
		}
		if got := x.Keys(nil, s, 10); !slices.Equal(got, tc.want) {
			t.Errorf("%s: keys %q, want %q", tc.name, got, tc.want)
		}
		if x.Count(s) != len(tc.want) {
			t.Errorf("%s: count %d, want %d", tc.name, x.Count(s), len(tc.want))
		}
	}
	if x.Count(int(Slot([]byte("other")))) != 1 {
		t.Fatal("the other slot's count")
	}
}

// Counts are kept without the lists; a flushed index starts again.
func TestIndexCountsAndReset(t *testing.T) {
	db := newFakeDB()
	x := db.x
	for i := range 100 {
		db.add(fmt.Sprintf("{t}%d", i))
	}
	s := int(Slot([]byte("t")))
	if x.Count(s) != 100 || x.lists != nil {
		t.Fatalf("count %d, lists %v", x.Count(s), x.lists != nil)
	}
	if got := x.Keys(nil, s, 3); len(got) != 3 {
		t.Fatalf("first 3: %q", got)
	}
	if got := x.Keys(nil, s, 0); len(got) != 0 {
		t.Fatalf("max 0: %q", got)
	}
	x.Reset()
	if x.Count(s) != 0 || x.lists != nil {
		t.Fatalf("after Reset: count %d", x.Count(s))
	}
}

// Released lists are built again, from the walk, when next asked for;
// the counts stay through it. TakeUsed tells whether Keys ran since.
func TestIndexRelease(t *testing.T) {
	db := newFakeDB()
	x := db.x
	db.add("{r}a")
	s := int(Slot([]byte("r")))
	if x.Built() || x.TakeUsed() {
		t.Fatal("built or used before Keys")
	}
	x.Keys(nil, s, 10)
	if !x.Built() || !x.TakeUsed() || x.TakeUsed() {
		t.Fatal("after Keys: built and used once")
	}
	x.Release()
	db.add("{r}b") // while released: counted, not listed
	if x.Built() || x.Count(s) != 2 {
		t.Fatalf("after Release: built %v, count %d", x.Built(), x.Count(s))
	}
	if got := x.Keys(nil, s, 10); !slices.Equal(got, []string{"{r}b", "{r}a"}) {
		t.Fatalf("rebuilt: %q", got)
	}
}
