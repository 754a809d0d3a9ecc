package hash

import (
	"hash/maphash"
	"math/bits"
	"math/rand/v2"
	"unsafe"
)

// The large encoding ("hashtable") is a chained hash table in the manner of
// Redis's dict, for the same reasons as internal/keyspace's: HSCAN needs a
// cursor that survives inserts, deletes and resizes between calls (the
// reverse-binary cursor, which returns every field present for the whole
// scan), HRANDFIELD an O(1) random pick, and a resize must not stall the
// server, so it moves one bucket per operation. As in keyspace, a field
// added during a resize goes to whichever table owns its bucket, so a field
// is always in exactly one chain.
//
// An entry is 32 bytes plus one allocation holding the field and the value
// together (Redis: a 24-byte dictEntry and two sds allocations).

type entry struct {
	next *entry
	kv   string // field bytes, then value bytes
	flen uint32
	hash uint32 // low bits of the field's hash: enough for any table below 2^32
}

func (e *entry) field() []byte {
	return unsafe.Slice(unsafe.StringData(e.kv), len(e.kv))[:e.flen:e.flen]
}
func (e *entry) value() []byte { return unsafe.Slice(unsafe.StringData(e.kv), len(e.kv))[e.flen:] }

func makeKV(field, value []byte) string {
	b := make([]byte, len(field)+len(value))
	copy(b, field)
	copy(b[len(field):], value)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

const (
	minBuckets = 4  // DICT_HT_INITIAL_SIZE
	minFill    = 10 // percent: a table emptier than this shrinks (HASHTABLE_MIN_FILL)
	entrySize  = int(unsafe.Sizeof(entry{}))
)

type table struct {
	seed      maphash.Seed
	ht        [2][]*entry
	used      [2]int
	rehashIdx int // -1 when not rehashing
	kvBytes   int // allocated bytes of the entries' kv strings
}

func newTable(size int) *table {
	return &table{seed: maphash.MakeSeed(), ht: [2][]*entry{make([]*entry, nextPow2(size))}, rehashIdx: -1}
}

func (t *table) len() int { return t.used[0] + t.used[1] }

func nextPow2(n int) int {
	if n <= minBuckets {
		return minBuckets
	}
	return 1 << bits.Len(uint(n-1))
}

// allocSize approximates the Go allocator's size class for n bytes.
func allocSize(n int) int {
	switch {
	case n == 0:
		return 0
	case n <= 32:
		return (n + 7) / 8 * 8
	case n <= 256:
		return (n + 15) / 16 * 16
	case n <= 512:
		return (n + 31) / 32 * 32
	case n <= 1024:
		return (n + 63) / 64 * 64
	}
	return n + n/16
}

func (t *table) hashOf(field []byte) uint64 { return maphash.Bytes(t.seed, field) }

func (t *table) slot(h uint64) (int, uint64) {
	i := h & uint64(len(t.ht[0])-1)
	if t.rehashIdx >= 0 && i < uint64(t.rehashIdx) {
		return 1, h & uint64(len(t.ht[1])-1)
	}
	return 0, i
}

func (t *table) find(field []byte) *entry {
	if t.rehashIdx >= 0 {
		t.rehash(1)
	}
	h := t.hashOf(field)
	tb, i := t.slot(h)
	for e := t.ht[tb][i]; e != nil; e = e.next {
		if e.hash == uint32(h) && int(e.flen) == len(field) && string(e.field()) == string(field) {
			return e
		}
	}
	return nil
}

// set stores field -> value and reports whether the field existed.
func (t *table) set(field, value []byte) bool {
	if e := t.find(field); e != nil {
		t.kvBytes -= allocSize(len(e.kv))
		e.kv = makeKV(field, value)
		t.kvBytes += allocSize(len(e.kv))
		return true
	}
	t.insert(field, value)
	return false
}

// insert adds a field known to be absent.
func (t *table) insert(field, value []byte) {
	t.expandIfNeeded()
	h := t.hashOf(field)
	tb, i := t.slot(h)
	e := &entry{kv: makeKV(field, value), flen: uint32(len(field)), hash: uint32(h), next: t.ht[tb][i]}
	t.ht[tb][i] = e
	t.used[tb]++
	t.kvBytes += allocSize(len(e.kv))
}

func (t *table) delete(field []byte) bool {
	if t.rehashIdx >= 0 {
		t.rehash(1)
	}
	h := t.hashOf(field)
	tb, i := t.slot(h)
	for p := &t.ht[tb][i]; *p != nil; p = &(*p).next {
		e := *p
		if e.hash == uint32(h) && int(e.flen) == len(field) && string(e.field()) == string(field) {
			*p = e.next
			t.used[tb]--
			t.kvBytes -= allocSize(len(e.kv))
			t.shrinkIfNeeded()
			return true
		}
	}
	return false
}

// expandIfNeeded starts doubling once the table holds as many fields as
// buckets (Redis's _dictExpandIfNeeded).
func (t *table) expandIfNeeded() {
	if t.rehashIdx >= 0 {
		return
	}
	if n := t.used[0]; n >= len(t.ht[0]) {
		t.startResize(nextPow2(n + 1))
	}
}

// shrinkIfNeeded is hashTypeDelete's htNeedsResize/dictResize: a table
// less than 10% full shrinks to the smallest that holds its fields.
func (t *table) shrinkIfNeeded() {
	if t.rehashIdx >= 0 {
		return
	}
	size := len(t.ht[0])
	if size > minBuckets && t.used[0]*100/size < minFill {
		t.startResize(nextPow2(t.used[0]))
	}
}

func (t *table) startResize(size int) {
	if size == len(t.ht[0]) {
		return
	}
	t.ht[1] = make([]*entry, size)
	t.used[1] = 0
	t.rehashIdx = 0
	if t.used[0] == 0 {
		t.finishRehash()
	}
}

// rehash moves n buckets of ht[0] into ht[1], visiting at most 10n empty
// ones (Redis's dictRehash).
func (t *table) rehash(n int) {
	empty := n * 10
	old, nt := t.ht[0], t.ht[1]
	mask := uint64(len(nt) - 1)
	for ; n > 0 && t.used[0] > 0; n-- {
		for old[t.rehashIdx] == nil {
			t.rehashIdx++
			if empty--; empty == 0 {
				return
			}
		}
		for e := old[t.rehashIdx]; e != nil; {
			next := e.next
			i := uint64(e.hash) & mask
			e.next = nt[i]
			nt[i] = e
			t.used[0]--
			t.used[1]++
			e = next
		}
		old[t.rehashIdx] = nil
		t.rehashIdx++
	}
	if t.used[0] == 0 {
		t.finishRehash()
	}
}

func (t *table) finishRehash() {
	t.ht[0], t.ht[1] = t.ht[1], nil
	t.used[0], t.used[1] = t.used[1], 0
	t.rehashIdx = -1
	t.shrinkIfNeeded()
}

// forEach visits every entry until fn returns false; fn must not modify
// the table.
func (t *table) forEach(fn func(e *entry) bool) {
	for tb := range t.ht {
		for _, e := range t.ht[tb] {
			for ; e != nil; e = e.next {
				if !fn(e) {
					return
				}
			}
		}
	}
}

// scan visits the bucket at cursor and returns the next cursor (0 when the
// scan is complete): Redis's dictScan, as keyspace.DB.Scan. During a resize
// the cursor is read against the smaller table and the call also visits
// every bucket of the larger table that the smaller bucket expands to.
func (t *table) scan(cursor uint64, fn func(e *entry)) uint64 {
	v := cursor
	if t.rehashIdx < 0 {
		t0 := t.ht[0]
		m0 := uint64(len(t0) - 1)
		for e := t0[v&m0]; e != nil; e = e.next {
			fn(e)
		}
		v |= ^m0
		return bits.Reverse64(bits.Reverse64(v) + 1)
	}
	t0, t1 := t.ht[0], t.ht[1]
	if len(t0) > len(t1) {
		t0, t1 = t1, t0
	}
	m0, m1 := uint64(len(t0)-1), uint64(len(t1)-1)
	for e := t0[v&m0]; e != nil; e = e.next {
		fn(e)
	}
	for {
		for e := t1[v&m1]; e != nil; e = e.next {
			fn(e)
		}
		v |= ^m1
		v = bits.Reverse64(bits.Reverse64(v) + 1)
		if v&(m0^m1) == 0 {
			break
		}
	}
	return v
}

// random returns a random entry: uniform over non-empty buckets, then over
// the chain, as dictGetRandomKey. The table must not be empty.
func (t *table) random() *entry {
	if t.rehashIdx >= 0 {
		t.rehash(1)
	}
	var e *entry
	if t.rehashIdx >= 0 {
		s0 := uint64(len(t.ht[0]))
		span := s0 + uint64(len(t.ht[1])) - uint64(t.rehashIdx)
		for e == nil {
			h := uint64(t.rehashIdx) + rand.Uint64N(span)
			if h >= s0 {
				e = t.ht[1][h-s0]
			} else {
				e = t.ht[0][h]
			}
		}
	} else {
		mask := uint64(len(t.ht[0]) - 1)
		for e == nil {
			e = t.ht[0][rand.Uint64()&mask]
		}
	}
	l := 0
	for p := e; p != nil; p = p.next {
		l++
	}
	for k := rand.IntN(l); k > 0; k-- {
		e = e.next
	}
	return e
}

// memory is the table's heap bytes: buckets, entries and their strings.
func (t *table) memory() int {
	return int(unsafe.Sizeof(table{})) + 8*(len(t.ht[0])+len(t.ht[1])) + entrySize*t.len() + t.kvBytes
}
