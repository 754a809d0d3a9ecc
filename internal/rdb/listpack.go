package rdb

import (
	"encoding/binary"
	"errors"
	"strconv"
)

// Listpack: the compact encoding Redis 7 uses for small hashes, sorted sets
// and list nodes. A listpack is a 6-byte header (total bytes, little-endian
// uint32; element count, little-endian uint16, 65535 meaning "count it"),
// the entries, and a 0xFF terminator. Each entry is its encoding and data
// followed by "backlen", the entry's length written so it can be read from
// its last byte backwards.

const (
	lpHeaderSize    = 6
	lpNumeleUnknown = 65535
	lpEOF           = 0xFF
)

var errListpack = errors.New("rdb: listpack integrity check failed")

// lpStringToInt64 reports whether s is the canonical decimal form of an
// int64, as listpack decides to store an element as an integer: no sign but
// '-', no leading zeros, no "-0", at most 20 characters.
func lpStringToInt64(s []byte) (int64, bool) {
	if len(s) == 0 || len(s) >= 21 {
		return 0, false
	}
	if len(s) == 1 && s[0] == '0' {
		return 0, true
	}
	i := 0
	neg := false
	if s[0] == '-' {
		neg = true
		i++
		if i == len(s) {
			return 0, false
		}
	}
	if s[i] < '1' || s[i] > '9' {
		return 0, false
	}
	var v uint64
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (^uint64(0))/10 {
			return 0, false
		}
		v *= 10
		if v > ^uint64(0)-uint64(c-'0') {
			return 0, false
		}
		v += uint64(c - '0')
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return int64(-v), true
	}
	if v > 1<<63-1 {
		return 0, false
	}
	return int64(v), true
}

// lpAppendIntEncoding appends the integer entry encoding (without backlen).
func lpAppendIntEncoding(dst []byte, v int64) []byte {
	switch {
	case v >= 0 && v <= 127:
		return append(dst, byte(v))
	case v >= -4096 && v <= 4095:
		u := v
		if u < 0 {
			u += 1 << 13
		}
		return append(dst, byte(u>>8)|0xC0, byte(u))
	case v >= -32768 && v <= 32767:
		u := uint64(v)
		return append(dst, 0xF1, byte(u), byte(u>>8))
	case v >= -8388608 && v <= 8388607:
		u := uint64(v)
		return append(dst, 0xF2, byte(u), byte(u>>8), byte(u>>16))
	case v >= -2147483648 && v <= 2147483647:
		u := uint64(v)
		return append(dst, 0xF3, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
	default:
		u := uint64(v)
		dst = append(dst, 0xF4)
		return binary.LittleEndian.AppendUint64(dst, u)
	}
}

func lpAppendStrEncoding(dst []byte, s []byte) []byte {
	n := len(s)
	switch {
	case n < 64:
		dst = append(dst, byte(n)|0x80)
	case n < 4096:
		dst = append(dst, byte(n>>8)|0xE0, byte(n))
	default:
		dst = append(dst, 0xF0, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
	}
	return append(dst, s...)
}

// lpAppendBacklen appends the reverse-readable length l of an entry.
func lpAppendBacklen(dst []byte, l uint64) []byte {
	switch {
	case l <= 127:
		return append(dst, byte(l))
	case l < 16383:
		return append(dst, byte(l>>7), byte(l&127)|128)
	case l < 2097151:
		return append(dst, byte(l>>14), byte(l>>7&127)|128, byte(l&127)|128)
	case l < 268435455:
		return append(dst, byte(l>>21), byte(l>>14&127)|128, byte(l>>7&127)|128, byte(l&127)|128)
	default:
		return append(dst, byte(l>>28), byte(l>>21&127)|128, byte(l>>14&127)|128, byte(l>>7&127)|128, byte(l&127)|128)
	}
}

func lpBacklenSize(l uint64) int {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	default:
		return 5
	}
}

// listpackBuilder appends entries the way lpAppend/lpAppendInteger do.
type listpackBuilder struct {
	buf   []byte
	count int
}

func newListpackBuilder() *listpackBuilder {
	b := &listpackBuilder{buf: make([]byte, lpHeaderSize, 64)}
	return b
}

// reset empties b for reuse, keeping its memory.
func (b *listpackBuilder) reset() {
	if cap(b.buf) < lpHeaderSize {
		b.buf = make([]byte, lpHeaderSize, 64)
	}
	b.buf, b.count = b.buf[:lpHeaderSize], 0
}

// AppendString appends s, as an integer entry if it looks like one.
func (b *listpackBuilder) AppendString(s []byte) {
	if v, ok := lpStringToInt64(s); ok {
		b.AppendInt(v)
		return
	}
	start := len(b.buf)
	b.buf = lpAppendStrEncoding(b.buf, s)
	b.buf = lpAppendBacklen(b.buf, uint64(len(b.buf)-start))
	b.count++
}

// AppendInt appends an integer entry.
func (b *listpackBuilder) AppendInt(v int64) {
	start := len(b.buf)
	b.buf = lpAppendIntEncoding(b.buf, v)
	b.buf = lpAppendBacklen(b.buf, uint64(len(b.buf)-start))
	b.count++
}

// Size is the byte size the listpack has (header and terminator included).
func (b *listpackBuilder) Size() int { return len(b.buf) + 1 }

// Bytes finishes the listpack: header and terminator.
func (b *listpackBuilder) Bytes() []byte {
	out := append(b.buf, lpEOF)
	binary.LittleEndian.PutUint32(out[0:4], uint32(len(out)))
	n := b.count
	if n >= lpNumeleUnknown {
		n = lpNumeleUnknown
	}
	binary.LittleEndian.PutUint16(out[4:6], uint16(n))
	return out
}

// EncodeListpack returns the listpack Redis builds by appending elems in
// order (integer-looking strings become integer entries).
func EncodeListpack(elems [][]byte) []byte {
	b := newListpackBuilder()
	for _, e := range elems {
		b.AppendString(e)
	}
	return b.Bytes()
}

// DecodeListpack validates lp as Redis's deep integrity check does and
// returns its elements as strings (integers in decimal).
func DecodeListpack(lp []byte) ([][]byte, error) {
	var out [][]byte
	err := walkListpack(lp, func(s []byte, v int64, isInt bool) error {
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

// walkListpack checks lp entry by entry and calls fn for each element.
func walkListpack(lp []byte, fn func(s []byte, v int64, isInt bool) error) error {
	size := len(lp)
	if size < lpHeaderSize+1 {
		return errListpack
	}
	if int(binary.LittleEndian.Uint32(lp[0:4])) != size || lp[size-1] != lpEOF {
		return errListpack
	}
	numele := int(binary.LittleEndian.Uint16(lp[4:6]))
	p := lpHeaderSize
	count := 0
	for lp[p] != lpEOF {
		b := lp[p]
		var hdr, dlen int // header bytes, data bytes
		var isInt bool
		var v int64
		switch {
		case b&0x80 == 0:
			hdr, isInt, v = 1, true, int64(b&0x7f)
		case b&0xC0 == 0x80:
			hdr, dlen = 1, int(b&0x3f)
		case b&0xE0 == 0xC0:
			if p+1 >= size-1 {
				return errListpack
			}
			u := uint64(b&0x1f)<<8 | uint64(lp[p+1])
			if u >= 1<<12 {
				v = int64(u) - 1<<13
			} else {
				v = int64(u)
			}
			hdr, isInt = 2, true
		case b&0xF0 == 0xE0:
			if p+1 >= size-1 {
				return errListpack
			}
			hdr, dlen = 2, int(b&0x0f)<<8|int(lp[p+1])
		case b == 0xF0:
			if p+4 >= size-1 {
				return errListpack
			}
			hdr, dlen = 5, int(binary.LittleEndian.Uint32(lp[p+1:p+5]))
		case b >= 0xF1 && b <= 0xF4:
			n := [...]int{2, 3, 4, 8}[b-0xF1]
			if p+n >= size-1 {
				return errListpack
			}
			var u uint64
			for i := n; i >= 1; i-- {
				u = u<<8 | uint64(lp[p+i])
			}
			shift := 64 - 8*uint(n)
			v = int64(u<<shift) >> shift
			hdr, isInt = 1+n, true
			if b == 0xF4 {
				v = int64(u)
			}
		default:
			return errListpack
		}
		entry := hdr + dlen
		if isInt {
			entry = hdr
		}
		if dlen < 0 || entry > size || p+entry >= size-1 {
			return errListpack
		}
		bl := lpBacklenSize(uint64(entry))
		end := p + entry + bl
		if end > size-1 {
			return errListpack
		}
		// the backlen, read backwards from its last byte, must match
		var got uint64
		var shift uint
		q := end - 1
		for {
			got |= uint64(lp[q]&127) << shift
			if lp[q]&128 == 0 {
				break
			}
			shift += 7
			q--
			if shift > 28 || q < p+entry {
				return errListpack
			}
		}
		if got != uint64(entry) {
			return errListpack
		}
		if err := fn(lp[p+hdr:p+hdr+dlen], v, isInt); err != nil {
			return err
		}
		count++
		p = end
	}
	if p != size-1 {
		return errListpack
	}
	if numele != lpNumeleUnknown && numele != count {
		return errListpack
	}
	return nil
}
