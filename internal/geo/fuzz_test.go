package geo

import (
	"math"
	"testing"
)

// FuzzEncodeDecode checks, for any position GEOADD accepts, that its score
// fits in 52 bits (54 at the maximum edges, whose cell index overflows its
// 26 bits as in Redis),
// that the decoded cell holds the position, and that re-encoding the
// decoded centre gives the same score (GEOADD of a GEOPOS reply is a
// no-op). Outside the limits Score must refuse.
func FuzzEncodeDecode(f *testing.F) {
	for _, p := range [][2]float64{{0, 0}, {13.361389, 38.115556}, {-180, -85.05112878}, {180, 85.05112878}, {179.9999999, -85.05112877},
		{math.Copysign(0, -1), 1e-300}, {181, 0}, {0, 86}, {math.Inf(1), 0}} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, lon, lat float64) {
		score, ok := Score(lon, lat)
		valid := ValidLonLat(lon, lat) && !math.IsNaN(lon) && !math.IsNaN(lat)
		if !valid {
			if ok && !math.IsNaN(lon) && !math.IsNaN(lat) {
				t.Fatalf("Score(%v, %v) accepted an invalid position", lon, lat)
			}
			return
		}
		if !ok {
			t.Fatalf("Score(%v, %v) refused a valid position", lon, lat)
		}
		// A coordinate at (or rounding to) its maximum overflows its bits.
		edge := lon > LonMax-1e-9 || lat > LatMax-1e-9
		if score >= 1<<54 || (score >= 1<<52 && !edge) {
			t.Fatalf("score %d too large", score)
		}
		dlon, dlat := DecodeScore(float64(score))
		if !ValidLonLat(dlon, dlat) {
			t.Fatalf("decoded %v, %v out of range", dlon, dlat)
		}
		if edge {
			return // the overflowed cell decodes to a clamped edge
		}
		a, _ := Decode(LonRange, LatRange, Bits{Bits: score, Step: StepMax})
		if lon < a.Lon.Min || lon > a.Lon.Max || lat < a.Lat.Min || lat > a.Lat.Max {
			t.Fatalf("%v, %v not in its cell %+v", lon, lat, a)
		}
		if again, _ := Score(dlon, dlat); again != score {
			t.Fatalf("centre %v, %v of %v, %v scores %d, not %d", dlon, dlat, lon, lat, again, score)
		}
		if d := Distance(lon, lat, dlon, dlat); !(d <= 1) {
			t.Fatalf("centre %v m from the point", d)
		}
		h := StandardHash(float64(score))
		for _, c := range h {
			if c < '0' || c > 'z' {
				t.Fatalf("hash %q", h)
			}
		}
	})
}

// FuzzDecodeScore feeds any score (ZADD can store any) to the decoders:
// they must not panic and must stay within the limits, and the searches'
// cell computation must accept the result as a centre.
func FuzzDecodeScore(f *testing.F) {
	for _, s := range []float64{0, -1, 1e300, math.Inf(-1), 1 << 52, 1<<52 - 1, 3479099956230698, 0.5} {
		f.Add(s, 100.0)
	}
	f.Fuzz(func(t *testing.T, score, radius float64) {
		if math.IsNaN(score) {
			return // no sorted set holds NaN
		}
		lon, lat := DecodeScore(score)
		if !ValidLonLat(lon, lat) {
			t.Fatalf("DecodeScore(%v) = %v, %v", score, lon, lat)
		}
		_ = StandardHash(score)
		if !(radius >= 0) || math.IsInf(radius, 0) {
			return
		}
		s := Shape{Lon: lon, Lat: lat, Radius: radius, Conversion: 1}
		for _, r := range s.ScanRanges() {
			if r.Max <= r.Min && r.Max != 0 {
				t.Fatalf("empty range %+v", r)
			}
		}
	})
}
