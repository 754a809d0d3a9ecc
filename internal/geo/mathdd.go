package geo

import "math"

// Correctly rounded sin, cos and asin.
//
// Redis's distances come from glibc's libm, whose sin, cos and asin return
// the correctly rounded result for all but a vanishing fraction of inputs;
// Go's math package is only accurate to an ulp or two. GEOSEARCHSTORE ...
// STOREDIST shows a distance with 17 significant digits, so the last bit
// matters: these functions evaluate in double-double arithmetic (about 106
// bits) and round once, which agrees with glibc wherever glibc is correct.
// They cost a few hundred nanoseconds each, small beside a search's other
// work.

// dd is an unevaluated sum hi + lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

func quickTwoSum(a, b float64) (s, e float64) {
	s = a + b
	e = b - (s - a)
	return s, e
}

func ddAdd(x, y dd) dd {
	s, e := twoSum(x.hi, y.hi)
	t, f := twoSum(x.lo, y.lo)
	e += t
	s, e = quickTwoSum(s, e)
	e += f
	s, e = quickTwoSum(s, e)
	return dd{s, e}
}

func ddNeg(x dd) dd { return dd{-x.hi, -x.lo} }

func ddMul(x, y dd) dd {
	p := x.hi * y.hi
	e := math.FMA(x.hi, y.hi, -p)
	e += x.hi*y.lo + x.lo*y.hi
	p, e = quickTwoSum(p, e)
	return dd{p, e}
}

func ddMulF(x dd, f float64) dd {
	p := x.hi * f
	e := math.FMA(x.hi, f, -p)
	e += x.lo * f
	p, e = quickTwoSum(p, e)
	return dd{p, e}
}

func ddDivF(x dd, f float64) dd {
	q1 := x.hi / f
	r := ddAdd(x, ddNeg(ddMulF(dd{q1, 0}, f)))
	q2 := r.hi / f
	s, e := quickTwoSum(q1, q2)
	return dd{s, e}
}

// invFact[n] is 1/n! in double-double.
var invFact = func() [31]dd {
	var t [31]dd
	t[0] = dd{1, 0}
	for n := 1; n < len(t); n++ {
		t[n] = ddDivF(t[n-1], float64(n))
	}
	return t
}()

// π/2 in three parts, for Cody-Waite reduction.
const (
	pio2a = 1.5707963267948966
	pio2b = 6.123233995736766e-17
	pio2c = -1.4973849048591698e-33
)

// reduceBound is the largest argument reduced here; beyond it (never for
// coordinates in degrees converted to radians) math's functions are used.
const reduceBound = 1 << 20

// sincosDD returns sin and cos of r, |r| <= π/4, by Taylor series.
func sincosDD(r dd) (s, c dd) {
	r2 := ddMul(r, r)
	// sin r = r (1 - r²/3! + r⁴/5! - ...), cos r = 1 - r²/2! + r⁴/4! - ...
	s = invFact[29]
	for n := 27; n >= 1; n -= 2 {
		s = ddMul(s, r2)
		s = ddNeg(s)
		s = ddAdd(s, invFact[n])
	}
	s = ddMul(s, r)
	c = invFact[30]
	for n := 28; n >= 0; n -= 2 {
		c = ddMul(c, r2)
		c = ddNeg(c)
		c = ddAdd(c, invFact[n])
	}
	return s, c
}

// sincosOf returns sin and cos of x in double-double; ok is false beyond
// reduceBound.
func sincosOf(x dd) (s, c dd, ok bool) {
	if !(math.Abs(x.hi) <= reduceBound) {
		return dd{}, dd{}, false
	}
	k := math.RoundToEven(x.hi / pio2a)
	r := ddAdd(x, ddNeg(ddMulF(dd{pio2a, 0}, k)))
	r = ddAdd(r, dd{-pio2b * k, -math.FMA(pio2b, k, -pio2b*k)})
	r = ddAdd(r, dd{-pio2c * k, 0})
	s, c = sincosDD(r)
	switch int64(k) & 3 {
	case 1:
		s, c = c, ddNeg(s)
	case 2:
		s, c = ddNeg(s), ddNeg(c)
	case 3:
		s, c = ddNeg(c), s
	}
	return s, c, true
}

func (x dd) round() float64 { return x.hi + x.lo }

// Sin is sin(x), correctly rounded in practice.
func Sin(x float64) float64 {
	if x == 0 {
		return x // keeps the sign of zero
	}
	s, _, ok := sincosOf(dd{x, 0})
	if !ok {
		return math.Sin(x)
	}
	return s.round()
}

// Cos is cos(x), correctly rounded in practice.
func Cos(x float64) float64 {
	_, c, ok := sincosOf(dd{x, 0})
	if !ok {
		return math.Cos(x)
	}
	return c.round()
}

// Asin is asin(x), correctly rounded in practice: math.Asin refined by
// Newton steps on sin(y) = x in double-double (three near |x| = 1, where
// asin is steep and the first guess is further off).
func Asin(x float64) float64 {
	if !(math.Abs(x) < 1) || x == 0 {
		return math.Asin(x) // ±π/2 correctly rounded at ±1, NaN beyond, ±0
	}
	y := dd{math.Asin(x), 0}
	steps := 2
	if math.Abs(x) > 0.99 {
		steps = 3
	}
	for range steps {
		s, c, _ := sincosOf(y)
		f := ddAdd(s, dd{-x, 0})
		y = ddAdd(y, ddNeg(ddDivF(f, c.hi)))
	}
	return y.round()
}
