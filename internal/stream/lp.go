package stream

import (
	"encoding/binary"
	"errors"
	"strconv"
)

// Listpack encoding, as far as nodes need it: the byte size of each
// element (to apply stream-node-max-bytes exactly as Redis does, on the
// listpack's real size) and the bytes themselves (for RDB and DUMP).

const (
	lpHeaderSize    = 6
	lpNumeleUnknown = 65535
	lpEOF           = 0xFF
)

// lpStringToInt64 is listpack's test for storing a string as an integer:
// the canonical decimal form of an int64.
func lpStringToInt64(s []byte) (int64, bool) {
	if len(s) == 0 || len(s) >= 21 {
		return 0, false
	}
	return string2ll(string(s))
}

func lpIntEncSize(v int64) int {
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

func lpBacklenSize(l int) int {
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

// lpIntSize is the bytes an integer element takes, backlen included.
func lpIntSize(v int64) int { return lpIntEncSize(v) + 1 }

// lpStrSize is the bytes lpAppend uses for s.
func lpStrSize(s []byte) int {
	if v, ok := lpStringToInt64(s); ok {
		return lpIntSize(v)
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
	return n + lpBacklenSize(n)
}

func lpAppendBacklen(dst []byte, l int) []byte {
	u := uint64(l)
	switch {
	case l <= 127:
		return append(dst, byte(u))
	case l < 16383:
		return append(dst, byte(u>>7), byte(u&127)|128)
	case l < 2097151:
		return append(dst, byte(u>>14), byte(u>>7&127)|128, byte(u&127)|128)
	case l < 268435455:
		return append(dst, byte(u>>21), byte(u>>14&127)|128, byte(u>>7&127)|128, byte(u&127)|128)
	}
	return append(dst, byte(u>>28), byte(u>>21&127)|128, byte(u>>14&127)|128, byte(u>>7&127)|128, byte(u&127)|128)
}

func lpAppendInt(dst []byte, v int64) []byte {
	start := len(dst)
	u := uint64(v)
	switch lpIntEncSize(v) {
	case 1:
		dst = append(dst, byte(v))
	case 2:
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
	return lpAppendBacklen(dst, len(dst)-start)
}

func lpAppendStr(dst []byte, s []byte) []byte {
	if v, ok := lpStringToInt64(s); ok {
		return lpAppendInt(dst, v)
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
	return lpAppendBacklen(dst, len(dst)-start)
}

// lpElem is one decoded listpack element.
type lpElem struct {
	isInt bool
	v     int64
	s     []byte // aliases the listpack
}

// bytes is the element as lpGet returns it (integers in decimal).
func (e lpElem) bytes() []byte {
	if e.isInt {
		return strconv.AppendInt(nil, e.v, 10)
	}
	return append([]byte(nil), e.s...)
}

// integer is lpGetIntegerIfValid: a string element counts if it parses.
func (e lpElem) integer() (int64, bool) {
	if e.isInt {
		return e.v, true
	}
	return string2ll(string(e.s))
}

var errListpack = errors.New("stream: listpack integrity check failed")

// lpDecode checks lp as lpValidateIntegrity does in deep mode and returns
// its elements.
func lpDecode(lp []byte) ([]lpElem, error) {
	size := len(lp)
	if size < lpHeaderSize+1 {
		return nil, errListpack
	}
	if int(binary.LittleEndian.Uint32(lp[0:4])) != size || lp[size-1] != lpEOF {
		return nil, errListpack
	}
	numele := int(binary.LittleEndian.Uint16(lp[4:6]))
	var out []lpElem
	p := lpHeaderSize
	for lp[p] != lpEOF {
		b := lp[p]
		var hdr, dlen int
		var e lpElem
		switch {
		case b&0x80 == 0:
			hdr, e.isInt, e.v = 1, true, int64(b&0x7f)
		case b&0xC0 == 0x80:
			hdr, dlen = 1, int(b&0x3f)
		case b&0xE0 == 0xC0:
			if p+1 >= size-1 {
				return nil, errListpack
			}
			u := int64(b&0x1f)<<8 | int64(lp[p+1])
			if u >= 1<<12 {
				u -= 1 << 13
			}
			hdr, e.isInt, e.v = 2, true, u
		case b&0xF0 == 0xE0:
			if p+1 >= size-1 {
				return nil, errListpack
			}
			hdr, dlen = 2, int(b&0x0f)<<8|int(lp[p+1])
		case b == 0xF0:
			if p+4 >= size-1 {
				return nil, errListpack
			}
			hdr, dlen = 5, int(binary.LittleEndian.Uint32(lp[p+1:p+5]))
		case b >= 0xF1 && b <= 0xF4:
			n := [...]int{2, 3, 4, 8}[b-0xF1]
			if p+n >= size-1 {
				return nil, errListpack
			}
			var u uint64
			for i := n; i >= 1; i-- {
				u = u<<8 | uint64(lp[p+i])
			}
			shift := 64 - 8*uint(n)
			hdr, e.isInt, e.v = 1+n, true, int64(u<<shift)>>shift
		default:
			return nil, errListpack
		}
		entry := hdr
		if !e.isInt {
			entry += dlen
		}
		if dlen < 0 || entry > size || p+entry >= size-1 {
			return nil, errListpack
		}
		end := p + entry + lpBacklenSize(entry)
		if end > size-1 {
			return nil, errListpack
		}
		var got uint64
		var shift uint
		for q := end - 1; ; q-- {
			if q < p+entry {
				return nil, errListpack
			}
			got |= uint64(lp[q]&127) << shift
			if lp[q]&128 == 0 {
				break
			}
			shift += 7
			if shift > 28 {
				return nil, errListpack
			}
		}
		if got != uint64(entry) {
			return nil, errListpack
		}
		if !e.isInt {
			e.s = lp[p+hdr : p+hdr+dlen]
		}
		out = append(out, e)
		p = end
	}
	if p != size-1 {
		return nil, errListpack
	}
	if numele != lpNumeleUnknown && numele != len(out) {
		return nil, errListpack
	}
	return out, nil
}
