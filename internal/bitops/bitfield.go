package bitops

// BITFIELD's integer fields: an unsigned field of 1..63 bits or a signed
// one of 1..64 bits, at any bit offset, most significant bit first.

// Overflow is BITFIELD's OVERFLOW behaviour.
type Overflow int

// The OVERFLOW modes.
const (
	Wrap Overflow = iota
	Sat
	Fail
)

// GetUnsigned reads the width-bit unsigned field at bit offset off; bits
// past the end of b read as zero.
func GetUnsigned(b []byte, off uint64, width int) uint64 {
	var v uint64
	n := uint64(len(b))
	for j := 0; j < width; j, off = j+1, off+1 {
		var bit uint64
		if i := off >> 3; i < n {
			bit = uint64(b[i]>>(7-off&7)) & 1
		}
		v = v<<1 | bit
	}
	return v
}

// GetSigned reads the width-bit two's complement field at bit offset off;
// bits past the end of b read as zero.
func GetSigned(b []byte, off uint64, width int) int64 {
	v := GetUnsigned(b, off, width)
	if width < 64 && v&(1<<(width-1)) != 0 {
		v |= ^uint64(0) << width
	}
	return int64(v)
}

// SetUnsigned writes the low width bits of v at bit offset off; b must
// reach bit off+width-1.
func SetUnsigned(b []byte, off uint64, width int, v uint64) {
	for j := width - 1; j >= 0; j, off = j-1, off+1 {
		mask := byte(1) << (7 - off&7)
		if v>>j&1 != 0 {
			b[off>>3] |= mask
		} else {
			b[off>>3] &^= mask
		}
	}
}

// SetSigned writes v in two's complement, as SetUnsigned.
func SetSigned(b []byte, off uint64, width int, v int64) {
	SetUnsigned(b, off, width, uint64(v))
}

// IncrUnsigned adds incr to value, a width-bit unsigned field (a SET is
// an increment of 0 applied to the value to store, reinterpreted as
// unsigned: a negative SET value is then a huge one, as in Redis). It
// reports +1 or -1 for an overflow upwards or downwards, and the value to
// store: the sum, or under overflow the wrapped sum (Wrap) or the limit
// crossed (Sat); under Fail the value is meaningless.
func IncrUnsigned(value uint64, incr int64, width int, ow Overflow) (uint64, int) {
	maxv := uint64(1)<<width - 1
	maxIncr := int64(maxv - value)
	minIncr := -int64(value)
	dir := 0
	switch {
	case value > maxv || (incr > 0 && incr > maxIncr):
		dir = 1
	case incr < 0 && incr < minIncr:
		dir = -1
	default:
		return value + uint64(incr), 0
	}
	switch {
	case ow == Sat && dir > 0:
		return maxv, dir
	case ow == Sat:
		return 0, dir
	}
	return (value + uint64(incr)) & maxv, dir
}

// IncrSigned is IncrUnsigned for a width-bit signed field. Its overflow
// tests are Redis's, wrapping arithmetic included: a SET of a value at or
// below math.MinInt64+max (max the field's largest value) counts as an
// overflow upwards, so SAT stores the maximum, as Redis 7.0 does.
func IncrSigned(value, incr int64, width int, ow Overflow) (int64, int) {
	maxv := int64(uint64(1)<<(width-1) - 1)
	minv := -maxv - 1
	maxIncr := int64(uint64(maxv) - uint64(value))
	minIncr := minv - value
	dir := 0
	switch {
	case value > maxv || (width != 64 && incr > maxIncr) || (value >= 0 && incr > 0 && incr > maxIncr):
		dir = 1
	case value < minv || (width != 64 && incr < minIncr) || (value < 0 && incr < 0 && incr < minIncr):
		dir = -1
	default:
		return value + incr, 0
	}
	switch {
	case ow == Sat && dir > 0:
		return maxv, dir
	case ow == Sat:
		return minv, dir
	}
	c := uint64(value) + uint64(incr)
	if width < 64 {
		if c&(1<<(width-1)) != 0 {
			c |= ^uint64(0) << width
		} else {
			c &^= ^uint64(0) << width
		}
	}
	return int64(c), dir
}
