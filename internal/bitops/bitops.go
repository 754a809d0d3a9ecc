// Package bitops holds the bit algorithms behind Redis's bitmap commands and
// LCS, on plain byte slices: population count and first-bit search over bit
// ranges, the bitwise operations of BITOP, BITFIELD's integer fields with
// their overflow rules, and the longest common subsequence table.
//
// Bits are numbered as Redis numbers them: bit 0 is the most significant
// bit of the first byte. The package knows nothing of commands, replies or
// the keyspace; range clamping and argument rules stay with the callers.
package bitops

import (
	"encoding/binary"
	"math/bits"
)

// Count returns the number of set bits among bits start..end (inclusive)
// of b. The caller guarantees 0 <= start <= end < 8*len(b).
func Count(b []byte, start, end int64) int64 {
	first, last := start>>3, end>>3
	if first == last {
		return int64(bits.OnesCount8(b[first] & headMask(start) & tailMask(end)))
	}
	n := int64(bits.OnesCount8(b[first]&headMask(start))) + int64(bits.OnesCount8(b[last]&tailMask(end)))
	return n + popcount(b[first+1:last])
}

// popcount counts the set bits of b, eight bytes at a time.
func popcount(b []byte) int64 {
	var n int
	for len(b) >= 32 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(b)) +
			bits.OnesCount64(binary.LittleEndian.Uint64(b[8:])) +
			bits.OnesCount64(binary.LittleEndian.Uint64(b[16:])) +
			bits.OnesCount64(binary.LittleEndian.Uint64(b[24:]))
		b = b[32:]
	}
	for len(b) >= 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	for _, c := range b {
		n += bits.OnesCount8(c)
	}
	return int64(n)
}

// headMask keeps the bits of a byte from bit position i (mod 8) on.
func headMask(i int64) byte { return 0xff >> (i & 7) }

// tailMask keeps the bits of a byte up to bit position i (mod 8).
func tailMask(i int64) byte { return 0xff << (7 - i&7) }

// Pos returns the position of the first bit equal to bit (0 or 1) among bits
// start..end (inclusive) of b, or -1 if there is none. The caller
// guarantees 0 <= start <= end < 8*len(b).
func Pos(b []byte, bit int, start, end int64) int64 {
	var flip byte // searching for a 0 is searching for a 1 in the complement
	if bit == 0 {
		flip = 0xff
	}
	first, last := start>>3, end>>3
	if first == last {
		return firstOne(first, (b[first]^flip)&headMask(start)&tailMask(end))
	}
	if p := firstOne(first, (b[first]^flip)&headMask(start)); p >= 0 {
		return p
	}
	i := first + 1
	skip := uint64(0)
	if bit == 0 {
		skip = ^uint64(0)
	}
	for ; i+8 <= last; i += 8 {
		if binary.LittleEndian.Uint64(b[i:]) != skip {
			break
		}
	}
	for ; i < last; i++ {
		if b[i] != byte(skip) {
			return firstOne(i, b[i]^flip)
		}
	}
	return firstOne(last, (b[last]^flip)&tailMask(end))
}

// firstOne is the position of the highest set bit of c, the byte at index i,
// or -1 when c is zero.
func firstOne(i int64, c byte) int64 {
	if c == 0 {
		return -1
	}
	return i<<3 + int64(bits.LeadingZeros8(c))
}

// Op is a BITOP operation.
type Op int

// The operations of BITOP.
const (
	And Op = iota
	Or
	Xor
	Not
)

// Apply returns op applied to srcs, as long as the longest of them, the
// shorter ones read as if padded with zero bytes; NOT takes only srcs[0].
// It returns nil when every source is empty.
func Apply(op Op, srcs [][]byte) []byte {
	n := 0
	for _, s := range srcs {
		n = max(n, len(s))
	}
	if n == 0 {
		return nil
	}
	res := make([]byte, n)
	copy(res, srcs[0])
	if op == Not {
		not(res)
		return res
	}
	for _, s := range srcs[1:] {
		switch op {
		case And:
			and(res[:len(s)], s)
			clear(res[len(s):])
		case Or:
			or(res[:len(s)], s)
		case Xor:
			xor(res[:len(s)], s)
		}
	}
	return res
}

// The loops below work eight bytes at a time: a bitmap may be hundreds of
// megabytes, and the executor is single-threaded.

func and(dst, src []byte) {
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(dst[i:])&binary.LittleEndian.Uint64(src[i:]))
	}
	for ; i < len(dst); i++ {
		dst[i] &= src[i]
	}
}

func or(dst, src []byte) {
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(dst[i:])|binary.LittleEndian.Uint64(src[i:]))
	}
	for ; i < len(dst); i++ {
		dst[i] |= src[i]
	}
}

func xor(dst, src []byte) {
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(dst[i:])^binary.LittleEndian.Uint64(src[i:]))
	}
	for ; i < len(dst); i++ {
		dst[i] ^= src[i]
	}
}

func not(dst []byte) {
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], ^binary.LittleEndian.Uint64(dst[i:]))
	}
	for ; i < len(dst); i++ {
		dst[i] = ^dst[i]
	}
}
