package geo

import "math"

// Correctly rounded sin, cos and asin.
//
// Redis's distances come from glibc's libm, whose sin, cos and asin return
// the correctly rounded result for all but about one input in a thousand;
// Go's math package misrounds about one in four. GEOSEARCHSTORE ...
// STOREDIST shows a distance with 17 significant digits, so the last bit
// matters: these functions evaluate in double-double arithmetic (to about
// 2^-70 or better) and round once, which agrees with glibc wherever glibc
// is correct. The remaining disagreements are recorded in
// conformance.TestGeoKnownDivergence.
//
// They cost about ten times math's (~100 ns), so the searches decide which
// points are inside with math's functions and a safety margin
// (fastDistance) and call these only near the boundary and for the
// distances a reply shows or a sort compares.

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

// seriesDD evaluates Σ (-1)^k z^k / (2k+off)! for z = r², the sine
// (off 1, times r) or cosine (off 0) series of a reduced argument
// |r| <= π/4. Terms from k = 7 on are below 2^-41 and are summed in plain
// doubles; the first seven, which carry the result's low bits, in
// double-double.
func seriesDD(z dd, off int) dd {
	const split = 7
	t := 0.0
	for k := 15 - off; k >= split; k-- {
		t = t*z.hi + invFactF[2*k+off]*sign(k)
	}
	acc := dd{t, 0}
	for k := split - 1; k >= 0; k-- {
		c := invFact[2*k+off]
		if k&1 == 1 {
			c = ddNeg(c)
		}
		acc = ddAdd(ddMul(acc, z), c)
	}
	return acc
}

func sign(k int) float64 {
	if k&1 == 1 {
		return -1
	}
	return 1
}

// invFactF is invFact rounded to doubles, for the series' tails.
var invFactF = func() [len(invFact)]float64 {
	var t [len(invFact)]float64
	for i, v := range invFact {
		t[i] = v.hi
	}
	return t
}()

// reduce returns r = x - k·π/2 in double-double and k mod 4; ok is false
// beyond reduceBound.
func reduce(x dd) (r dd, quadrant int, ok bool) {
	if !(math.Abs(x.hi) <= reduceBound) {
		return dd{}, 0, false
	}
	k := math.RoundToEven(x.hi / pio2a)
	r = ddAdd(x, ddNeg(ddMulF(dd{pio2a, 0}, k)))
	r = ddAdd(r, dd{-pio2b * k, -math.FMA(pio2b, k, -pio2b*k)})
	r = ddAdd(r, dd{-pio2c * k, 0})
	return r, int(int64(k) & 3), true
}

// sinCosTable holds sin and cos of j/64 for |j| <= 51 (up to just past
// π/4), computed once with the series: the reduced argument is split into
// a table point and a remainder below 1/128, whose sine and cosine need only
// a few terms.
var sinCosTable = func() (t [103][2]dd) {
	for j := -51; j <= 51; j++ {
		a := dd{float64(j) / 64, 0}
		z := ddMul(a, a)
		t[j+51] = [2]dd{ddMul(seriesDD(z, 1), a), seriesDD(z, 0)}
	}
	return t
}()

// sinCosReduced returns sin and cos of r, |r| <= π/4 + a little, to about
// 2^-70 relative: sin(a+t) = S cos t + C sin t, cos(a+t) = C cos t - S sin t,
// with cos t = 1 + w and sin t = t (1 + q), w and q small enough that doubles
// carry all they need but w's leading term, -t²/2, kept exact.
func sinCosReduced(r dd) (sin, cos dd) {
	j := math.RoundToEven(r.hi * 64)
	t := ddAdd(r, dd{-j / 64, 0})
	sc := sinCosTable[int(j)+51]
	S, C := sc[0], sc[1]
	th := t.hi
	t2 := th * th
	p := t2
	e := math.FMA(th, th, -p)
	// w = cos t - 1 = -t²/2 + t⁴/24 - t⁶/720, the -t²/2 of t.hi exact.
	wlo := -e/2 - th*t.lo + t2*t2*(1.0/24-t2*(1.0/720-t2*(1.0/40320)))
	w := dd{-p / 2, 0}
	w = ddAdd(w, dd{wlo, 0})
	// tq = sin t - t = t (-t²/6 + t⁴/120 - t⁶/5040).
	tq := th * t2 * (-1.0/6 + t2*(1.0/120-t2*(1.0/5040-t2*(1.0/362880))))
	// sin = S + S w + C t + C tq; cos = C + C w - S t - S tq.
	sin = ddAdd(ddAdd(S, ddMul(S, w)), ddAdd(ddMul(C, t), dd{C.hi * tq, 0}))
	cos = ddAdd(ddAdd(C, ddMul(C, w)), ddNeg(ddAdd(ddMul(S, t), dd{S.hi * tq, 0})))
	return sin, cos
}

// sinOf is sin(x) in double-double.
func sinOf(x dd) (dd, bool) {
	r, q, ok := reduce(x)
	if !ok {
		return dd{}, false
	}
	s, c := sinCosReduced(r)
	switch q {
	case 0:
		return s, true
	case 1:
		return c, true
	case 2:
		return ddNeg(s), true
	}
	return ddNeg(c), true
}

// cosOf is cos(x) in double-double.
func cosOf(x dd) (dd, bool) {
	r, q, ok := reduce(x)
	if !ok {
		return dd{}, false
	}
	s, c := sinCosReduced(r)
	switch q {
	case 0:
		return c, true
	case 1:
		return ddNeg(s), true
	case 2:
		return ddNeg(c), true
	}
	return s, true
}

func (x dd) round() float64 { return x.hi + x.lo }

// Sin is sin(x), correctly rounded in practice.
func Sin(x float64) float64 {
	if x == 0 {
		return x // keeps the sign of zero
	}
	s, ok := sinOf(dd{x, 0})
	if !ok {
		return math.Sin(x)
	}
	return s.round()
}

// Cos is cos(x), correctly rounded in practice.
func Cos(x float64) float64 {
	c, ok := cosOf(dd{x, 0})
	if !ok {
		return math.Cos(x)
	}
	return c.round()
}

// Asin is asin(x), correctly rounded in practice: math.Asin (a few ulps
// off) refined by Newton steps y -= (sin y - x) / cos y, the sine in
// double-double; the derivative needs no more than a double. One step
// squares the error; near |x| = 1, where asin is steep, three are taken.
func Asin(x float64) float64 {
	if !(math.Abs(x) < 1) || x == 0 {
		return math.Asin(x) // ±π/2 correctly rounded at ±1, NaN beyond, ±0
	}
	y := dd{math.Asin(x), 0}
	steps := 1
	if math.Abs(x) > 0.99 {
		steps = 3
	}
	for range steps {
		s, _ := sinOf(y)
		f := ddAdd(s, dd{-x, 0})
		y = ddAdd(y, ddNeg(ddDivF(f, math.Cos(y.hi))))
	}
	return y.round()
}
