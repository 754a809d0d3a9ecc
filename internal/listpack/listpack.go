// Package listpack is Redis 7.0's listpack (listpack.c), the compact
// encoding of small hashes, sorted sets, list nodes and stream nodes. It
// exists once so that the RDB codec and the streams, which both have to
// produce Redis's bytes exactly (DUMP payloads are compared with real
// Redis's, and stream-node-max-bytes applies to the real size), cannot
// drift apart.
//
// A listpack is a 6-byte header (total bytes, little-endian uint32;
// element count, little-endian uint16, NumeleUnknown meaning "count
// them"), the entries, and the EOF byte. Each entry is its encoding and
// data followed by its backlen, the entry's length written so that it can
// be read from its last byte backwards.
package listpack

import (
	"encoding/binary"
	"errors"
	"strconv"

	"github.com/limitkv/limitkv/internal/num"
)

const (
	HeaderSize = 6 // total bytes (uint32) and element count (uint16)
	// NumeleUnknown is the count from 65535 elements on: the uint16 is
	// full, so readers count the entries instead.
	NumeleUnknown = 65535
	// EOF ends the entries; no encoding starts with it, so a walk stops
	// at it without knowing the count.
	EOF = 0xFF
)

// ErrCorrupt is what Walk and Decode return for a listpack Redis's deep
// integrity check would refuse.
var ErrCorrupt = errors.New("listpack: integrity check failed")

// StringToInt64 is lpStringToInt64, the test that stores an element as an
// integer: the canonical decimal form of an int64 (no '+', no leading
// zeros, no "-0", at most 20 characters). That is exactly string2ll's
// grammar, so num.ParseInt decides it; a test holds the two to
// listpack.c's own loop.
func StringToInt64(s []byte) (int64, bool) { return num.ParseInt(s) }

// intEncSize is the bytes of an integer's encoding, its backlen excluded:
// the smallest of listpack's widths (7-bit immediate, 13-bit, then 16,
// 24, 32 and 64 bits after a tag byte) that holds v.
func intEncSize(v int64) int {
	switch {
	case v >= 0 && v <= 127:
		return 1
	case v >= -4096 && v <= 4095:
		return 2
	case v >= -32768 && v <= 32767:
		return 3
	case v >= -8388608 && v <= 8388607:
		return 4
	case v >= -2147483648 && v <= 2147483647:
		return 5
	}
	return 9
}

// IntSize is the bytes an integer element takes, backlen included (an
// integer entry is at most 9 bytes, so its backlen is one byte).
func IntSize(v int64) int { return intEncSize(v) + 1 }

// StringSize is the bytes AppendString uses for s, backlen included.
func StringSize(s []byte) int {
	if v, ok := StringToInt64(s); ok {
		return IntSize(v)
	}
	n := len(s)
	switch {
	case n < 64:
		n++
	case n < 4096:
		n += 2
	default:
		n += 5
	}
	return n + BacklenSize(n)
}

// BacklenSize is the bytes of the backlen of an entry of l bytes: 7 bits
// per byte. The bounds are lpEncodeBacklen's, strict comparisons
// included, so an entry of exactly 16383 bytes takes three.
func BacklenSize(l int) int {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	}
	return 5
}

// appendBacklen writes l most significant group first, every byte but
// the first flagged, so that a reader going backwards knows where it ends.
func appendBacklen(dst []byte, l int) []byte {
	u := uint64(l)
	switch BacklenSize(l) {
	case 1:
		return append(dst, byte(u))
	case 2:
		return append(dst, byte(u>>7), byte(u&127)|128)
	case 3:
		return append(dst, byte(u>>14), byte(u>>7&127)|128, byte(u&127)|128)
	case 4:
		return append(dst, byte(u>>21), byte(u>>14&127)|128, byte(u>>7&127)|128, byte(u&127)|128)
	}
	return append(dst, byte(u>>28), byte(u>>21&127)|128, byte(u>>14&127)|128, byte(u>>7&127)|128, byte(u&127)|128)
}

// AppendInt appends v as an integer entry, as lpAppendInteger does.
func AppendInt(dst []byte, v int64) []byte {
	start := len(dst)
	u := uint64(v)
	switch intEncSize(v) {
	case 1:
		dst = append(dst, byte(v))
	case 2:
		// 13-bit two's complement: the sign lives in bit 12, not bit 63.
		if v < 0 {
			u = uint64(v + 1<<13)
		}
		dst = append(dst, byte(u>>8)|0xC0, byte(u))
	case 3:
		dst = append(dst, 0xF1, byte(u), byte(u>>8))
	case 4:
		dst = append(dst, 0xF2, byte(u), byte(u>>8), byte(u>>16))
	case 5:
		dst = append(dst, 0xF3, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
	default:
		dst = append(dst, 0xF4)
		dst = binary.LittleEndian.AppendUint64(dst, u)
	}
	return appendBacklen(dst, len(dst)-start)
}

// AppendString appends s as lpAppend does: as an integer entry if it is
// one in canonical form, so "10" and 10 are the same bytes.
func AppendString(dst []byte, s []byte) []byte {
	if v, ok := StringToInt64(s); ok {
		return AppendInt(dst, v)
	}
	start := len(dst)
	n := len(s)
	switch {
	case n < 64:
		dst = append(dst, byte(n)|0x80)
	case n < 4096:
		dst = append(dst, byte(n>>8)|0xE0, byte(n))
	default:
		dst = append(dst, 0xF0, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
	}
	dst = append(dst, s...)
	return appendBacklen(dst, len(dst)-start)
}

// Builder builds a listpack element by element, as a sequence of lpAppend
// calls would. The zero value is an empty listpack.
type Builder struct {
	buf   []byte // header room and entries, without the EOF byte
	count int
}

// NewBuilder returns an empty Builder with room for small listpacks.
func NewBuilder() *Builder { return &Builder{buf: make([]byte, HeaderSize, 64)} }

// Reset empties b, keeping its memory for the next listpack (the RDB
// writer reuses one from key to key).
func (b *Builder) Reset() {
	if cap(b.buf) < HeaderSize {
		b.buf = make([]byte, HeaderSize, 64)
	}
	b.buf, b.count = b.buf[:HeaderSize], 0
}

// AppendString appends s, as an integer entry if it is one.
func (b *Builder) AppendString(s []byte) {
	if len(b.buf) == 0 {
		b.Reset()
	}
	b.buf = AppendString(b.buf, s)
	b.count++
}

// AppendInt appends an integer entry.
func (b *Builder) AppendInt(v int64) {
	if len(b.buf) == 0 {
		b.Reset()
	}
	b.buf = AppendInt(b.buf, v)
	b.count++
}

// Len is the number of elements appended, which quicklist's fill limit
// counts.
func (b *Builder) Len() int { return b.count }

// Size is the listpack's total bytes once finished, which quicklist's size
// limits weigh before Bytes is called.
func (b *Builder) Size() int { return max(len(b.buf), HeaderSize) + 1 }

// Bytes finishes the listpack (header and EOF) and returns it. It aliases
// b's memory: it is valid until b is next changed.
func (b *Builder) Bytes() []byte {
	if len(b.buf) == 0 {
		b.Reset()
	}
	out := append(b.buf, EOF)
	binary.LittleEndian.PutUint32(out[0:4], uint32(len(out)))
	binary.LittleEndian.PutUint16(out[4:6], uint16(min(b.count, NumeleUnknown)))
	return out
}

// Encode returns the listpack Redis builds by appending elems in order.
func Encode(elems [][]byte) []byte {
	var b Builder
	for _, e := range elems {
		b.AppendString(e)
	}
	return b.Bytes()
}

// Decode checks lp as Walk does and returns its elements as strings
// (integers in decimal), each a copy.
func Decode(lp []byte) ([][]byte, error) {
	var out [][]byte
	err := Walk(lp, func(s []byte, v int64, isInt bool) error {
		if isInt {
			s = strconv.AppendInt(nil, v, 10)
		} else {
			s = append([]byte(nil), s...)
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Walk checks lp as lpValidateIntegrity does in deep mode (every entry
// within bounds and matching its backlen, the EOF where the header's size
// says, the count if the header has one) and calls fn for each element in
// order: a string aliasing lp, or an integer with isInt set. fn runs on
// an entry only once it is checked, so it may trust it; an error from fn
// stops the walk and is returned. A listpack fn was called on may still be
// refused later (a bad count), as Redis refuses it.
func Walk(lp []byte, fn func(s []byte, v int64, isInt bool) error) error {
	size := len(lp)
	if size < HeaderSize+1 {
		return ErrCorrupt
	}
	if int(binary.LittleEndian.Uint32(lp[0:4])) != size || lp[size-1] != EOF {
		return ErrCorrupt
	}
	numele := int(binary.LittleEndian.Uint16(lp[4:6]))
	p := HeaderSize
	count := 0
	for lp[p] != EOF {
		b := lp[p]
		var hdr, dlen int // encoding bytes, string bytes
		var isInt bool
		var v int64
		// Each header is read only once the bytes it spans are known to
		// lie before the EOF byte: lpCurrentEncodedSizeBytes, then
		// OUT_OF_RANGE.
		switch {
		case b&0x80 == 0:
			hdr, isInt, v = 1, true, int64(b&0x7f)
		case b&0xC0 == 0x80:
			hdr, dlen = 1, int(b&0x3f)
		case b&0xE0 == 0xC0:
			if p+1 >= size-1 {
				return ErrCorrupt
			}
			u := int64(b&0x1f)<<8 | int64(lp[p+1])
			if u >= 1<<12 {
				u -= 1 << 13
			}
			hdr, isInt, v = 2, true, u
		case b&0xF0 == 0xE0:
			if p+1 >= size-1 {
				return ErrCorrupt
			}
			hdr, dlen = 2, int(b&0x0f)<<8|int(lp[p+1])
		case b == 0xF0:
			if p+4 >= size-1 {
				return ErrCorrupt
			}
			hdr, dlen = 5, int(binary.LittleEndian.Uint32(lp[p+1:p+5]))
		case b >= 0xF1 && b <= 0xF4:
			n := [...]int{2, 3, 4, 8}[b-0xF1]
			if p+n >= size-1 {
				return ErrCorrupt
			}
			var u uint64
			for i := n; i >= 1; i-- {
				u = u<<8 | uint64(lp[p+i])
			}
			shift := 64 - 8*uint(n) // sign-extend from the width stored
			hdr, isInt, v = 1+n, true, int64(u<<shift)>>shift
		default:
			return ErrCorrupt // 0xF5..0xFE are unused; 0xFF ends the loop
		}
		entry := hdr
		if !isInt {
			entry += dlen
		}
		if dlen < 0 || entry > size || p+entry >= size-1 { // dlen < 0: a 0xF0 length where int has 32 bits
			return ErrCorrupt
		}
		end := p + entry + BacklenSize(entry)
		if end > size-1 {
			return ErrCorrupt
		}
		// The backlen, read backwards as lpPrev reads it, must give the
		// entry's length and stay inside the entry's own backlen bytes.
		var got uint64
		var shift uint
		for q := end - 1; ; q-- {
			if q < p+entry {
				return ErrCorrupt
			}
			got |= uint64(lp[q]&127) << shift
			if lp[q]&128 == 0 {
				break
			}
			shift += 7
			if shift > 28 {
				return ErrCorrupt
			}
		}
		if got != uint64(entry) {
			return ErrCorrupt
		}
		var s []byte
		if !isInt {
			s = lp[p+hdr : p+entry : p+entry]
		}
		if err := fn(s, v, isInt); err != nil {
			return err
		}
		count++
		p = end
	}
	if p != size-1 {
		return ErrCorrupt
	}
	if numele != NumeleUnknown && numele != count {
		return ErrCorrupt
	}
	return nil
}
