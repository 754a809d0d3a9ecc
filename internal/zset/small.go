package zset

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
	"sync"
	"unsafe"
)

// The small encoding ("listpack") is one []byte:
//
//	count  uvarint
//	entry* sorted by (score, member bytes)
//
//	entry  = header score body
//	header = uvarint(k<<1 | intScore)
//	score  = zigzag varint of the integer score   if intScore
//	       | 8 bytes, little endian float64 bits   otherwise
//	body   = the member's k-3 bytes                if k >= 3 (raw)
//	       | zigzag varint(dd) tail                if k < 3 (packed)
//	tail   = 4 bytes, big endian                   k = 0: ":" and 8 lowercase hex digits
//	       | uvarint(seq)                          k = 1: "-" and a canonical decimal uint64
//	       | uvarint(len(rest)) rest               k = 2: any other rest, even empty
//
// A packed member is a canonical decimal int64 D (the longest run of
// digits after an optional '-'; no '+', no leading zero but "0" itself,
// no "-0") followed by its tail, at most maxPacked bytes in all. dd is
// D - score when the score is stored as an integer (rate limiters stamp
// members with the score's millisecond timestamp, so dd is 0 or tiny),
// else D. A member is packed exactly when it has that form, dd does not
// overflow and the packed entry is shorter than the raw one: a function
// of (member, score), so each entry has one representation, and a member
// query is parsed once and matched against packed entries by (kind, D,
// tail) without decoding them (raw entries compare bytes).
//
// The count is a uvarint rather than a fixed uint32: one byte up to 127
// entries (the default limit is 128), so 3 bytes less per set, and still
// any count CONFIG SET allows. When its length changes (at 128, 16384,
// ...) the entries move by a byte: one memmove, as any insertion costs.
//
// Integer scores of magnitude up to 2^53 take the varint form: a
// millisecond timestamp such as 1700000000000 is 6 bytes. As in Redis
// (whose listpack stores such a score as the integer 0), -0 is stored as
// 0.
//
// Measured by TestSmallEncodingSize and, before this encoding (raw
// members, a 4-byte count), the same sets on the previous version: 5
// members, scores their millisecond timestamps (1764470000123...); bytes
// per entry, the whole []byte, and its capacity (what MemoryUsage counts,
// besides the 32-byte Set):
//
//	member                        before              now
//	"1764470000123:0a1b2c3d"      29 B, 149 B, 176    12 B, 61 B, 64
//	  score 3 ms off              29 B, 149 B, 176    12 B, 61 B, 64
//	"1764470000123-4194304"       28 B, 144 B, 144    12 B, 61 B, 64
//	"1764470000123:0a1b2c3d#2"    31 B, 159 B, 192    20 B, 101 B, 128
//
// What a whole rate-limit key costs (entry, key, set, expiry) is measured
// by bench.BenchmarkLiveBytesPerUser and workload 4 of go run ./bench.

const (
	kindHex  = 0 // D ":" 8 lowercase hex digits
	kindSeq  = 1 // D "-" canonical decimal uint64
	kindTail = 2 // D and any other rest
	kindRaw  = 3 // not packed; header k = len(member) + kindRaw
)

// maxPacked bounds the members considered for packing, so a decoded
// member always fits a fixed buffer (the longest hex or seq form is 41
// bytes).
const maxPacked = 64

// firstEntry is the offset of the first entry of lp (0 when lp is empty,
// and so at its end).
func firstEntry(lp []byte) int {
	n := 0
	for n < len(lp) {
		n++
		if lp[n-1] < 0x80 {
			break
		}
	}
	return n
}

// smallCount is the number of entries.
func (s *Set) smallCount() int {
	lp := s.lp()
	if len(lp) == 0 {
		return 0
	}
	if lp[0] < 0x80 {
		return int(lp[0])
	}
	v, _ := binary.Uvarint(lp)
	return int(v)
}

// setSmallCount stores the count, moving the entries when the count's
// length changes (crossing 128, 16384, ...). Offsets into lp taken before
// are invalid afterwards.
func (s *Set) setSmallCount(n int) {
	old := firstEntry(s.lp())
	nl := uvarintLen(uint64(n))
	if nl != old {
		size := len(s.lp())
		if nl > old {
			if size+nl-old > cap(s.lp()) {
				s.grow(size + nl - old)
			}
			s.setLP(s.lp()[:size+nl-old])
		}
		copy(s.lp()[nl:], s.lp()[old:size])
		s.setLP(s.lp()[:size+nl-old])
	}
	binary.PutUvarint(s.lp(), uint64(n))
}

// intScore reports whether f is stored as an integer.
func intScore(f float64) (int64, bool) {
	if f >= -(1<<53) && f <= 1<<53 && f == math.Trunc(f) {
		return int64(f), true
	}
	return 0, false
}

func uvarintLen(v uint64) int {
	// (bits*9 + 64) / 64 is ceil(bits/7) for bits in 1..64, and 1 for 0.
	return (bits.Len64(v)*9 + 64) / 64
}

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

func unzigzag(v uint64) int64 { return int64(v>>1) ^ -int64(v&1) }

// parsed is a member split as the packed forms see it.
type parsed struct {
	kind int    // kindRaw: the member has no packed form
	d    int64  // D
	t    uint64 // kindHex: the hex digits' value; kindSeq: the number
	rest string // kindTail: what follows D
}

// parseMember splits member into D and its tail, if it has a packed form.
// It runs once per lookup or insertion, so it avoids strconv: one pass
// over the digits, a table for the hex digits.
func parseMember(m string) (p parsed) {
	p.kind = kindRaw
	if len(m) == 0 || len(m) > maxPacked {
		return p
	}
	i := 0
	if m[0] == '-' {
		i = 1
	}
	var u uint64
	j := i
	for ; j < len(m); j++ {
		c := m[j] - '0'
		if c > 9 {
			break
		}
		u = u*10 + uint64(c) // wraps past 20 digits, which are rejected
	}
	nd := j - i
	// 19 digits hold every int64; more cannot be canonical.
	if nd == 0 || nd > 19 || (m[i] == '0' && (nd > 1 || i == 1)) {
		return p
	}
	if i == 1 {
		if u > 1<<63 {
			return p
		}
		p.d = int64(-u) // -2^63 wraps to itself
	} else {
		if u > math.MaxInt64 {
			return p
		}
		p.d = int64(u)
	}
	tail := m[j:]
	if len(tail) == 9 && tail[0] == ':' {
		h := &hexVal
		bad := h[tail[1]] | h[tail[2]] | h[tail[3]] | h[tail[4]] | h[tail[5]] | h[tail[6]] | h[tail[7]] | h[tail[8]]
		if bad&0x10 == 0 {
			p.kind = kindHex
			p.t = uint64(h[tail[1]])<<28 | uint64(h[tail[2]])<<24 | uint64(h[tail[3]])<<20 | uint64(h[tail[4]])<<16 |
				uint64(h[tail[5]])<<12 | uint64(h[tail[6]])<<8 | uint64(h[tail[7]])<<4 | uint64(h[tail[8]])
			return p
		}
	} else if len(tail) >= 2 && len(tail) <= 21 && tail[0] == '-' && (tail[1] != '0' || len(tail) == 2) &&
		(len(tail) < 21 || tail[1:] <= "18446744073709551615") {
		var v uint64
		k := 1
		for ; k < len(tail); k++ {
			c := tail[k] - '0'
			if c > 9 {
				break
			}
			v = v*10 + uint64(c) // at most MaxUint64, checked above
		}
		if k == len(tail) {
			p.kind, p.t = kindSeq, v
			return p
		}
	}
	p.kind, p.rest = kindTail, tail
	return p
}

// hexVal maps a lowercase hex digit to its value, anything else to 0x10.
var hexVal = func() (t [256]uint8) {
	for i := range t {
		t[i] = 0x10
	}
	for i := 0; i < 16; i++ {
		t[hexDigits[i]] = uint8(i)
	}
	return t
}()

// layout decides how (member, score) is stored; score is normalised (no
// -0). It returns the entry's size and, if packed, dd.
func layout(member string, p *parsed, score float64) (size int, dd int64, packed bool) {
	v, isInt := intScore(score)
	ss := 8
	if isInt {
		ss = uvarintLen(zigzag(v))
	}
	raw := uvarintLen(uint64(len(member)+kindRaw)<<1) + len(member)
	if p.kind == kindRaw {
		return ss + raw, 0, false
	}
	dd = p.d
	if isInt {
		dd = p.d - v
		if (v > 0 && dd > p.d) || (v < 0 && dd < p.d) {
			return ss + raw, 0, false // overflow
		}
	}
	n := 1 + uvarintLen(zigzag(dd)) // header k < 3: one byte
	switch p.kind {
	case kindHex:
		n += 4
	case kindSeq:
		n += uvarintLen(p.t)
	default:
		n += uvarintLen(uint64(len(p.rest))) + len(p.rest)
	}
	if n < raw {
		return ss + n, dd, true
	}
	return ss + raw, 0, false
}

// putEntry encodes an entry into dst, which has exactly its size, as
// layout said.
func putEntry(dst []byte, member string, p *parsed, score float64, dd int64, packed bool) {
	v, isInt := intScore(score)
	k := uint64(len(member) + kindRaw)
	if packed {
		k = uint64(p.kind)
	}
	h := k << 1
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
	if !packed {
		copy(dst[i:], member)
		return
	}
	i += binary.PutUvarint(dst[i:], zigzag(dd))
	switch p.kind {
	case kindHex:
		binary.BigEndian.PutUint32(dst[i:], uint32(p.t))
	case kindSeq:
		binary.PutUvarint(dst[i:], p.t)
	default:
		i += binary.PutUvarint(dst[i:], uint64(len(p.rest)))
		copy(dst[i:], p.rest)
	}
}

// entry is a decoded entry.
type entry struct {
	score  float64
	kind   int
	d      int64  // packed: D
	t      uint64 // kindHex, kindSeq: as in parsed
	ms, me int    // kindRaw: the member lp[ms:me]; kindTail: the rest
	next   int    // the next entry's offset
}

// varintAt is uvarintAt with the one-byte case inline.
func varintAt(lp []byte, off int) (uint64, int) {
	if b := lp[off]; b < 0x80 {
		return uint64(b), 1
	}
	return uvarintAt(lp, off)
}

// read decodes the entry at off.
func (e *entry) read(lp []byte, off int) {
	h, n := varintAt(lp, off)
	off += n
	var iv int64
	if h&1 != 0 {
		v, n := uvarintAt(lp, off)
		off += n
		iv = unzigzag(v)
		e.score = float64(iv)
	} else {
		e.score = math.Float64frombits(binary.LittleEndian.Uint64(lp[off:]))
		off += 8
	}
	k := h >> 1
	if k >= kindRaw {
		e.kind, e.ms, e.me, e.next = kindRaw, off, off+int(k-kindRaw), off+int(k-kindRaw)
		return
	}
	e.kind = int(k)
	v, n := varintAt(lp, off)
	off += n
	e.d = unzigzag(v) + iv // iv is 0 for a float score
	switch k {
	case kindHex:
		e.t = uint64(binary.BigEndian.Uint32(lp[off:]))
		e.next = off + 4
	case kindSeq:
		e.t, n = varintAt(lp, off)
		e.next = off + n
	default:
		l, n := varintAt(lp, off)
		e.ms = off + n
		e.me = e.ms + int(l)
		e.next = e.me
	}
}

// entryScore decodes the score of the entry at off and where the next
// entry starts, without decoding the member.
func entryScore(lp []byte, off int) (score float64, next int) {
	h, n := varintAt(lp, off)
	off += n
	if h&1 != 0 {
		v, n := uvarintAt(lp, off)
		off += n
		score = float64(unzigzag(v))
	} else {
		score = math.Float64frombits(binary.LittleEndian.Uint64(lp[off:]))
		off += 8
	}
	return score, skipBody(lp, off, h>>1)
}

// entryNext is the offset of the entry after the one at off.
func entryNext(lp []byte, off int) int {
	h, n := varintAt(lp, off)
	off += n
	if h&1 != 0 {
		for lp[off] >= 0x80 {
			off++
		}
		off++
	} else {
		off += 8
	}
	return skipBody(lp, off, h>>1)
}

// skipBody is the end of a body of kind k starting at off.
func skipBody(lp []byte, off int, k uint64) int {
	if k >= kindRaw {
		return off + int(k-kindRaw)
	}
	for lp[off] >= 0x80 { // dd
		off++
	}
	off++
	switch k {
	case kindHex:
		return off + 4
	case kindSeq:
		for lp[off] >= 0x80 {
			off++
		}
		return off + 1
	}
	l, n := varintAt(lp, off)
	return off + n + int(l)
}

const hexDigits = "0123456789abcdef"

// appendMember appends the entry's member bytes to dst.
func (e *entry) appendMember(dst, lp []byte) []byte {
	if e.kind == kindRaw {
		return append(dst, lp[e.ms:e.me]...)
	}
	dst = appendInt(dst, e.d)
	switch e.kind {
	case kindHex:
		t := e.t
		dst = append(dst, ':',
			hexDigits[t>>28&15], hexDigits[t>>24&15], hexDigits[t>>20&15], hexDigits[t>>16&15],
			hexDigits[t>>12&15], hexDigits[t>>8&15], hexDigits[t>>4&15], hexDigits[t&15])
	case kindSeq:
		dst = append(dst, '-')
		dst = strconv.AppendUint(dst, e.t, 10)
	default:
		dst = append(dst, lp[e.ms:e.me]...)
	}
	return dst
}

const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
	1e15, 1e16, 1e17, 1e18, 1e19}

// digits is the number of decimal digits of u < 10^19.
func digits(u uint64) int {
	n := bits.Len64(u) * 1233 >> 12 // log10(2) ~ 1233/4096: the digits, or one less
	if u >= pow10[n] {
		n++
	}
	return max(n, 1)
}

// appendInt is strconv.AppendInt(dst, v, 10), written in place when dst
// has room (the decode buffers always do): decoding packed members is
// what visiting them costs.
func appendInt(dst []byte, v int64) []byte {
	u := uint64(v)
	if v < 0 {
		dst = append(dst, '-')
		u = -u
	}
	i := len(dst) + digits(u)
	if i > cap(dst) {
		return strconv.AppendUint(dst, u, 10)
	}
	dst = dst[:i]
	for u >= 100 {
		q := u / 100
		r := (u - q*100) * 2
		i -= 2
		dst[i], dst[i+1] = digitPairs[r], digitPairs[r+1]
		u = q
	}
	if u >= 10 {
		dst[i-2], dst[i-1] = digitPairs[u*2], digitPairs[u*2+1]
	} else {
		dst[i-1] = byte('0' + u)
	}
	return dst
}

// memberIn is the entry's member: a view of lp if raw, else decoded into
// buf.
func (e *entry) memberIn(lp []byte, buf *[maxPacked]byte) []byte {
	if e.kind == kindRaw {
		return lp[e.ms:e.me]
	}
	return e.appendMember(buf[:0], lp)
}

// cmpMember compares the entry's member with member (parsed as p), as
// bytes.
func (e *entry) cmpMember(lp []byte, member string, p *parsed) int {
	if p.kind != kindRaw && e.kind != kindRaw {
		if e.d != p.d {
			if e.d >= 0 && p.d >= 0 && digits(uint64(e.d)) == digits(uint64(p.d)) {
				// The first difference is in the digits, which order
				// as the numbers.
				return cmpOrdered(uint64(e.d), uint64(p.d))
			}
		} else if e.kind == kindHex && p.kind == kindHex {
			// Same digits up to ':'; lowercase hex orders as its value.
			return cmpOrdered(e.t, p.t)
		}
	}
	var buf [maxPacked]byte
	// Not strings.Compare: its assembly would move buf to the heap.
	return cmpOrdered(bstr(e.memberIn(lp, &buf)), member)
}

func cmpOrdered[T uint64 | string](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// scratchPool holds buffers that Visitors see packed members in: a
// Visitor's argument cannot live on the stack (the call is indirect), and
// the pool keeps range calls free of allocation.
var scratchPool = sync.Pool{New: func() any { return new([maxPacked]byte) }}

// scratch lends a call the buffer for the packed members it hands to a
// Visitor, taken at the first one and returned by done. Each member
// overwrites the previous one, hence the Visitor's aliasing rule.
type scratch struct{ buf *[maxPacked]byte }

// member is the entry's member: a view of lp, or decoded into the buffer.
func (sc *scratch) member(lp []byte, e *entry) []byte {
	if e.kind == kindRaw {
		return lp[e.ms:e.me]
	}
	if sc.buf == nil {
		sc.buf = scratchPool.Get().(*[maxPacked]byte)
	}
	return e.memberIn(lp, sc.buf)
}

func (sc *scratch) done() {
	if sc.buf != nil {
		scratchPool.Put(sc.buf)
		sc.buf = nil
	}
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

// matcher finds a member among entries: packed entries by their parsed
// form; raw ones by length, then the last 8 bytes (limiter members share
// long timestamp prefixes), then all.
type matcher struct {
	member string
	p      parsed
	tail   uint64
}

func (m *matcher) init(member string) {
	m.member = member
	m.p = parseMember(member)
	if n := len(member); n >= 8 {
		m.tail = binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(member[n-8:]), 8))
	}
}

func (m *matcher) match(lp []byte, e *entry) bool {
	if e.kind != kindRaw {
		if e.kind != m.p.kind || e.d != m.p.d {
			return false
		}
		if e.kind == kindTail {
			return string(lp[e.ms:e.me]) == m.p.rest
		}
		return e.t == m.p.t
	}
	ms, me := e.ms, e.me
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
	lp := s.lp()
	var mt matcher
	mt.init(member)
	var e entry
	for off := firstEntry(lp); off < len(lp); off = e.next {
		e.read(lp, off)
		if mt.match(lp, &e) {
			return off, e.next, e.score, true
		}
	}
	return 0, 0, 0, false
}

// smallInsertPos is the offset of the first entry ordered after (score,
// member).
func (s *Set) smallInsertPos(member string, p *parsed, score float64) int {
	lp := s.lp()
	off := firstEntry(lp)
	var e entry
	for off < len(lp) {
		sc, next := entryScore(lp, off)
		if sc > score {
			break
		}
		if sc == score {
			if e.read(lp, off); e.cmpMember(lp, member, p) > 0 {
				break
			}
		}
		off = next
	}
	return off
}

// smallInsert inserts a new member (not present, parsed as p) at its
// place, which is off if known (else -1; the end of lp when off ==
// len(lp)).
func (s *Set) smallInsert(member string, p *parsed, score float64, off int) {
	if score == 0 {
		score = 0 // -0 is stored as 0
	}
	sz, dd, packed := layout(member, p, score)
	if s.lp() == nil {
		s.grow(1 + sz)
		s.setLP(append(s.lp()[:0], 0))
		off = 1
	}
	if off < 0 {
		off = s.smallInsertPos(member, p, score)
	}
	n := len(s.lp())
	if n+sz > cap(s.lp()) {
		s.grow(n + sz)
	}
	s.setLP(s.lp()[:n+sz])
	copy(s.lp()[off+sz:], s.lp()[off:n])
	putEntry(s.lp()[off:off+sz], member, p, score, dd, packed)
	s.setSmallCount(s.smallCount() + 1)
}

// smallDelete removes the entries in lp[start:end], count of them.
func (s *Set) smallDelete(start, end, count int) {
	if count == 0 {
		return
	}
	left := s.smallCount() - count
	if left == 0 {
		s.setLP(nil)
		return
	}
	n := copy(s.lp()[start:], s.lp()[end:])
	s.setLP(s.lp()[:start+n])
	s.setSmallCount(left)
	if c := cap(s.lp()); c > 256 && len(s.lp()) < c/4 {
		s.shrink()
	}
}

// grow reallocates lp to hold at least need bytes plus some headroom, the
// capacity rounded up to the allocator's size class.
func (s *Set) grow(need int) {
	c := need + need/8
	nb := append([]byte(nil), make([]byte, c)...)[:len(s.lp())]
	copy(nb, s.lp())
	s.setLP(nb)
}

func (s *Set) shrink() {
	nb := append([]byte(nil), s.lp()...)
	s.setLP(nb)
}

// smallOffsets appends the start offset of every entry to dst.
func (s *Set) smallOffsets(dst []int32) []int32 {
	lp := s.lp()
	for off := firstEntry(lp); off < len(lp); off = entryNext(lp, off) {
		dst = append(dst, int32(off))
	}
	return dst
}
