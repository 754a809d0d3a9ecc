// Package hash is limitkv's hash (field -> value map of binary strings), in
// the two encodings of Redis 7.0:
//
//   - small ("listpack"): one []byte of field/value pairs in insertion
//     order (small.go), used while Len() <= Limits.Entries and no field or
//     value has been longer than Limits.Value bytes. Iteration is in
//     insertion order, as Redis's, so HGETALL of a small hash answers what
//     Redis answers.
//   - large ("hashtable"): a chained hash table with incremental resizing
//     and Redis's reverse-binary scan cursor (table.go).
//
// A hash starts small and converts when a write crosses a threshold, never
// back, as in Redis. The conversion rules are t_hash.c's: TryConversion
// (hashTypeTryConversion) looks at a command's arguments before it writes,
// and Set (hashTypeSet) converts for a field or value over the length
// limit and after an insertion over the entry limit.
//
// Complexity, n = Len(): small: every lookup and write O(n) (one pass and
// at most one memmove); large: O(1) expected, plus one bucket of any resize
// in progress.
//
// A Hash is not safe for concurrent use.
package hash

import (
	"math"
	"math/rand/v2"
	"unsafe"
)

// Limits are the small encoding's thresholds, Redis's
// hash-max-listpack-entries (Entries) and hash-max-listpack-value (Value).
// They belong to the server, so every call that may convert takes them.
type Limits struct {
	Entries int64
	Value   int64
}

// DefaultLimits are Redis 7.0's defaults (config.c): 512 pairs, 64 bytes.
func DefaultLimits() Limits { return Limits{Entries: 512, Value: 64} }

// maxSmallBytes is the listpack safety limit (LISTPACK_MAX_SAFETY_SIZE, 1 GiB):
// a write that could grow the buffer beyond it converts first, as
// lpSafeToAdd makes Redis do. A variable so tests can lower it.
var maxSmallBytes = 1 << 30

// Hash is a hash. The zero value is an empty small hash.
//
// A Hash is 16 bytes, since one is allocated per key (Redis's robj is 16
// too): a pointer to either the small encoding's buffer or the table, and
// the buffer's length and capacity, the capacity largeCap marking a table.
type Hash struct {
	p    unsafe.Pointer
	n, c uint32
}

const largeCap = math.MaxUint32

// lp returns the small encoding's buffer (nil when empty or large).
func (h *Hash) lp() []byte {
	if h.c == largeCap || h.p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(h.p), h.c)[:h.n]
}

func (h *Hash) setLP(b []byte) {
	if cap(b) == 0 {
		h.p, h.n, h.c = nil, 0, 0
		return
	}
	h.p, h.n, h.c = unsafe.Pointer(unsafe.SliceData(b)), uint32(len(b)), uint32(cap(b))
}

// tb returns the large encoding, nil while small.
func (h *Hash) tb() *table {
	if h.c != largeCap {
		return nil
	}
	return (*table)(h.p)
}

func (h *Hash) setTB(t *table) { h.p, h.n, h.c = unsafe.Pointer(t), 0, largeCap }

// New returns an empty hash.
func New() *Hash { return &Hash{} }

// Len is the number of fields (HLEN).
func (h *Hash) Len() int {
	if t := h.tb(); t != nil {
		return t.len()
	}
	n, _ := lpCount(h.lp())
	return n
}

// Encoding is what OBJECT ENCODING says.
func (h *Hash) Encoding() string {
	if h.c == largeCap {
		return "hashtable"
	}
	return "listpack"
}

// Get returns field's value. The result aliases the hash's memory or buf
// (an integer-encoded value is formatted into it; 20 bytes suffice): it is
// valid until the hash is next modified.
func (h *Hash) Get(field, buf []byte) ([]byte, bool) {
	if t := h.tb(); t != nil {
		if e := t.find(field); e != nil {
			return e.value(), true
		}
		return nil, false
	}
	lp := h.lp()
	_, vi, _, ok := lpFind(lp, field)
	if !ok {
		return nil, false
	}
	s, _ := readStr(lp, vi)
	return s.bytes(buf), true
}

// Exists reports whether field is present.
func (h *Hash) Exists(field []byte) bool {
	if t := h.tb(); t != nil {
		return t.find(field) != nil
	}
	_, _, _, ok := lpFind(h.lp(), field)
	return ok
}

// ValueLen is the length of field's value, 0 when absent (HSTRLEN).
func (h *Hash) ValueLen(field []byte) int {
	if t := h.tb(); t != nil {
		if e := t.find(field); e != nil {
			return len(e.kv) - int(e.flen)
		}
		return 0
	}
	lp := h.lp()
	_, vi, _, ok := lpFind(lp, field)
	if !ok {
		return 0
	}
	s, _ := readStr(lp, vi)
	return s.textLen()
}

// TryConversion is hashTypeTryConversion: a small hash about to receive
// args (fields and values) converts if any is longer than lim.Value, or if
// together they could take the buffer past the safety limit.
func (h *Hash) TryConversion(args [][]byte, lim Limits) {
	if h.c == largeCap {
		return
	}
	sum := 0
	for _, a := range args {
		if int64(len(a)) > lim.Value {
			h.convert()
			return
		}
		sum += len(a)
	}
	if int(h.n)+sum > maxSmallBytes {
		h.convert()
	}
}

// Set stores field -> value (both copied) and reports whether the field
// existed. As hashTypeSet, a small hash converts first when field or
// value is longer than lim.Value, and after an insertion that takes it
// over lim.Entries.
func (h *Hash) Set(field, value []byte, lim Limits) bool {
	if h.c != largeCap && (int64(len(field)) > lim.Value || int64(len(value)) > lim.Value ||
		int(h.n)+len(field)+len(value)+20 > maxSmallBytes) {
		h.convert()
	}
	if t := h.tb(); t != nil {
		return t.set(field, value)
	}
	lp, updated := lpSet(h.lp(), field, value)
	h.setLP(lp)
	if !updated && int64(h.Len()) > lim.Entries {
		h.convert()
	}
	return updated
}

// Delete removes field and reports whether it was present. The encoding
// stays, as in Redis.
func (h *Hash) Delete(field []byte) bool {
	if t := h.tb(); t != nil {
		return t.delete(field)
	}
	lp, ok := lpDelete(h.lp(), field)
	h.setLP(lp)
	return ok
}

// convert turns a small hash into a table presized for its fields, as
// hashTypeConvertListpack does.
func (h *Hash) convert() {
	t := newTable(h.Len())
	h.ForEach(func(f, v []byte) bool {
		t.insert(f, v)
		return true
	})
	h.setTB(t)
}

// Visitor receives a field and its value. Both alias the hash's memory or
// a decode buffer that the next pair overwrites: they are valid only until
// the Visitor returns, must not be modified, and the hash must not be
// modified during the iteration. Return false to stop.
type Visitor func(field, value []byte) bool

// ForEach visits every pair: in insertion order for a small hash, in table
// order for a large one.
func (h *Hash) ForEach(fn Visitor) {
	if t := h.tb(); t != nil {
		t.forEach(func(e *entry) bool { return fn(e.field(), e.value()) })
		return
	}
	var bufs [2][20]byte
	lp := h.lp()
	n, i := lpCount(lp)
	for range n {
		f, vi := readStr(lp, i)
		v, next := readStr(lp, vi)
		if !fn(f.bytes(bufs[0][:]), v.bytes(bufs[1][:])) {
			return
		}
		i = next
	}
}

// Scan visits part of the hash and returns the next cursor, 0 when done
// (HSCAN). A small hash is visited whole whatever the cursor, as Redis
// does. For a large one the cursor is Redis's reverse-binary one: every
// field present from the first call to the last is visited at least once,
// even across resizes. fn must not modify the hash.
func (h *Hash) Scan(cursor uint64, fn func(field, value []byte)) uint64 {
	t := h.tb()
	if t == nil {
		h.ForEach(func(f, v []byte) bool { fn(f, v); return true })
		return 0
	}
	return t.scan(cursor, func(e *entry) { fn(e.field(), e.value()) })
}

// Picker draws random pairs; it reuses its buffers between draws. A
// Picker is valid until the hash is modified.
type Picker struct {
	h    *Hash
	offs []int // small: offsets of the fields
	bufs [2][20]byte
}

// NewPicker returns a Picker for a non-empty hash.
func (h *Hash) NewPicker() *Picker {
	p := &Picker{h: h}
	if h.c != largeCap {
		p.offs = lpPairs(h.lp(), nil)
	}
	return p
}

// Random visits one pair drawn uniformly (for the large encoding, a
// random bucket and then a random place in its chain, as Redis).
func (p *Picker) Random(fn Visitor) {
	if t := p.h.tb(); t != nil {
		e := t.random()
		fn(e.field(), e.value())
		return
	}
	p.At(rand.IntN(len(p.offs)), fn)
}

// At visits the i-th pair of a small hash (insertion order).
func (p *Picker) At(i int, fn Visitor) {
	lp := p.h.lp()
	f, vi := readStr(lp, p.offs[i])
	v, _ := readStr(lp, vi)
	fn(f.bytes(p.bufs[0][:]), v.bytes(p.bufs[1][:]))
}

// Clone returns an independent copy with the same encoding (COPY).
func (h *Hash) Clone() *Hash {
	c := &Hash{}
	src := h.tb()
	if src == nil {
		if lp := h.lp(); len(lp) > 0 {
			c.setLP(grow(lp, len(lp)))
		}
		return c
	}
	t := newTable(src.len())
	src.forEach(func(e *entry) bool {
		t.insert(e.field(), e.value())
		return true
	})
	c.setTB(t)
	return c
}

// MemoryUsage estimates the heap bytes the hash holds (MEMORY USAGE, INFO
// used_memory, maxmemory accounting); calibrated by the tests.
func (h *Hash) MemoryUsage() int {
	const hashSize = int(unsafe.Sizeof(Hash{}))
	if t := h.tb(); t != nil {
		return hashSize + t.memory()
	}
	return hashSize + allocSize(int(h.c))
}
