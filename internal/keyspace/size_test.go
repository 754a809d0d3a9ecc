package keyspace

import (
	"testing"
	"unsafe"
)

// Every key costs one Entry: keep it in the 64-byte allocation class.
func TestEntryFitsSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(Entry{}); n > 64 {
		t.Fatalf("Entry is %d bytes, more than the 64-byte size class", n)
	}
}

// A deadline moved later stays filed under the old one until that comes up;
// the key must still expire exactly at its real deadline, and every other
// change must keep the index exact.
func TestDeadlineMovedLaterIsRefiled(t *testing.T) {
	db := New()
	e := db.Set([]byte("k"), []byte("v"), false)
	db.SetExpiry(e, 100)
	db.SetExpiry(e, 200) // later: only exp moves
	if n, _ := db.ExpireDue(150, 10, nil); n != 1 || db.Len() != 1 {
		t.Fatalf("at 150: visited %d, %d keys left; want the key re-filed, not deleted", n, db.Len())
	}
	if db.Get([]byte("k"), 200) == nil {
		t.Fatal("key gone at its deadline (alive while now <= deadline)")
	}
	if n, _ := db.ExpireDue(201, 10, nil); n != 1 || db.Len() != 0 || db.ExpiresLen() != 0 {
		t.Fatalf("at 201: %d visited, %d keys, %d deadlines left", n, db.Len(), db.ExpiresLen())
	}

	e = db.Set([]byte("k"), []byte("v"), false)
	db.SetExpiry(e, 100)
	db.SetExpiry(e, 300)
	db.SetExpiry(e, 50) // earlier again: re-filed at once
	if n, _ := db.ExpireDue(60, 10, nil); n != 1 || db.Len() != 0 {
		t.Fatalf("shortened deadline not honoured: %d visited, %d keys", n, db.Len())
	}

	e = db.Set([]byte("k"), []byte("v"), false)
	db.SetExpiry(e, 100)
	db.SetExpiry(e, 300)
	db.Persist(e)
	if db.ExpiresLen() != 0 {
		t.Fatal("PERSIST after a later deadline left an index entry")
	}
	db.SetExpiry(e, 100)
	db.SetExpiry(e, 300)
	db.Remove(e)
	if db.ExpiresLen() != 0 {
		t.Fatal("deleting a key with a moved deadline left an index entry")
	}
}
