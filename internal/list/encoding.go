package list

import (
	"encoding/binary"
	"strconv"
)

// A node's buffer is a sequence of entries, each readable from either end
// (the behaviour of Redis's listpack, in an encoding of our own):
//
//	header [payload] backlen
//
// The header's first byte h says what follows:
//
//	0x00-0x3f  a string of h bytes (0..63), inline
//	0x40-0x7f  the integer h-0x40 (0..63), no payload
//	0x80-0x87  an integer in h-0x7f bytes, little endian, two's complement
//	0x88       a string whose length, a uvarint, follows
//
// backlen is the size of header and payload, written as a uvarint whose
// bytes are reversed, so a reader at the entry's end can find its start.
// An element that reads as a canonical decimal integer (its text is exactly
// what strconv.FormatInt gives back) is stored as that integer: a 13-digit
// millisecond timestamp takes 8 bytes instead of 15.

const (
	tagSmallStr = 0x00
	tagSmallInt = 0x40
	tagInt      = 0x80
	tagStr      = 0x88
	smallMax    = 0x3f
)

// asInt reports whether v is the canonical text of an int64.
func asInt(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 20 {
		return 0, false
	}
	c := v[0]
	if !(c == '-' || (c >= '0' && c <= '9')) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return 0, false
	}
	var buf [20]byte
	if string(strconv.AppendInt(buf[:0], n, 10)) != string(v) {
		return 0, false
	}
	return n, true
}

// intBytes is how many payload bytes an integer needs.
func intBytes(n int64) int {
	for k := 1; k < 8; k++ {
		lim := int64(1) << (8*k - 1)
		if n >= -lim && n < lim {
			return k
		}
	}
	return 8
}

func uvarintLen(n uint64) int {
	k := 1
	for n >= 0x80 {
		n >>= 7
		k++
	}
	return k
}

// entrySize is the encoded size of v, backlen included.
func entrySize(v []byte) int {
	body := bodySize(v)
	return body + uvarintLen(uint64(body))
}

func bodySize(v []byte) int {
	if n, ok := asInt(v); ok {
		if n >= 0 && n <= smallMax {
			return 1
		}
		return 1 + intBytes(n)
	}
	if len(v) <= smallMax {
		return 1 + len(v)
	}
	return 1 + uvarintLen(uint64(len(v))) + len(v)
}

// appendEntry appends the encoding of v to dst.
func appendEntry(dst, v []byte) []byte {
	start := len(dst)
	if n, ok := asInt(v); ok {
		if n >= 0 && n <= smallMax {
			dst = append(dst, tagSmallInt+byte(n))
		} else {
			k := intBytes(n)
			dst = append(dst, tagInt+byte(k-1))
			u := uint64(n)
			for i := 0; i < k; i++ {
				dst = append(dst, byte(u))
				u >>= 8
			}
		}
	} else if len(v) <= smallMax {
		dst = append(dst, tagSmallStr+byte(len(v)))
		dst = append(dst, v...)
	} else {
		dst = append(dst, tagStr)
		dst = binary.AppendUvarint(dst, uint64(len(v)))
		dst = append(dst, v...)
	}
	return appendBacklen(dst, uint64(len(dst)-start))
}

func appendBacklen(dst []byte, body uint64) []byte {
	var tmp [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(tmp[:], body)
	for i := k - 1; i >= 0; i-- {
		dst = append(dst, tmp[i])
	}
	return dst
}

// decoded is one entry read from a buffer: either a string (str aliases the
// buffer) or an integer.
type decoded struct {
	str   []byte
	num   int64
	isInt bool
	size  int // the entry's whole encoded size
}

// value returns the entry as the element's bytes: a string aliases the
// node, an integer is formatted into scratch.
func (d *decoded) value(scratch []byte) []byte {
	if d.isInt {
		return strconv.AppendInt(scratch[:0], d.num, 10)
	}
	return d.str
}

// equal reports whether the entry's element is v.
func (d *decoded) equal(v []byte) bool {
	if d.isInt {
		var buf [20]byte
		return string(strconv.AppendInt(buf[:0], d.num, 10)) == string(v)
	}
	return string(d.str) == string(v)
}

// decodeAt reads the entry starting at off; ok is false on malformed data.
func decodeAt(b []byte, off int) (d decoded, ok bool) {
	if off >= len(b) {
		return d, false
	}
	h := b[off]
	p := off + 1
	switch {
	case h <= smallMax:
		n := int(h)
		if p+n > len(b) {
			return d, false
		}
		d.str = b[p : p+n : p+n]
		p += n
	case h < tagInt:
		d.isInt, d.num = true, int64(h-tagSmallInt)
	case h < tagStr:
		k := int(h-tagInt) + 1
		if p+k > len(b) {
			return d, false
		}
		var u uint64
		for i := k - 1; i >= 0; i-- {
			u = u<<8 | uint64(b[p+i])
		}
		shift := uint(64 - 8*k)
		d.isInt, d.num = true, int64(u<<shift)>>shift
		p += k
	case h == tagStr:
		n, k := binary.Uvarint(b[p:])
		if k <= 0 || n > uint64(len(b)) {
			return d, false
		}
		p += k
		if p+int(n) > len(b) {
			return d, false
		}
		d.str = b[p : p+int(n) : p+int(n)]
		p += int(n)
	default:
		return d, false
	}
	body := p - off
	var tmp [binary.MaxVarintLen64]byte
	bl := uvarintLen(uint64(body))
	if p+bl > len(b) {
		return d, false
	}
	for i := 0; i < bl; i++ {
		tmp[i] = b[p+bl-1-i]
	}
	if got, k := binary.Uvarint(tmp[:bl]); k != bl || got != uint64(body) {
		return d, false
	}
	d.size = body + bl
	return d, true
}

// prevStart returns the offset of the entry that ends at end (end > 0).
func prevStart(b []byte, end int) int {
	var body uint64
	var shift uint
	i := end - 1
	for ; i >= 0; i-- {
		c := b[i]
		body |= uint64(c&0x7f) << shift
		shift += 7
		if c < 0x80 {
			break
		}
	}
	return i - int(body)
}
