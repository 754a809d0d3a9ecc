package lua

import (
	"math"
	"strconv"
	"strings"
)

// Lua 5.1's string-to-number conversion (luaO_str2d), as Redis's Lua runs
// it on glibc: strtod, which reads decimal and hexadecimal floats, inf and
// nan, with leading spaces and a sign; if it stops at an 'x', strtoul in
// base 16; then nothing but spaces may follow. Upstream used Go's
// ParseInt/ParseFloat, which refuse "0x1p4" and " 1e400" turns into an
// error rather than inf. The lexer, coercions and tonumber share it.

func isSpace51(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

func isHex51(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c|0x20 && c|0x20 <= 'f')
}

func isDec51(c byte) bool { return '0' <= c && c <= '9' }

// strtod51 is glibc's strtod: the value and how many bytes it read (0: no
// conversion).
func strtod51(s string) (float64, int) {
	i := 0
	for i < len(s) && isSpace51(s[i]) {
		i++
	}
	start := i
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	signed := func(v float64) float64 {
		if neg {
			return -v
		}
		return v
	}
	rest := strings.ToLower(s[i:min(len(s), i+8)])
	switch {
	case strings.HasPrefix(rest, "infinity"):
		return signed(math.Inf(1)), i + 8
	case strings.HasPrefix(rest, "inf"):
		return signed(math.Inf(1)), i + 3
	case strings.HasPrefix(rest, "nan"):
		j := i + 3
		if j < len(s) && s[j] == '(' {
			k := j + 1
			for k < len(s) && (isDec51(s[k]) || ('a' <= s[k]|0x20 && s[k]|0x20 <= 'z') || s[k] == '_') {
				k++
			}
			if k < len(s) && s[k] == ')' {
				j = k + 1
			}
		}
		return signed(math.NaN()), j
	}
	if i+1 < len(s) && s[i] == '0' && (s[i+1]|0x20) == 'x' {
		j, digits := i+2, 0
		for j < len(s) && isHex51(s[j]) {
			j, digits = j+1, digits+1
		}
		if j < len(s) && s[j] == '.' {
			j++
			for j < len(s) && isHex51(s[j]) {
				j, digits = j+1, digits+1
			}
		}
		if digits > 0 {
			mant := s[i:j]
			if (s[j-1]) == '.' {
				mant = mant[:len(mant)-1]
			}
			exp := "p0"
			if j < len(s) && (s[j]|0x20) == 'p' {
				k := j + 1
				if k < len(s) && (s[k] == '+' || s[k] == '-') {
					k++
				}
				if k < len(s) && isDec51(s[k]) {
					for k < len(s) && isDec51(s[k]) {
						k++
					}
					exp, j = s[j:k], k
				}
			}
			if strings.HasPrefix(mant[2:], ".") {
				mant = "0x0" + mant[2:]
			}
			v, _ := strconv.ParseFloat(mant+exp, 64)
			return signed(v), j
		}
		// "0x" alone: strtod reads the 0.
		return signed(0), i + 1
	}
	j, digits := i, 0
	for j < len(s) && isDec51(s[j]) {
		j, digits = j+1, digits+1
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isDec51(s[j]) {
			j, digits = j+1, digits+1
		}
	}
	if digits == 0 {
		return 0, 0
	}
	if j < len(s) && (s[j]|0x20) == 'e' {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDec51(s[k]) {
			for k < len(s) && isDec51(s[k]) {
				k++
			}
			j = k
		}
	}
	// Out of range: strtod gives +-HUGE_VAL or 0 (and ERANGE, which Lua
	// does not look at); ParseFloat gives the same values with an error.
	v, _ := strconv.ParseFloat(s[start:j], 64)
	return v, j
}

// strtoul51 is strtoul(s, &end, base): the value (ULONG_MAX on overflow,
// negated as an unsigned number after a '-') and how many bytes it read.
func strtoul51(s string, base int) (uint64, int) {
	i := 0
	for i < len(s) && isSpace51(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if base == 16 && i+2 < len(s) && s[i] == '0' && (s[i+1]|0x20) == 'x' && isHex51(s[i+2]) {
		i += 2
	}
	var n uint64
	overflow := false
	j := i
digits:
	for ; j < len(s); j++ {
		c := s[j]
		var d int
		switch {
		case isDec51(c):
			d = int(c - '0')
		case 'a' <= c|0x20 && c|0x20 <= 'z':
			d = int(c|0x20-'a') + 10
		default:
			d = 99
		}
		if d >= base {
			break digits
		}
		if n > (math.MaxUint64-uint64(d))/uint64(base) {
			overflow = true
		}
		n = n*uint64(base) + uint64(d)
	}
	if j == i {
		return 0, 0
	}
	if overflow {
		return math.MaxUint64, j
	}
	if neg {
		n = -n
	}
	return n, j
}

// str2d51 is luaO_str2d.
func str2d51(s string) (float64, bool) {
	v, n := strtod51(s)
	if n == 0 {
		return 0, false
	}
	if n < len(s) && (s[n]|0x20) == 'x' {
		u, m := strtoul51(s, 16)
		v, n = float64(u), m
	}
	for n < len(s) && isSpace51(s[n]) {
		n++
	}
	return v, n == len(s)
}

// tonumberBase51 is luaB_tonumber for a base other than 10.
func tonumberBase51(s string, base int) (float64, bool) {
	u, n := strtoul51(s, base)
	if n == 0 {
		return 0, false
	}
	for n < len(s) && isSpace51(s[n]) {
		n++
	}
	return float64(u), n == len(s)
}

// Str2Number is Lua 5.1's luaO_str2d, for the libraries limitkv adds.
func Str2Number(s string) (float64, bool) { return str2d51(s) }

// ToNumberBase is Lua 5.1's tonumber(s, base) for a base other than 10
// (2 to 36, checked by the caller).
func ToNumberBase(s string, base int) (float64, bool) { return tonumberBase51(s, base) }
