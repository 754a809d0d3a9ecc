package zset

import (
	"encoding/binary"
	"unsafe"
)

// The small encoding's buffer carries its own length and capacity, so that
// a Set is one pointer (8 bytes, the smallest size class) instead of a
// pointer and two counts (16): at a million rate-limit keys that is 8 MB,
// for a header of 2 bytes that the 5-entry windows' 36-46 byte listpacks
// absorb in the 48-byte size class they already took.
//
//	short  tag = size/8-1 (0..31)  len uint8                  the listpack
//	long   tag = tagLong           cap uint32  len uint32     the listpack
//
// A short buffer is one of the allocator's size classes up to 256 bytes,
// all multiples of 8, whose listpack capacity is size-2 (at most 254); a
// long one holds at least 255 bytes of listpack, so the capacity alone
// tells a slice of one kind from the other (setLP). The large encoding
// starts with tagLarge, which no buffer does.
const (
	tagLong  = 0xfe
	tagLarge = 0xff

	shortHdr = 2
	longHdr  = 9
	maxShort = 256 // the largest short buffer
)

// newBuf allocates a buffer for at least n bytes of listpack, with its
// header written, and returns the listpack part, empty.
func newBuf(n int) []byte {
	if n+shortHdr <= maxShort {
		// Appending a make to nil allocates once, rounded up to a size class.
		b := append([]byte(nil), make([]byte, n+shortHdr)...)
		b = b[:cap(b)]
		b[0] = byte(len(b)/8 - 1)
		return b[shortHdr:shortHdr]
	}
	b := append([]byte(nil), make([]byte, n+longHdr)...)
	b = b[:cap(b)]
	b[0] = tagLong
	binary.LittleEndian.PutUint32(b[1:], uint32(len(b)-longHdr))
	return b[longHdr:longHdr]
}

// lp returns the small encoding's buffer (nil when empty or large).
func (s *Set) lp() []byte {
	if s.p == nil {
		return nil
	}
	t := *(*byte)(s.p)
	if t < tagLong {
		n := *(*byte)(unsafe.Add(s.p, 1))
		return unsafe.Slice((*byte)(unsafe.Add(s.p, shortHdr)), (int(t)+1)*8-shortHdr)[:n]
	}
	if t == tagLong {
		h := unsafe.Slice((*byte)(s.p), longHdr)
		c, n := binary.LittleEndian.Uint32(h[1:]), binary.LittleEndian.Uint32(h[5:])
		return unsafe.Slice((*byte)(unsafe.Add(s.p, longHdr)), c)[:n]
	}
	return nil
}

// setLP makes b, a slice from the start of a buffer newBuf made (this
// set's own or a new one), the small encoding; an empty b with no
// capacity empties the set.
func (s *Set) setLP(b []byte) {
	if cap(b) == 0 {
		*s = Set{}
		return
	}
	d := unsafe.Pointer(unsafe.SliceData(b))
	if cap(b) <= maxShort-shortHdr {
		s.p = unsafe.Add(d, -shortHdr)
		*(*byte)(unsafe.Add(s.p, 1)) = byte(len(b))
		return
	}
	s.p = unsafe.Add(d, -longHdr)
	binary.LittleEndian.PutUint32(unsafe.Slice((*byte)(s.p), longHdr)[5:], uint32(len(b)))
}

// bufSize is the small buffer's allocation, header included (0 when empty
// or large).
func (s *Set) bufSize() int {
	lp := s.lp()
	switch {
	case lp == nil:
		return 0
	case cap(lp) <= maxShort-shortHdr:
		return cap(lp) + shortHdr
	default:
		return cap(lp) + longHdr
	}
}
