package keyspace

import (
	"testing"
	"unsafe"
)

// Every key costs one object: the Entry with its key inline. The Entry must
// stay at 48 bytes, and each inline variant must put the key right after it
// (where Key looks) and fill a size class exactly.
func TestEntryLayout(t *testing.T) {
	const head = unsafe.Sizeof(Entry{})
	if head != 48 {
		t.Fatalf("Entry is %d bytes, want 48", head)
	}
	variants := []struct {
		size, keyAt uintptr
	}{
		{unsafe.Sizeof(entry16{}), unsafe.Offsetof(entry16{}.k)},
		{unsafe.Sizeof(entry32{}), unsafe.Offsetof(entry32{}.k)},
		{unsafe.Sizeof(entry48{}), unsafe.Offsetof(entry48{}.k)},
		{unsafe.Sizeof(entry64{}), unsafe.Offsetof(entry64{}.k)},
		{unsafe.Sizeof(entry80{}), unsafe.Offsetof(entry80{}.k)},
		{unsafe.Sizeof(entry96{}), unsafe.Offsetof(entry96{}.k)},
		{unsafe.Sizeof(entry128{}), unsafe.Offsetof(entry128{}.k)},
		{unsafe.Sizeof(entry160{}), unsafe.Offsetof(entry160{}.k)},
		{unsafe.Sizeof(entry208{}), unsafe.Offsetof(entry208{}.k)},
	}
	// Go's size classes from 64 to 256 bytes.
	classes := map[uintptr]bool{64: true, 80: true, 96: true, 112: true, 128: true, 144: true,
		160: true, 176: true, 192: true, 208: true, 224: true, 240: true, 256: true}
	for _, v := range variants {
		if v.keyAt != head {
			t.Errorf("variant of %d bytes keeps its key at offset %d, want %d", v.size, v.keyAt, head)
		}
		if !classes[v.size] {
			t.Errorf("variant of %d bytes is not a size class", v.size)
		}
	}
}

// Keys of every length around the variants' limits, the empty key and long
// keys, must come back byte for byte and be found again.
func TestInlineKeys(t *testing.T) {
	db := New()
	var keys []string
	for n := 0; n <= 300; n++ {
		k := make([]byte, n)
		for i := range k {
			k[i] = byte(n + i*7)
		}
		keys = append(keys, string(k))
	}
	keys = append(keys, string(make([]byte, 70000))) // beyond uint16
	for i, k := range keys {
		e := db.Set([]byte(k), i, false)
		if e.Key() != k {
			t.Fatalf("key of length %d comes back as length %d", len(k), len(e.Key()))
		}
	}
	for i, k := range keys {
		e := db.Peek([]byte(k))
		if e == nil || e.Val != i || e.Key() != k {
			t.Fatalf("key of length %d not found again", len(k))
		}
	}
	if db.Len() != len(keys) {
		t.Fatalf("Len %d, want %d", db.Len(), len(keys))
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
