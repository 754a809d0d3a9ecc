package zset

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// The small encoding ("listpack") is one []byte:
//
//	count  uint32, little endian
//	entry* sorted by (score, member)
//
//	entry  = header score member
//	header = uvarint(len(member)<<1 | intScore)
//	score  = zigzag uvarint of the integer score   if intScore
//	       | 8 bytes, little endian float64 bits   otherwise
//
// Integer scores of magnitude up to 2^53 take the varint form: a
// millisecond timestamp such as 1700000000000 is 6 bytes, so a 22-byte
// member costs 29 bytes. As in Redis (whose listpack stores such a score as
// the integer 0), -0 is stored as 0.

const smallHeader = 4

// smallCount is the number of entries.
func (s *Set) smallCount() int {
	if len(s.lp) < smallHeader {
		return 0
	}
	return int(binary.LittleEndian.Uint32(s.lp))
}

func (s *Set) setSmallCount(n int) { binary.LittleEndian.PutUint32(s.lp, uint32(n)) }

// intScore reports whether f is stored as an integer.
func intScore(f float64) (int64, bool) {
	if f >= -(1<<53) && f <= 1<<53 && f == math.Trunc(f) {
		return int64(f), true
	}
	return 0, false
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// entrySize is the encoded size of an entry.
func entrySize(mlen int, score float64) int {
	h := uint64(mlen) << 1
	n := mlen
	if v, ok := intScore(score); ok {
		n += uvarintLen(zigzag(v))
	} else {
		n += 8
	}
	return n + uvarintLen(h)
}

// putEntry encodes an entry into dst, which has exactly its size.
func putEntry(dst []byte, member string, score float64) {
	v, isInt := intScore(score)
	h := uint64(len(member)) << 1
	if isInt {
		h |= 1
	}
	i := binary.PutUvarint(dst, h)
	if isInt {
		i += binary.PutUvarint(dst[i:], zigzag(v))
	} else {
		binary.LittleEndian.PutUint64(dst[i:], math.Float64bits(score))
		i += 8
	}
	copy(dst[i:], member)
}

// entryAt decodes the entry at off: its score, and its member lp[ms:me];
// the next entry starts at me.
func entryAt(lp []byte, off int) (score float64, ms, me int) {
	h := uint64(lp[off])
	off++
	if h >= 0x80 {
		var n int
		h, n = uvarintAt(lp, off-1)
		off += n - 1
	}
	if h&1 != 0 {
		v, n := uvarintAt(lp, off)
		off += n
		score = float64(int64(v>>1) ^ -int64(v&1))
	} else {
		score = math.Float64frombits(binary.LittleEndian.Uint64(lp[off:]))
		off += 8
	}
	return score, off, off + int(h>>1)
}

// entryMember locates the member of the entry at off without decoding
// the score; the next entry starts at me.
func entryMember(lp []byte, off int) (ms, me int) {
	h := uint64(lp[off])
	off++
	if h >= 0x80 {
		var n int
		h, n = uvarintAt(lp, off-1)
		off += n - 1
	}
	if h&1 != 0 {
		_, n := uvarintAt(lp, off)
		off += n
	} else {
		off += 8
	}
	return off, off + int(h>>1)
}

// uvarintAt decodes the uvarint at lp[off:] (written by this package, so
// well formed), with one 8-byte load when it can.
func uvarintAt(lp []byte, off int) (uint64, int) {
	if off+8 <= len(lp) {
		x := binary.LittleEndian.Uint64(lp[off:])
		if stop := ^x & 0x8080808080808080; stop != 0 {
			n := bits.TrailingZeros64(stop)>>3 + 1
			x &= 1<<(8*uint(n)) - 1 // 0-1 = all ones when n == 8
			v := x&0x7f | x>>1&(0x7f<<7) | x>>2&(0x7f<<14) | x>>3&(0x7f<<21) |
				x>>4&(0x7f<<28) | x>>5&(0x7f<<35) | x>>6&(0x7f<<42) | x>>7&(0x7f<<49)
			return v, n
		}
	}
	return binary.Uvarint(lp[off:])
}

// matcher finds a member among entries: it compares the lengths, then the
// last 8 bytes (limiter members share long timestamp prefixes), then all.
type matcher struct {
	member string
	tail   uint64
}

func newMatcher(member string) matcher {
	m := matcher{member: member}
	if n := len(member); n >= 8 {
		for i := n - 1; i >= n-8; i-- {
			m.tail = m.tail<<8 | uint64(member[i])
		}
	}
	return m
}

func (m *matcher) match(lp []byte, ms, me int) bool {
	if me-ms != len(m.member) {
		return false
	}
	if me-ms >= 8 && binary.LittleEndian.Uint64(lp[me-8:me]) != m.tail {
		return false
	}
	return string(lp[ms:me]) == m.member
}

// smallFind returns the entry of member: its start and end offsets and
// its score.
func (s *Set) smallFind(member string) (start, end int, score float64, ok bool) {
	lp := s.lp
	mt := newMatcher(member)
	for off := smallHeader; off < len(lp); {
		ms, me := entryMember(lp, off)
		if mt.match(lp, ms, me) {
			sc, _, _ := entryAt(lp, off)
			return off, me, sc, true
		}
		off = me
	}
	return 0, 0, 0, false
}

// smallInsertPos is the offset of the first entry ordered after (score,
// member).
func (s *Set) smallInsertPos(member string, score float64) int {
	lp := s.lp
	off := smallHeader
	for off < len(lp) {
		sc, ms, me := entryAt(lp, off)
		if sc > score || (sc == score && string(lp[ms:me]) > member) {
			break
		}
		off = me
	}
	return off
}

// smallInsert inserts a new member (not present) at its place, which is
// off if known (else -1; the end of lp when off == len(lp)).
func (s *Set) smallInsert(member string, score float64, off int) {
	if score == 0 {
		score = 0 // -0 is stored as 0
	}
	if s.lp == nil {
		s.grow(smallHeader + entrySize(len(member), score))
		s.lp = s.lp[:smallHeader]
		off = smallHeader
	}
	if off < 0 {
		off = s.smallInsertPos(member, score)
	}
	sz := entrySize(len(member), score)
	n := len(s.lp)
	if n+sz > cap(s.lp) {
		s.grow(n + sz)
	}
	s.lp = s.lp[:n+sz]
	copy(s.lp[off+sz:], s.lp[off:n])
	putEntry(s.lp[off:off+sz], member, score)
	s.setSmallCount(s.smallCount() + 1)
}

// smallDelete removes the entries in lp[start:end], count of them.
func (s *Set) smallDelete(start, end, count int) {
	if count == 0 {
		return
	}
	n := copy(s.lp[start:], s.lp[end:])
	s.lp = s.lp[:start+n]
	s.setSmallCount(s.smallCount() - count)
	if s.smallCount() == 0 {
		s.lp = nil
		return
	}
	if c := cap(s.lp); c > 256 && len(s.lp) < c/4 {
		s.shrink()
	}
}

// grow reallocates lp to hold at least need bytes plus some headroom, the
// capacity rounded up to the allocator's size class.
func (s *Set) grow(need int) {
	c := need + need/8
	nb := append([]byte(nil), make([]byte, c)...)[:len(s.lp)]
	copy(nb, s.lp)
	s.lp = nb
}

func (s *Set) shrink() {
	nb := append([]byte(nil), s.lp...)
	s.lp = nb
}

// smallOffsets appends the start offset of every entry to dst.
func (s *Set) smallOffsets(dst []int32) []int32 {
	lp := s.lp
	for off := smallHeader; off < len(lp); {
		dst = append(dst, int32(off))
		_, me := entryMember(lp, off)
		off = me
	}
	return dst
}
