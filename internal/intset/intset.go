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
// bytes plus a little slack for growth.
//
// A Set is not safe for concurrent use. The zero value is an empty set of
// 16-bit width.
package intset

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
)

// Widths, in bytes per element.
const (
	Width16 = 2
	Width32 = 4
	Width64 = 8
)

// Set is an intset.
type Set struct {
	w uint8  // element width in bytes; 0 means Width16 (the zero value)
	b []byte // len(b) == Len()*width
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
func (s *Set) Len() int { return len(s.b) / s.Width() }

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
func (s *Set) At(i int) int64 { return get(s.b, s.Width(), i) }

// search finds v: its position if present, else where it would go.
func (s *Set) search(v int64) (int, bool) {
	w := s.Width()
	n := len(s.b) / w
	if n == 0 {
		return 0, false
	}
	// The ends first: appends of growing values (ids, timestamps) are the
	// common case and need no search.
	if v > get(s.b, w, n-1) {
		return n, false
	}
	if v < get(s.b, w, 0) {
		return 0, false
	}
	lo, hi := 0, n-1
	for lo <= hi {
		mid := int(uint(lo+hi) >> 1)
		cur := get(s.b, w, mid)
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

// grow makes room for extra more bytes, with a sixteenth of slack so a run
// of additions does not copy the array each time.
func (s *Set) grow(extra int) {
	need := len(s.b) + extra
	if need <= cap(s.b) {
		s.b = s.b[:need]
		return
	}
	nb := make([]byte, need, need+need/16)
	copy(nb, s.b)
	s.b = nb
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
	w := s.Width()
	n := len(s.b)
	s.grow(w)
	copy(s.b[(pos+1)*w:], s.b[pos*w:n])
	put(s.b, w, pos, v)
	return true
}

// upgradeAndAdd re-encodes the set at width nw and adds v, which needs that
// width and therefore lies beyond every member: first if negative, last if
// not.
func (s *Set) upgradeAndAdd(v int64, nw uint8) {
	ow, w := s.Width(), int(nw)
	n := len(s.b) / ow
	nb := make([]byte, (n+1)*w, (n+1)*w+(n+1)*w/16)
	off := 0
	if v < 0 {
		off = 1
		put(nb, w, 0, v)
	} else {
		put(nb, w, n, v)
	}
	for i := range n {
		put(nb, w, i+off, get(s.b, ow, i))
	}
	s.w, s.b = nw, nb
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
	w := s.Width()
	copy(s.b[pos*w:], s.b[(pos+1)*w:])
	s.b = s.b[:len(s.b)-w]
	if cap(s.b) > 64 && len(s.b) < cap(s.b)/2 {
		s.b = append([]byte(nil), s.b...) // give back what a big removal freed
	}
	return true
}

// Random returns a uniformly chosen member; the set must not be empty.
func (s *Set) Random() int64 { return s.At(rand.IntN(s.Len())) }

// Each calls fn for the members in ascending order until it returns false.
// fn must not modify the set.
func (s *Set) Each(fn func(v int64) bool) {
	w := s.Width()
	for i := range len(s.b) / w {
		if !fn(get(s.b, w, i)) {
			return
		}
	}
}

// Clone returns an independent copy with the same width.
func (s *Set) Clone() *Set {
	return &Set{w: s.w, b: append([]byte(nil), s.b...)}
}

// BlobLen is the size of Redis's intset blob for this set: an 8-byte
// header (encoding and length) and the elements.
func (s *Set) BlobLen() int { return 8 + len(s.b) }

// MemoryUsage is the heap bytes the set holds beyond its struct: the
// element array's capacity.
func (s *Set) MemoryUsage() int { return cap(s.b) }
