// Package num parses and formats numbers exactly as Redis's util.c does, so
// that every command accepts and prints the same texts as Redis 7.0.
package num

import "strconv"

// ParseInt is Redis's string2ll: an optional '-', no '+', no leading zeros,
// no spaces, and the value must fit in int64.
func ParseInt(b []byte) (int64, bool) {
	n := len(b)
	if n == 0 || n > 20 {
		return 0, false
	}
	if n == 1 && b[0] == '0' {
		return 0, true
	}
	i := 0
	neg := false
	if b[0] == '-' {
		neg = true
		i++
		if n == 1 {
			return 0, false
		}
	}
	if b[i] < '1' || b[i] > '9' {
		return 0, false
	}
	var v uint64
	if n-i <= 18 {
		// Up to 18 digits cannot overflow: no checks per digit (most
		// arguments, a millisecond timestamp is 13).
		for ; i < n; i++ {
			d := b[i] - '0'
			if d > 9 {
				return 0, false
			}
			v = v*10 + uint64(d)
		}
		if neg {
			return -int64(v), true
		}
		return int64(v), true
	}
	for ; i < n; i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (1<<64-1)/10 {
			return 0, false
		}
		v *= 10
		if v > 1<<64-1-d {
			return 0, false
		}
		v += d
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > 1<<63-1 {
		return 0, false
	}
	return int64(v), true
}

// AppendInt appends the decimal text of v.
func AppendInt(dst []byte, v int64) []byte { return strconv.AppendInt(dst, v, 10) }
