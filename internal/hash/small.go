package hash

import (
	"bytes"
	"encoding/binary"
	"strconv"

	"github.com/limitkv/limitkv/internal/num"
)

// The small encoding ("listpack") is one []byte:
//
//	count  uvarint                     number of field/value pairs
//	pair*  field value                 in insertion order, as Redis's listpack
//
//	string = uvarint(len<<1) bytes     raw
//	       | byte((v+1)<<1 | 1)        a small integer v, 0 <= v <= 126
//	       | 0x01 varint(v)            any other integer
//
// where an integer is a canonical decimal int64 (string2ll's form: no '+',
// no leading zero, no "-0"). A string is stored as an integer exactly when
// it has that form, so each string has one representation, and decoding
// formats it back to the very bytes it came from. Raw headers are even
// (the low bit of len<<1), integer headers odd. The integer forms are never
// longer than the raw one (a decimal of L digits needs at most
// 1+ceil((3.33L+1)/7) <= L+1 bytes, and 0..126 one byte), so a string
// costs at most its length plus one byte for lengths up to 63, where
// Redis's listpack takes its length plus two (encoding and back-length),
// and integers less than Redis's 2 to 10 bytes: a counter or a bucket
// number below 127 takes 1 byte (2 in a listpack), a 13-digit millisecond
// timestamp 7 (10).
//
// Replacing a value rewrites it in place (one memmove when its length
// changes), so the pair keeps its position, as lpReplace does; HGETALL of a
// small hash is therefore in Redis's order. Lookups are linear, as in Redis:
// the default limit is 512 pairs. Entries decode only forward.

// intHdr is the header byte of a varint-encoded integer; other odd bytes
// are small integers.
const (
	intHdr   = 0x01
	maxSmall = 126
)

func smallHdr(v int64) byte { return byte((v+1)<<1 | 1) }

// canonInt reports whether b is a canonical decimal int64 and its value.
func canonInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	return num.ParseInt(b)
}

// encLen is the encoded size of b.
func encLen(b []byte) int {
	if v, ok := canonInt(b); ok {
		if 0 <= v && v <= maxSmall {
			return 1
		}
		return 1 + varintLen(v)
	}
	return uvarintLen(uint64(len(b))<<1) + len(b)
}

func varintLen(v int64) int {
	u := uint64(v) << 1
	if v < 0 {
		u = ^u
	}
	return uvarintLen(u)
}

func uvarintLen(u uint64) int {
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}

// appendStr appends b's encoding.
func appendStr(dst, b []byte) []byte {
	if v, ok := canonInt(b); ok {
		if 0 <= v && v <= maxSmall {
			return append(dst, smallHdr(v))
		}
		dst = append(dst, intHdr)
		return binary.AppendVarint(dst, v)
	}
	dst = binary.AppendUvarint(dst, uint64(len(b))<<1)
	return append(dst, b...)
}

// str is one decoded string: raw bytes aliasing the buffer, or an integer.
type str struct {
	raw   []byte
	iv    int64
	isInt bool
}

// bytes returns the string's text, formatting an integer into buf.
func (s str) bytes(buf []byte) []byte {
	if s.isInt {
		return strconv.AppendInt(buf[:0], s.iv, 10)
	}
	return s.raw
}

// textLen is the length of the string's text.
func (s str) textLen() int {
	if !s.isInt {
		return len(s.raw)
	}
	var buf [20]byte
	return len(strconv.AppendInt(buf[:0], s.iv, 10))
}

// readStr decodes the string at offset i and returns it with the offset
// of the next one. The buffer is trusted: it is only ever built here.
func readStr(lp []byte, i int) (str, int) {
	if h := lp[i]; h&1 == 1 {
		if h != intHdr {
			return str{iv: int64(h>>1) - 1, isInt: true}, i + 1
		}
		v, n := binary.Varint(lp[i+1:])
		return str{iv: v, isInt: true}, i + 1 + n
	}
	h, n := binary.Uvarint(lp[i:])
	i += n
	l := int(h >> 1)
	return str{raw: lp[i : i+l : i+l]}, i + l
}

// skipStr returns the offset after the string at i.
func skipStr(lp []byte, i int) int {
	if h := lp[i]; h&1 == 1 {
		if h != intHdr {
			return i + 1
		}
		i++
		for lp[i] >= 0x80 {
			i++
		}
		return i + 1
	}
	h, n := binary.Uvarint(lp[i:])
	return i + n + int(h>>1)
}

// query is a field to look for, parsed once so that integer-encoded
// fields compare as numbers without being formatted.
type query struct {
	b     []byte
	iv    int64
	isInt bool
}

func newQuery(b []byte) query {
	v, ok := canonInt(b)
	return query{b: b, iv: v, isInt: ok}
}

// matchAt reports whether the string at i is q, and the offset after it.
func (q *query) matchAt(lp []byte, i int) (bool, int) {
	if h := lp[i]; h&1 == 1 {
		if !q.isInt {
			return false, skipStr(lp, i)
		}
		if h != intHdr {
			return int64(h>>1)-1 == q.iv, i + 1
		}
		v, n := binary.Varint(lp[i+1:])
		return v == q.iv, i + 1 + n
	}
	h, n := binary.Uvarint(lp[i:])
	i += n
	l := int(h >> 1)
	return !q.isInt && l == len(q.b) && bytes.Equal(lp[i:i+l], q.b), i + l
}

// lpCount reads the pair count and returns it with the offset of the
// first pair.
func lpCount(lp []byte) (int, int) {
	if len(lp) == 0 {
		return 0, 0
	}
	n, k := binary.Uvarint(lp)
	return int(n), k
}

// lpFind returns the offsets of field's pair (field start, value start,
// value end), or ok false.
func lpFind(lp []byte, field []byte) (f, v, end int, ok bool) {
	n, i := lpCount(lp)
	q := newQuery(field)
	for range n {
		match, vi := q.matchAt(lp, i)
		ve := skipStr(lp, vi)
		if match {
			return i, vi, ve, true
		}
		i = ve
	}
	return 0, 0, 0, false
}

// lpSetCount rewrites the count, moving the pairs when its length changes.
func lpSetCount(lp []byte, n int) []byte {
	_, k := lpCount(lp)
	var buf [binary.MaxVarintLen64]byte
	c := binary.PutUvarint(buf[:], uint64(n))
	if len(lp) == 0 {
		return append(lp[:0], buf[:c]...)
	}
	if c == k {
		copy(lp, buf[:c])
		return lp
	}
	return splice(lp, 0, k, buf[:c])
}

// splice replaces lp[from:to] with repl, growing the buffer as append does
// (so repeated insertions are amortized) and never shrinking it below
// what it holds.
func splice(lp []byte, from, to int, repl []byte) []byte {
	d := len(repl) - (to - from)
	switch {
	case d > 0:
		n := len(lp)
		if n+d > cap(lp) {
			lp = grow(lp, n+d)
		}
		lp = lp[:n+d]
		copy(lp[to+d:], lp[to:n])
	case d < 0:
		copy(lp[to+d:], lp[to:])
		lp = lp[:len(lp)+d]
	}
	copy(lp[from:], repl)
	return lp
}

// grow returns a copy of lp with room for need bytes: exactly the
// allocator's size class for need (appending to a nil slice rounds the
// capacity up to it), not append's doubling, since a hash's buffer is
// most of what it costs and most hashes stop growing soon.
func grow(lp []byte, need int) []byte {
	nb := append([]byte(nil), make([]byte, need)...)
	return nb[:copy(nb, lp)]
}

// lpSet sets field to value, appending a new pair at the end; it reports
// whether the field existed.
func lpSet(lp, field, value []byte) ([]byte, bool) {
	if _, vi, ve, ok := lpFind(lp, field); ok {
		var tmp [32]byte
		enc := appendStr(tmp[:0], value)
		return splice(lp, vi, ve, enc), true
	}
	n, k := lpCount(lp)
	if need := len(lp) - k + uvarintLen(uint64(n+1)) + encLen(field) + encLen(value); need > cap(lp) {
		lp = grow(lp, need)
	}
	lp = lpSetCount(lp, n+1)
	lp = appendStr(lp, field)
	return appendStr(lp, value), false
}

// lpDelete removes field's pair and reports whether it was there.
func lpDelete(lp, field []byte) ([]byte, bool) {
	fi, _, ve, ok := lpFind(lp, field)
	if !ok {
		return lp, false
	}
	lp = splice(lp, fi, ve, nil)
	n, _ := lpCount(lp)
	if n == 1 {
		return lp[:0], true
	}
	return lpSetCount(lp, n-1), true
}

// lpPairs returns the offsets of every field, for random access.
func lpPairs(lp []byte, dst []int) []int {
	n, i := lpCount(lp)
	for range n {
		dst = append(dst, i)
		i = skipStr(lp, skipStr(lp, i))
	}
	return dst
}
