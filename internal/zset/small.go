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
//	score  = uvarint(score - base)                 if intScore and base exists (a delta)
//	       | zigzag varint of the integer score   if intScore, no base (absolute)
//	       | 8 bytes, little endian float64 bits   otherwise
//	body   = the member's k-6 bytes                if k >= 6 (raw)
//	       | tail                                  if 3 <= k < 6 (packed, dd = 0, kind k-3)
//	       | zigzag varint(dd) tail                if k < 3 (packed, kind k)
//	tail   = 4 bytes, big endian                   kind 0: ":" and 8 lowercase hex digits
//	       | uvarint(seq)                          kind 1: "-" and a canonical decimal uint64
//	       | uvarint(len(rest)) rest               kind 2: any other rest, even empty
//
// A packed member is a canonical decimal int64 D (the longest run of
// digits after an optional '-'; no '+', no leading zero but "0" itself,
// no "-0") followed by its tail, at most maxPacked bytes in all. dd is
// D - score when the score is stored as an integer (rate limiters stamp
// members with the score's millisecond timestamp, so dd is 0 or tiny),
// else D; dd = 0, the limiters' usual case, takes no byte. A member is
// packed exactly when it has that form, dd does not overflow and the
// packed body is shorter than the raw one: a function of (member, score),
// so each entry has one representation, and a member query is parsed
// once and matched against packed entries by (kind, D, tail) without
// decoding them (raw entries compare bytes).
//
// Integer scores of magnitude up to 2^53 take the integer forms (others,
// infinities included, the float form). An entry's base is the previous
// entry's score if that one is stored as an integer; there is none for
// the first entry and after a float-scored one. Entries are sorted, so a
// delta is never negative, and it is at most 2^54: a limiter's
// timestamps within a minute take 1 to 3 bytes, where an absolute
// millisecond timestamp (1700000000000) takes 6. As in Redis (whose
// listpack stores such a score as the integer 0), -0 is stored as 0.
//
// So an entry's bytes depend on its predecessor, and the encoding stays
// canonical (a function of the set's content, which the tests check
// after every operation) because whatever inserts or removes entries
// re-encodes the score of the entry that follows, in the same memmove
// (respliceNext): removing the oldest entries of a window stores the new
// first one absolute. Entries decode only forward, with the base threaded
// through the scan; the reverse walks collect (offset, base) pairs first.
//
// The count is a uvarint rather than a fixed uint32: one byte up to 127
// entries (the default limit is 128), so 3 bytes less per set, and still
// any count CONFIG SET allows. When its length changes (at 128, 16384,
// ...) the entries move by a byte: one memmove, as any insertion costs.
//
// The dd = 0 header kinds cost raw members of 58 to 60 bytes a second
// header byte (the one-byte header ends at k = 63).
//
// Measured by TestSmallEncodingSize: 5 members, timestamps from
// 1764470000123 that many ms apart, scores those timestamps unless said;
// the listpack and its allocation (what MemoryUsage counts, besides the
// Set; the last column's include buf.go's 2-byte header, which pushed the
// #2 row from 80 to 96), before this encoding (raw members, a 4-byte
// count), with packed members and absolute scores, and now:
//
//	member                          gaps         raw          packed      now
//	"1764470000123:0a1b2c3d"        1 ms         149 B, 176   61 B, 64    36 B, 48
//	  same ms                       0                         61 B, 64    36 B, 48
//	  10 s apart                    10 s                      61 B, 64    40 B, 48
//	  across a 60 s window          20,20,20,0 s              61 B, 64    42 B, 48
//	  score 3 ms off                1 ms         149 B, 176   61 B, 64    41 B, 48
//	  score 100 ms off              1 ms                      66 B, 80    46 B, 48
//	"1764470000123-4194304"         1 ms         144 B, 144   61 B, 64    36 B, 48
//	"1764470000123:0a1b2c3d#2"      1 ms         159 B, 192   101 B, 128  76 B, 96
//	"user:1000000000000000x" (raw)  1 ms                      146 B, 176  126 B, 128
//
// What a whole rate-limit key costs (entry, key, set, expiry) is measured
// by bench.BenchmarkLiveBytesPerUser and workload 4 of go run ./bench.

const (
	kindHex  = 0 // D ":" 8 lowercase hex digits
	kindSeq  = 1 // D "-" canonical decimal uint64
	kindTail = 2 // D and any other rest
	kindRaw  = 3 // not packed
)

// Header kinds k (the header is uvarint(k<<1 | intScore)): a packed kind
// with its dd, the same kind + hdrZero when dd is 0 (no dd byte), or
// hdrRaw + the member's length.
const (
	hdrZero = 3
	hdrRaw  = 6
)

// noBase is the base of an entry that follows none or a float-scored one:
// its integer score, if it has one, is stored absolute. Integer scores are
// within ±2^53, so no base equals it.
const noBase = math.MinInt64

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

// scoreVal is what the score field of an integer score v holds after an
// entry of base base: the delta, which sorting makes non-negative (at
// most 2^54), or v itself, zigzagged.
func scoreVal(v, base int64) uint64 {
	if base == noBase {
		return zigzag(v)
	}
	return uint64(v - base)
}

// baseOf is the base an entry of this (normalised) score gives the next.
func baseOf(score float64) int64 {
	if v, ok := intScore(score); ok {
		return v
	}
	return noBase
}

// layout decides how (member, score) is stored after an entry of base
// base; score is normalised (no -0). It returns the entry's size and, if
// packed, dd. Whether it is packed does not depend on base.
func layout(member string, p *parsed, score float64, base int64) (size int, dd int64, packed bool) {
	v, isInt := intScore(score)
	ss := 8
	if isInt {
		ss = uvarintLen(scoreVal(v, base))
	}
	raw := uvarintLen(uint64(len(member)+hdrRaw)<<1) + len(member)
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
	n := 1 // header k < hdrRaw: one byte
	if dd != 0 {
		n += uvarintLen(zigzag(dd))
	}
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
// layout said for the same base.
func putEntry(dst []byte, member string, p *parsed, score float64, dd int64, packed bool, base int64) {
	v, isInt := intScore(score)
	k := uint64(len(member) + hdrRaw)
	if packed {
		k = uint64(p.kind)
		if dd == 0 {
			k += hdrZero
		}
	}
	h := k << 1
	if isInt {
		h |= 1
	}
	i := binary.PutUvarint(dst, h)
	if isInt {
		i += binary.PutUvarint(dst[i:], scoreVal(v, base))
	} else {
		binary.LittleEndian.PutUint64(dst[i:], math.Float64bits(score))
		i += 8
	}
	if !packed {
		copy(dst[i:], member)
		return
	}
	if dd != 0 {
		i += binary.PutUvarint(dst[i:], zigzag(dd))
	}
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
	nb     int64  // the next entry's base
}

// varintAt is uvarintAt with the one-byte case inline.
func varintAt(lp []byte, off int) (uint64, int) {
	if b := lp[off]; b < 0x80 {
		return uint64(b), 1
	}
	return uvarintAt(lp, off)
}

// read decodes the entry at off, whose base is base.
func (e *entry) read(lp []byte, off int, base int64) {
	h, n := varintAt(lp, off)
	off += n
	var iv int64
	if h&1 != 0 {
		v, n := varintAt(lp, off)
		off += n
		if base == noBase {
			iv = unzigzag(v)
		} else {
			iv = base + int64(v)
		}
		e.score, e.nb = float64(iv), iv
	} else {
		e.score, e.nb = math.Float64frombits(binary.LittleEndian.Uint64(lp[off:])), noBase
		off += 8
	}
	k := h >> 1
	if k >= hdrRaw {
		e.kind, e.ms, e.me, e.next = kindRaw, off, off+int(k-hdrRaw), off+int(k-hdrRaw)
		return
	}
	e.d = iv // iv is 0 for a float score
	if k >= hdrZero {
		k -= hdrZero
	} else {
		v, n := varintAt(lp, off)
		off += n
		e.d += unzigzag(v)
	}
	e.kind = int(k)
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

// entryScore decodes the score of the entry at off (of base base), where
// the next entry starts and its base, without decoding the member.
func entryScore(lp []byte, off int, base int64) (score float64, next int, nb int64) {
	h, n := varintAt(lp, off)
	off += n
	if h&1 != 0 {
		v, n := varintAt(lp, off)
		off += n
		if base == noBase {
			nb = unzigzag(v)
		} else {
			nb = base + int64(v)
		}
		score = float64(nb)
	} else {
		score, nb = math.Float64frombits(binary.LittleEndian.Uint64(lp[off:])), noBase
		off += 8
	}
	return score, skipBody(lp, off, h>>1), nb
}

// skipBody is the end of a body of header kind k starting at off.
func skipBody(lp []byte, off int, k uint64) int {
	if k >= hdrRaw {
		return off + int(k-hdrRaw)
	}
	if k >= hdrZero {
		k -= hdrZero
	} else {
		for lp[off] >= 0x80 { // dd
			off++
		}
		off++
	}
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

// smallFind returns the entry of member: its start and end offsets, its
// score, its base and the next entry's.
func (s *Set) smallFind(member string) (start, end int, score float64, base, nb int64, ok bool) {
	lp := s.lp()
	var mt matcher
	mt.init(member)
	var e entry
	b := int64(noBase)
	for off := firstEntry(lp); off < len(lp); off, b = e.next, e.nb {
		e.read(lp, off, b)
		if mt.match(lp, &e) {
			return off, e.next, e.score, b, e.nb, true
		}
	}
	return 0, 0, 0, 0, 0, false
}

// smallInsertPos is the offset of the first entry ordered after (score,
// member), and its base.
func (s *Set) smallInsertPos(member string, p *parsed, score float64) (int, int64) {
	lp := s.lp()
	off := firstEntry(lp)
	b := int64(noBase)
	var e entry
	for off < len(lp) {
		sc, next, nb := entryScore(lp, off, b)
		if sc > score {
			break
		}
		if sc == score {
			if e.read(lp, off, b); e.cmpMember(lp, member, p) > 0 {
				break
			}
		}
		off, b = next, nb
	}
	return off, b
}

// splice replaces lp[a:b] by m bytes (left for the caller to write),
// moving what follows once, and returns the buffer.
func (s *Set) splice(a, b, m int) []byte {
	n := len(s.lp())
	nn := n - (b - a) + m
	if nn > cap(s.lp()) {
		s.grow(nn)
	}
	lp := s.lp()[:max(n, nn)]
	copy(lp[a+m:], lp[b:n])
	lp = lp[:nn]
	s.setLP(lp)
	return lp
}

// respliceNext replaces lp[a:off] and the header and score of the entry at
// off, whose base was ob, by m bytes (left for the caller to write at a)
// and that header and score re-encoded after base nb: what an insertion
// or a removal before the entry does, in one move. The entry's score
// field changes only if the entry's score is an integer, and then maybe
// its size.
func (s *Set) respliceNext(a, off, m int, ob, nb int64) []byte {
	lp := s.lp()
	if off == len(lp) {
		return s.splice(a, off, m)
	}
	h, hn := varintAt(lp, off)
	if h&1 == 0 {
		return s.splice(a, off, m)
	}
	v, vn := varintAt(lp, off+hn)
	iv := int64(v)
	if ob == noBase {
		iv = unzigzag(v)
	} else {
		iv += ob
	}
	nv := scoreVal(iv, nb)
	lp = s.splice(a, off+hn+vn, m+hn+uvarintLen(nv))
	i := a + m + binary.PutUvarint(lp[a+m:], h)
	binary.PutUvarint(lp[i:], nv)
	return lp
}

// smallInsert inserts a new member (not present, parsed as p) at its
// place, which is off if known (else -1; the end of lp when off ==
// len(lp)), where base is the previous entry's base for the new one (the
// caller's scan found both; unused when off is -1).
func (s *Set) smallInsert(member string, p *parsed, score float64, off int, base int64) {
	if score == 0 {
		score = 0 // -0 is stored as 0
	}
	if s.lp() == nil {
		sz, dd, packed := layout(member, p, score, noBase)
		s.grow(1 + sz)
		s.setLP(s.lp()[:1+sz])
		s.lp()[0] = 1
		putEntry(s.lp()[1:], member, p, score, dd, packed, noBase)
		return
	}
	if off < 0 {
		off, base = s.smallInsertPos(member, p, score)
	}
	sz, dd, packed := layout(member, p, score, base)
	lp := s.respliceNext(off, off, sz, base, baseOf(score))
	putEntry(lp[off:off+sz], member, p, score, dd, packed, base)
	s.setSmallCount(s.smallCount() + 1)
}

// smallDelete removes the entries in lp[start:end], count of them; base
// is the first one's base, nb the base of the entry at end.
func (s *Set) smallDelete(start, end, count int, base, nb int64) {
	if count == 0 {
		return
	}
	left := s.smallCount() - count
	if left == 0 {
		s.setLP(nil)
		return
	}
	// The entry that follows now follows base's entry (it is stored
	// absolute if that is none: a removal from the front).
	s.respliceNext(start, end, 0, nb, base)
	s.setSmallCount(left)
	if c := cap(s.lp()); c > 256 && len(s.lp()) < c/4 {
		s.shrink()
	}
}

// grow reallocates lp to hold at least need bytes plus some headroom, the
// capacity rounded up to the allocator's size class.
func (s *Set) grow(need int) {
	// The header comes out of the headroom, so the allocation is the
	// size class the buffer alone took before it had one.
	nb := newBuf(max(need, need+need/8-shortHdr))[:len(s.lp())]
	copy(nb, s.lp())
	s.setLP(nb)
}

func (s *Set) shrink() {
	lp := s.lp()
	nb := newBuf(len(lp))[:len(lp)]
	copy(nb, lp)
	s.setLP(nb)
}

// entryPos is where an entry starts and its base, to read it out of order.
type entryPos struct {
	off  int32
	base int64
}

// smallPositions appends the position of every entry to dst, for the
// reverse walks: the bases decode only forward.
func (s *Set) smallPositions(dst []entryPos) []entryPos {
	lp := s.lp()
	b := int64(noBase)
	for off := firstEntry(lp); off < len(lp); {
		dst = append(dst, entryPos{int32(off), b})
		_, off, b = entryScore(lp, off, b)
	}
	return dst
}
