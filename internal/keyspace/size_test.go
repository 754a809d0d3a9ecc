package keyspace

import (
	"runtime"
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
	if at := unsafe.Offsetof(Entry{}.k0); at+headKey != head {
		t.Errorf("the key starts at offset %d, %d bytes before the Entry's end", at, head-at)
	}
	slottedVariants := []struct{ size, keyAt, slotAt, room uintptr }{
		{unsafe.Sizeof(slotted8{}), unsafe.Offsetof(slotted8{}.k), unsafe.Offsetof(slotted8{}.slot), 8},
		{unsafe.Sizeof(slotted24{}), unsafe.Offsetof(slotted24{}.k), unsafe.Offsetof(slotted24{}.slot), 24},
		{unsafe.Sizeof(slotted40{}), unsafe.Offsetof(slotted40{}.k), unsafe.Offsetof(slotted40{}.slot), 40},
		{unsafe.Sizeof(slotted56{}), unsafe.Offsetof(slotted56{}.k), unsafe.Offsetof(slotted56{}.slot), 56},
		{unsafe.Sizeof(slotted72{}), unsafe.Offsetof(slotted72{}.k), unsafe.Offsetof(slotted72{}.slot), 72},
		{unsafe.Sizeof(slotted104{}), unsafe.Offsetof(slotted104{}.k), unsafe.Offsetof(slotted104{}.slot), 104},
		{unsafe.Sizeof(slotted152{}), unsafe.Offsetof(slotted152{}.k), unsafe.Offsetof(slotted152{}.slot), 152},
	}
	for _, v := range slottedVariants {
		if v.keyAt != head || v.slotAt != head+v.room || v.size != v.slotAt+8 || !classes[v.size] {
			t.Errorf("slotted variant of %d bytes: key at %d, slot at %d", v.size, v.keyAt, v.slotAt)
		}
	}
	// The seed's keys ("{t}:ratelimit:ai:user" and 6 digits) and their slot
	// take one 80-byte object.
	if n := len("{t}:ratelimit:ai:user123456"); n > headKey+24 {
		t.Errorf("a %d-byte key does not fit the 80-byte slotted variant", n)
	}
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

// Slotted entries keep keys of every length they take, give each its own
// zeroed slot, and Set clears a slot whose value it replaces.
func TestSlottedEntries(t *testing.T) {
	db := New()
	type handle struct{ p unsafe.Pointer }
	var keys []string
	for n := 0; n <= maxSlotted+3; n++ {
		k := make([]byte, n)
		for i := range k {
			k[i] = byte(n*3 + i)
		}
		keys = append(keys, string(k))
	}
	slots := map[*unsafe.Pointer]bool{}
	for _, k := range keys {
		e := db.SetInSlot([]byte(k))
		if e.Key() != k {
			t.Fatalf("slotted key of length %d comes back as length %d", len(k), len(e.Key()))
		}
		s := e.Slot()
		if (s == nil) != (len(k) > maxSlotted) {
			t.Fatalf("key of length %d: slot %v", len(k), s)
		}
		if s == nil {
			e.Val = []byte(k)
			continue
		}
		if *s != nil || slots[s] {
			t.Fatalf("key of length %d: slot not fresh", len(k))
		}
		slots[s] = true
		// A value that is one pointer, living in the slot.
		buf := []byte(k + "!")
		*s = unsafe.Pointer(&buf[0])
		e.Val = (*handle)(unsafe.Pointer(s))
		if !e.valInSlot() {
			t.Fatalf("key of length %d: value not seen in its slot", len(k))
		}
	}
	runtime.GC() // the values are reachable through the slots only
	for _, k := range keys {
		e := db.Peek([]byte(k))
		if e == nil || e.Key() != k {
			t.Fatalf("slotted key of length %d not found again", len(k))
		}
		if h, ok := e.Val.(*handle); ok {
			if got := unsafe.String((*byte)(h.p), len(k)+1); got != k+"!" {
				t.Fatalf("key of length %d: value %q", len(k), got)
			}
		}
	}
	e := db.Peek([]byte(keys[27]))
	s := e.Slot()
	db.Set([]byte(keys[27]), "other", false)
	if *s != nil || e.Val != "other" {
		t.Fatal("Set left the replaced value in the slot")
	}
	if e := db.SetInSlot([]byte(keys[27])); e.Slot() != s || *s != nil {
		t.Fatal("SetInSlot on an existing key did not keep its emptied slot")
	}
	if e := db.Add([]byte("plain"), 1); e.Slot() != nil {
		t.Fatal("a plain entry has a slot")
	}
	check(t, db, len(keys)+1)
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
