// Package intset is Redis's intset: a sorted array of distinct integers,
// every element stored in the same width (2, 4 or 8 bytes, little endian),
// the narrowest that holds the widest member ever added. Adding a member
// that needs more room re-encodes the whole array once; removing members
// never narrows it, as in Redis, so the width records the history of the
// set and MemoryUsage follows Redis's blob size exactly.
//
// Sorted storage is what makes SMEMBERS of an intset-encoded set list its
// members in ascending order, as Redis does.
//
// Complexity, n = Len(): Find O(log n); Add and Remove O(n) (one memmove,
// binary search for the position); an upgrade O(n). Memory: Len()*Width()
// bytes rounded up to the allocator's size class (an eighth at most).
//
// A Set is not safe for concurrent use. The zero value is an empty set of
// 16-bit width.
package intset

import (
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"unsafe"
)

// Widths, in bytes per element.
const (
	Width16 = 2
	Width32 = 4
	Width64 = 8
)

// Set is an intset: 16 bytes, so that a small set costs no more than in
// Redis. The element array's capacity is not stored: it is always
// capBytes of the bytes in use, which Add and Remove maintain by
// reallocating when that figure changes.
type Set struct {
	p *byte  // the element array (nil when empty)
	n uint32 // members
	w uint8  // element width in bytes; 0 means Width16 (the zero value)
}

// capBytes is the allocation for need bytes of elements: Go's size class
// up to 128 bytes, and above that need rounded up to an eighth of its
// power of two, close to the allocator's classes. A run of additions
// therefore reallocates at most eight times per doubling.
func capBytes(need int) int {
	switch {
	case need == 0:
		return 0
	case need <= 8:
		return 8
	case need <= 128:
		return (need + 15) &^ 15
	}
	unit := 1 << (bits.Len(uint(need)) - 4)
	return (need + unit - 1) &^ (unit - 1)
}

// buf is the element array, len = the bytes in use.
func (s *Set) buf() []byte {
	if s.p == nil {
		return nil
	}
	used := int(s.n) * s.Width()
	return unsafe.Slice(s.p, capBytes(used))[:used]
}

func (s *Set) setBuf(b []byte) {
	s.n = uint32(len(b) / s.Width())
	if cap(b) == 0 {
		s.p = nil
		return
	}
	s.p = unsafe.SliceData(b)
}

// alloc returns a zeroed array of used bytes with the capacity capBytes
// gives.
func alloc(used int) []byte {
	if used == 0 {
		return nil
	}
	return make([]byte, used, capBytes(used))
}

// widthFor is the narrowest width holding v.
func widthFor(v int64) uint8 {
	switch {
	case v < math.MinInt32 || v > math.MaxInt32:
		return Width64
	case v < math.MinInt16 || v > math.MaxInt16:
		return Width32
	}
	return Width16
}

// Width is the current element width in bytes.
func (s *Set) Width() int {
	if s.w == 0 {
		return Width16
	}
	return int(s.w)
}

// Len is the number of members.
func (s *Set) Len() int { return int(s.n) }

func get(b []byte, w int, i int) int64 {
	switch w {
	case Width64:
		return int64(binary.LittleEndian.Uint64(b[i*8:]))
	case Width32:
		return int64(int32(binary.LittleEndian.Uint32(b[i*4:])))
	}
	return int64(int16(binary.LittleEndian.Uint16(b[i*2:])))
}

func put(b []byte, w int, i int, v int64) {
	switch w {
	case Width64:
		binary.LittleEndian.PutUint64(b[i*8:], uint64(v))
	case Width32:
		binary.LittleEndian.PutUint32(b[i*4:], uint32(v))
	default:
		binary.LittleEndian.PutUint16(b[i*2:], uint16(v))
	}
}

// At returns the member of rank i (0 is the smallest).
func (s *Set) At(i int) int64 { return get(s.buf(), s.Width(), i) }

// search finds v: its position if present, else where it would go.
func (s *Set) search(v int64) (int, bool) {
	w, b := s.Width(), s.buf()
	n := int(s.n)
	if n == 0 {
		return 0, false
	}
	// The ends first: appends of growing values (ids, timestamps) are the
	// common case and need no search.
	if v > get(b, w, n-1) {
		return n, false
	}
	if v < get(b, w, 0) {
		return 0, false
	}
	lo, hi := 0, n-1
	for lo <= hi {
		mid := int(uint(lo+hi) >> 1)
		cur := get(b, w, mid)
		switch {
		case v > cur:
			lo = mid + 1
		case v < cur:
			hi = mid - 1
		default:
			return mid, true
		}
	}
	return lo, false
}

// Find reports whether v is a member.
func (s *Set) Find(v int64) bool {
	if widthFor(v) > uint8(s.Width()) {
		return false // wider than anything the set ever held
	}
	_, ok := s.search(v)
	return ok
}

// Add inserts v and reports whether it was absent.
func (s *Set) Add(v int64) bool {
	if vw := widthFor(v); vw > uint8(s.Width()) {
		s.upgradeAndAdd(v, vw)
		return true
	}
	pos, found := s.search(v)
	if found {
		return false
	}
	w, b := s.Width(), s.buf()
	n := len(b)
	if n+w <= cap(b) {
		b = b[:n+w]
	} else {
		nb := alloc(n + w)
		copy(nb, b)
		b = nb
	}
	copy(b[(pos+1)*w:], b[pos*w:n])
	put(b, w, pos, v)
	s.setBuf(b)
	return true
}

// upgradeAndAdd re-encodes the set at width nw and adds v, which needs that
// width and therefore lies beyond every member: first if negative, last if
// not.
func (s *Set) upgradeAndAdd(v int64, nw uint8) {
	ow, w, ob := s.Width(), int(nw), s.buf()
	n := int(s.n)
	nb := alloc((n + 1) * w)
	off := 0
	if v < 0 {
		off = 1
		put(nb, w, 0, v)
	} else {
		put(nb, w, n, v)
	}
	for i := range n {
		put(nb, w, i+off, get(ob, ow, i))
	}
	s.w = nw
	s.setBuf(nb)
}

// Remove deletes v and reports whether it was present. The width stays.
func (s *Set) Remove(v int64) bool {
	if widthFor(v) > uint8(s.Width()) {
		return false
	}
	pos, found := s.search(v)
	if !found {
		return false
	}
	w, b := s.Width(), s.buf()
	copy(b[pos*w:], b[(pos+1)*w:])
	b = b[:len(b)-w]
	if capBytes(len(b)) < cap(b) {
		// Keep the invariant (and give memory back as the set shrinks).
		nb := alloc(len(b))
		copy(nb, b)
		b = nb
	}
	s.setBuf(b)
	return true
}

// Random returns a uniformly chosen member; the set must not be empty.
func (s *Set) Random() int64 { return s.At(rand.IntN(s.Len())) }

// Each calls fn for the members in ascending order until it returns false.
// fn must not modify the set.
func (s *Set) Each(fn func(v int64) bool) {
	w, b := s.Width(), s.buf()
	for i := range int(s.n) {
		if !fn(get(b, w, i)) {
			return
		}
	}
}

// Clone returns an independent copy with the same width.
func (s *Set) Clone() *Set {
	c := &Set{w: s.w}
	b := alloc(int(s.n) * s.Width())
	copy(b, s.buf())
	c.setBuf(b)
	return c
}

// BlobLen is the size of Redis's intset blob for this set: an 8-byte
// header (encoding and length) and the elements.
func (s *Set) BlobLen() int { return 8 + int(s.n)*s.Width() }

// MemoryUsage is the heap bytes the set holds beyond its struct: the
// element array's allocation.
func (s *Set) MemoryUsage() int { return capBytes(int(s.n) * s.Width()) }
