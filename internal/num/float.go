package num

import (
	"math"
	"math/big"
	"strconv"
	"unsafe"
)

// This file holds Redis 7.0's double and long double rules (util.c string2d,
// string2ld, ld2string; networking.c addReplyDouble; t_zset.c
// zslParseRange), emulating glibc's strtod/strtold and printf on x86-64.

// isSpace is C's isspace in the "C" locale (Redis never sets LC_NUMERIC or
// LC_CTYPE).
func isSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

// Kinds of text scanFloat recognises.
const (
	floatBad = iota // not fully consumed by strtod, or NaN
	floatDec        // [sign] digits [. digits] [e [sign] digits]
	floatHex        // [sign] 0x hexdigits [. hexdigits] [p [sign] digits]
	floatInf        // [sign] inf | infinity, any case
)

// floatScan is what scanFloat learnt about a number's text.
type floatScan struct {
	kind    int
	neg     bool
	nonzero bool // the mantissa has a nonzero digit
	hexExp  bool // a hex float has its 'p' exponent
	sign    int  // index after the optional sign
}

// scanFloat checks that strtod would consume the whole of s (which starts
// with no whitespace). Anything strtod reads as NaN is reported floatBad,
// since every Redis caller rejects NaN. '_' is never accepted (Go's
// strconv accepts it in hex floats; strtod does not).
func scanFloat(s []byte) floatScan {
	var r floatScan
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		r.neg = s[i] == '-'
		i++
	}
	r.sign = i
	if i == len(s) {
		return r
	}
	if c := s[i] | 0x20; c == 'i' || c == 'n' {
		rest := s[i:]
		if equalFold(rest, "inf") || equalFold(rest, "infinity") {
			r.kind = floatInf
		}
		return r // "nan", "nan(...)" and everything else
	}
	if s[i] == '0' && i+1 < len(s) && s[i+1]|0x20 == 'x' {
		j := i + 2
		digits := 0
		for ; j < len(s) && isHex(s[j]); j++ {
			digits++
			r.nonzero = r.nonzero || s[j] != '0'
		}
		if j < len(s) && s[j] == '.' {
			j++
			for ; j < len(s) && isHex(s[j]); j++ {
				digits++
				r.nonzero = r.nonzero || s[j] != '0'
			}
		}
		if digits == 0 {
			return r // strtod stops after the "0"
		}
		if j < len(s) && s[j]|0x20 == 'p' {
			j = scanExp(s, j+1)
			r.hexExp = true
		}
		if j == len(s) {
			r.kind = floatHex
		}
		return r
	}
	j := i
	digits := 0
	for ; j < len(s) && isDigit(s[j]); j++ {
		digits++
		r.nonzero = r.nonzero || s[j] != '0'
	}
	if j < len(s) && s[j] == '.' {
		j++
		for ; j < len(s) && isDigit(s[j]); j++ {
			digits++
			r.nonzero = r.nonzero || s[j] != '0'
		}
	}
	if digits == 0 {
		return r
	}
	if j < len(s) && s[j]|0x20 == 'e' {
		j = scanExp(s, j+1)
	}
	if j == len(s) {
		r.kind = floatDec
	}
	return r
}

// scanExp scans "[sign] digits" at s[i:] and returns the index after it, or
// -1 when there are no digits (strtod then leaves the exponent letter
// unconsumed, so the text is rejected).
func scanExp(s []byte, i int) int {
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }

// equalFold reports whether s equals the lower-case ASCII word w, ignoring
// case.
func equalFold(s []byte, w string) bool {
	if len(s) != len(w) {
		return false
	}
	for i := range s {
		if s[i]|0x20 != w[i] {
			return false
		}
	}
	return true
}

// convert turns text scanFloat accepted into a float64 the way glibc's
// strtod does (correctly rounded). It returns ±Inf on overflow and ±0 on
// underflow; rangeErr reports strtod's ERANGE for those two cases.
func convert(s []byte, r floatScan) (f float64, rangeErr bool) {
	switch r.kind {
	case floatInf:
		if r.neg {
			return math.Inf(-1), false
		}
		return math.Inf(1), false
	case floatHex:
		if !r.hexExp { // Go insists on the binary exponent
			var buf [64]byte
			t := append(append(buf[:0], s...), 'p', '0')
			f, err := strconv.ParseFloat(bytesString(t), 64)
			return f, err != nil || (f == 0 && r.nonzero)
		}
	}
	f, err := strconv.ParseFloat(bytesString(s), 64)
	return f, err != nil || (f == 0 && r.nonzero)
}

// bytesString views b as a string for strconv, which neither keeps nor
// modifies its argument (its errors clone the text).
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// ParseFloat is Redis 7.0's string2d (getDoubleFromObject), used for ZADD,
// ZINCRBY and every other double argument: strtod must consume the whole
// text; the text must not be empty nor start with whitespace; NaN, overflow
// and underflow to zero are rejected. Accepted are decimal numbers with an
// optional sign, "inf"/"infinity" in any case and hex floats ("0x10",
// "0x1.8p1").
func ParseFloat(b []byte) (float64, bool) {
	n := len(b)
	if n == 0 || isSpace(b[0]) {
		return 0, false
	}
	// Fast path: plain integers below 2^53 (scores are often timestamps).
	if n <= 15 {
		i := 0
		if b[0] == '-' {
			i = 1
		}
		var v int64
		for ; i < n; i++ {
			c := b[i]
			if c < '0' || c > '9' {
				break
			}
			v = v*10 + int64(c-'0')
		}
		if i == n && (b[0] != '-' || n > 1) {
			if b[0] == '-' {
				return -float64(v), true
			}
			return float64(v), true
		}
	}
	r := scanFloat(b)
	if r.kind == floatBad {
		return 0, false
	}
	f, rangeErr := convert(b, r)
	if rangeErr {
		return 0, false
	}
	return f, true
}

// ParseStrtod is bare strtod with only Redis's "eptr[0] == '\0'" check, as
// zslParseRange (ZRANGEBYSCORE, ZCOUNT, ZREMRANGEBYSCORE ... bounds) does:
// the text ends at its first NUL byte, leading whitespace is skipped, the
// empty text is 0, overflow gives ±Inf and underflow ±0. Only NaN and text
// strtod does not consume up to the end (or the first NUL) are rejected.
func ParseStrtod(b []byte) (float64, bool) {
	for i, c := range b {
		if c == 0 {
			b = b[:i]
			break
		}
	}
	if len(b) == 0 {
		return 0, true // no conversion: eptr is the start, at the NUL
	}
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	r := scanFloat(b[i:])
	if r.kind == floatBad {
		return 0, false // NaN, or eptr short of the end
	}
	f, _ := convert(b[i:], r)
	return f, true
}

// StrtodRange is ParseStrtod that also reports whether glibc's strtod sets
// ERANGE: on overflow, on underflow to zero, and on an inexact subnormal
// result (SORT rejects every ERANGE). An exact subnormal, such as
// "0x1p-1074", is not a range error.
func StrtodRange(b []byte) (f float64, ok, rangeErr bool) {
	for i, c := range b {
		if c == 0 {
			b = b[:i]
			break
		}
	}
	if len(b) == 0 {
		return 0, true, false
	}
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	r := scanFloat(b[i:])
	if r.kind == floatBad {
		return 0, false, false
	}
	f, rangeErr = convert(b[i:], r)
	if !rangeErr && f != 0 && math.Abs(f) < 0x1p-1022 {
		var exact big.Rat
		if _, ok := exact.SetString(string(b[i:])); !ok || exact.Cmp(new(big.Rat).SetFloat64(f)) != 0 {
			rangeErr = true
		}
	}
	return f, true, rangeErr
}

// AppendFloat appends d as Redis 7.0 replies a double in RESP2
// (addReplyDouble): C's "%.17g", and "inf"/"-inf" for the infinities.
// Negative zero prints "-0"; note that a small (listpack) sorted set never
// holds -0, since Redis stores it there as the integer 0.
func AppendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case f != f:
		return append(dst, "nan"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0"...)
		}
		return append(dst, '0')
	case f == math.Trunc(f) && f > -1e17 && f < 1e17:
		// %.17g prints integers below 1e17 in full, with no exponent.
		return strconv.AppendInt(dst, int64(f), 10)
	}
	return strconv.AppendFloat(dst, f, 'g', 17, 64)
}

// FormatFloat is AppendFloat to a string.
func FormatFloat(f float64) string { return string(AppendFloat(nil, f)) }

// ---------------------------------------------------------------------
// long double (INCRBYFLOAT, HINCRBYFLOAT)
//
// Redis does this arithmetic in C's long double, which on x86-64 is the
// x87 80-bit extended format: a 64-bit significand with explicit integer
// bit, exponents -16382..16383, subnormals down to 2^-16445. The values
// here are *big.Float of precision 64 holding exactly such numbers; every
// operation rounds to nearest, ties to even, once, from the exact result,
// subnormals included.

const (
	ldPrec = 64
	// ldMinExp is the big.Float exponent (mantissa in [0.5, 1)) of the
	// smallest normal number, 2^-16382.
	ldMinExp = -16381
	// ldMaxExp: every finite value is below 2^ldMaxExp.
	ldMaxExp = 16384
	// ldSubShift: the smallest subnormal is 2^-ldSubShift.
	ldSubShift = 16445
	// maxLongDoubleChars is Redis's MAX_LONG_DOUBLE_CHARS: string2ld
	// rejects texts of this length or more.
	maxLongDoubleChars = 5 * 1024
)

// roundLD rounds (m + frac) * 2^e, m >= 0, to the x87 extended format,
// where sticky reports that the fraction frac in [0, 1) is nonzero. It
// returns ±Inf on overflow and ±0 on underflow; rangeErr reports both, as
// strtold's ERANGE. m may be modified.
func roundLD(neg bool, m *big.Int, e int, sticky bool) (f *big.Float, rangeErr bool) {
	f = new(big.Float).SetPrec(ldPrec)
	n := m.BitLen()
	if n == 0 {
		// Callers pass sticky only with enough bits in m.
		f.SetInt64(0)
		if neg {
			f.Neg(f)
		}
		return f, false
	}
	E := n + e // m * 2^e lies in [2^(E-1), 2^E)
	if E > ldMaxExp {
		return f.SetInf(neg), true
	}
	p := ldPrec
	if E < ldMinExp {
		p = E + ldSubShift // subnormal: fewer significant bits
	}
	if p < 0 { // below half the smallest subnormal
		f.SetInt64(0)
		if neg {
			f.Neg(f)
		}
		return f, true
	}
	if d := n - p; d > 0 {
		// Round m to p bits, i.e. drop its d low bits.
		half := m.Bit(d - 1)
		below := sticky || lowBitsNonzero(m, d-1)
		m.Rsh(m, uint(d))
		e += d
		if half == 1 && (below || m.Bit(0) == 1) {
			m.Add(m, big.NewInt(1))
		}
	} else if sticky {
		panic("num: roundLD: sticky bits need a wider mantissa")
	}
	if m.Sign() == 0 {
		f.SetInt64(0)
		if neg {
			f.Neg(f)
		}
		return f, true
	}
	if m.BitLen()+e > ldMaxExp {
		return f.SetInf(neg), true
	}
	f.SetInt(m) // exact: m has at most 64 bits (or is 2^64)
	f.SetMantExp(f, e)
	if neg {
		f.Neg(f)
	}
	return f, false
}

// lowBitsNonzero reports whether any of the k lowest bits of m is set.
func lowBitsNonzero(m *big.Int, k int) bool {
	if k <= 0 {
		return false
	}
	t := m.TrailingZeroBits()
	return m.Sign() != 0 && int(t) < k
}

// ParseLongDouble is Redis 7.0's string2ld (getLongDoubleFromObject), the
// parser of INCRBYFLOAT and HINCRBYFLOAT: the same rules as ParseFloat but
// with glibc strtold into an x87 long double, and texts of 5120 bytes or
// more rejected. It returns a *big.Float of precision 64; "inf" parses to
// ±Inf (Redis only refuses it after the addition).
func ParseLongDouble(b []byte) (*big.Float, bool) {
	if len(b) == 0 || len(b) >= maxLongDoubleChars || isSpace(b[0]) {
		return nil, false
	}
	r := scanFloat(b)
	var (
		f        *big.Float
		rangeErr bool
	)
	switch r.kind {
	case floatBad:
		return nil, false
	case floatInf:
		return new(big.Float).SetPrec(ldPrec).SetInf(r.neg), true
	case floatHex:
		f, rangeErr = parseHexLD(b[r.sign+2:], r.neg)
	default:
		f, rangeErr = parseDecLD(b[r.sign:], r.neg)
	}
	if rangeErr {
		return nil, false
	}
	return f, true
}

// digitsAndExp splits mantissa text "ddd.ddd" followed by an optional
// exponent introduced by expChar into the digits (without the point), the
// count of digits after the point, and the exponent value, saturated far
// beyond any meaningful range.
func digitsAndExp(s []byte, expChar byte) (digits []byte, frac int, exp int64) {
	digits = make([]byte, 0, len(s))
	i := 0
	point := false
	for ; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			point = true
			continue
		}
		if c|0x20 == expChar {
			break
		}
		digits = append(digits, c)
		if point {
			frac++
		}
	}
	if i < len(s) {
		i++
		neg := false
		if s[i] == '+' || s[i] == '-' {
			neg = s[i] == '-'
			i++
		}
		for ; i < len(s); i++ {
			if exp < 1<<40 {
				exp = exp*10 + int64(s[i]-'0')
			}
		}
		if neg {
			exp = -exp
		}
	}
	return digits, frac, exp
}

// parseDecLD converts "digits[.digits][e[sign]digits]" to long double.
func parseDecLD(s []byte, neg bool) (*big.Float, bool) {
	digits, frac, exp := digitsAndExp(s, 'e')
	for len(digits) > 0 && digits[0] == '0' {
		digits = digits[1:]
	}
	m := new(big.Int)
	if len(digits) == 0 {
		return roundLD(neg, m, 0, false)
	}
	m.SetString(string(digits), 10)
	e10 := exp - int64(frac) // value = m * 10^e10
	mag := e10 + int64(len(digits)) - 1
	switch {
	case mag > 4933: // >= 1e4934 > LDBL_MAX (1.19e4932)
		return roundLD(neg, m, ldMaxExp+1, false)
	case mag < -4953: // < 1e-4953, under half the smallest subnormal
		return roundLD(neg, m, -ldSubShift-1<<20, false)
	}
	if e10 >= 0 {
		m.Mul(m, new(big.Int).Exp(big.NewInt(10), big.NewInt(e10), nil))
		return roundLD(neg, m, 0, false)
	}
	// m / 10^-e10: take a quotient of at least ldPrec+2 bits and let the
	// remainder be the sticky bit.
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(-e10), nil)
	s2 := ldPrec + 2 + den.BitLen() - m.BitLen() + 1
	if s2 > 0 {
		m.Lsh(m, uint(s2))
	} else {
		den.Lsh(den, uint(-s2))
	}
	q, rem := new(big.Int).QuoRem(m, den, new(big.Int))
	return roundLD(neg, q, -s2, rem.Sign() != 0)
}

// parseHexLD converts "hexdigits[.hexdigits][p[sign]digits]" (after "0x")
// to long double.
func parseHexLD(s []byte, neg bool) (*big.Float, bool) {
	digits, frac, exp := digitsAndExp(s, 'p')
	m := new(big.Int)
	if len(digits) > 0 {
		m.SetString(string(digits), 16)
	}
	e := exp - 4*int64(frac)
	if m.Sign() != 0 {
		// Clamp far out-of-range exponents; roundLD then saturates.
		if top := e + int64(m.BitLen()); top > ldMaxExp+1 {
			e = ldMaxExp + 1
		} else if top < -ldSubShift-2 {
			e = -ldSubShift - 2 - int64(m.BitLen())
		}
	}
	return roundLD(neg, m, int(e), false)
}

// dyadic returns m, e with |f| = m * 2^e, f finite and nonzero.
func dyadic(f *big.Float) (*big.Int, int) {
	mant := new(big.Float)
	exp := f.MantExp(mant) // f = mant * 2^exp, 0.5 <= |mant| < 1
	prec := int(f.MinPrec())
	mant.SetMantExp(mant, prec) // an integer now
	m, _ := mant.Int(nil)
	return m.Abs(m), exp - prec
}

// AddLongDouble adds two long doubles as x87 does (exact sum, one rounding
// to nearest even at 64 bits, subnormals and signed zeros as IEEE 754).
// ok is false when the sum is NaN (returned as nil) or infinite, which is
// Redis's "increment would produce NaN or Infinity".
func AddLongDouble(a, b *big.Float) (sum *big.Float, ok bool) {
	if a.IsInf() || b.IsInf() {
		if a.IsInf() && b.IsInf() && a.Signbit() != b.Signbit() {
			return nil, false
		}
		if a.IsInf() {
			return new(big.Float).SetPrec(ldPrec).SetInf(a.Signbit()), false
		}
		return new(big.Float).SetPrec(ldPrec).SetInf(b.Signbit()), false
	}
	if a.Sign() == 0 && b.Sign() == 0 {
		z := new(big.Float).SetPrec(ldPrec)
		if a.Signbit() && b.Signbit() {
			z.Neg(z)
		}
		return z, true
	}
	if a.Sign() == 0 {
		return new(big.Float).SetPrec(ldPrec).Set(b), true
	}
	if b.Sign() == 0 {
		return new(big.Float).SetPrec(ldPrec).Set(a), true
	}
	ma, ea := dyadic(a)
	mb, eb := dyadic(b)
	if a.Signbit() {
		ma.Neg(ma)
	}
	if b.Signbit() {
		mb.Neg(mb)
	}
	if ea > eb {
		ma.Lsh(ma, uint(ea-eb))
		ea = eb
	} else {
		mb.Lsh(mb, uint(eb-ea))
	}
	ma.Add(ma, mb)
	if ma.Sign() == 0 {
		return new(big.Float).SetPrec(ldPrec), true // x - x = +0
	}
	neg := ma.Sign() < 0
	f, rangeErr := roundLD(neg, ma.Abs(ma), ea, false)
	return f, !rangeErr && !f.IsInf()
}

// AppendLongDoubleHuman appends f as Redis's ld2string(LD_STR_HUMAN), the
// reply and stored value of INCRBYFLOAT: "%.17Lf" with trailing zeros (and
// then a trailing '.') removed, "-0" turned into "0", and "inf"/"-inf".
// No finite long double is too long for Redis's 5120-byte buffer (the
// longest is 4952 bytes), so the result is never refused.
func AppendLongDoubleHuman(dst []byte, f *big.Float) []byte {
	if f.IsInf() {
		if f.Signbit() {
			return append(dst, "-inf"...)
		}
		return append(dst, "inf"...)
	}
	if f.Sign() == 0 || f.MantExp(nil) < -60 {
		// |f| < 2^-61 prints "0.00000000000000000" (or "-0.000..."):
		// skip the exact decimal expansion of tiny values.
		return append(dst, '0')
	}
	start := len(dst)
	dst = f.Append(dst, 'f', 17)
	l := len(dst)
	for dst[l-1] == '0' {
		l--
	}
	if dst[l-1] == '.' {
		l--
	}
	dst = dst[:l]
	if string(dst[start:]) == "-0" {
		dst = append(dst[:start], '0')
	}
	return dst
}

// FormatLongDoubleHuman is AppendLongDoubleHuman to a string.
func FormatLongDoubleHuman(f *big.Float) string {
	return string(AppendLongDoubleHuman(nil, f))
}
