package geo

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Expected values are Redis 7.0.15's replies for the same input.

func TestScore(t *testing.T) {
	for _, c := range []struct {
		lon, lat float64
		score    uint64
	}{
		{13.361389, 38.115556, 3479099956230698},
		{15.087269, 37.502669, 3479447370796909},
		// Each coordinate's maximum overflows its 26 bits, as in Redis.
		{0, 85.05112878, 6755399441055744},
		{180, 0, 10133099161583616},
		{180, 85.05112878, 13510798882111488},
		{-180, -85.05112878, 0},
	} {
		got, ok := Score(c.lon, c.lat)
		if !ok || got != c.score {
			t.Errorf("Score(%v, %v) = %d, %v; want %d", c.lon, c.lat, got, ok, c.score)
		}
	}
	for _, c := range [][2]float64{{180.0000001, 0}, {-181, 0}, {0, 85.05112879}, {0, -90}, {math.Inf(1), 0}} {
		if _, ok := Score(c[0], c[1]); ok || ValidLonLat(c[0], c[1]) {
			t.Errorf("Score(%v, %v) accepted", c[0], c[1])
		}
	}
}

func TestDecodeScore(t *testing.T) {
	for _, c := range []struct {
		score    float64
		lon, lat float64
		hash     string
	}{
		{3479099956230698, 13.36138933897018433, 38.11555639549629859, "sqc8b49rny0"},
		{3479447370796909, 15.08726745843887329, 37.50266842333162032, "sqdtr74hyu0"},
		// Scores no GEOADD writes, converted as C on x86-64 does.
		{-1, 180, 85.0511287799999991, "bp05b5048p0"},
		{-1.5, 180, 85.0511287799999991, "bp05b5048p0"},
		{1e300, -179.99999731779098511, -85.05112751263942528, "00bh0hbj200"},
		{math.Inf(1), -179.99999731779098511, -85.05112751263942528, "00bh0hbj200"},
		{math.Inf(-1), 180, -85.05112751263942528, "00bh0hbj200"},
		{9007199254740993, 180, -85.05112751263942528, "00bh0hbj200"},
		{4503599627370496, -179.99999731779098511, 85.0511287799999991, "bp05b5048p0"},
		{4503599627370495, 179.99999731779098511, 85.05112751263942528, "zzpgzgpfxz0"},
		{1e19, 180, 85.0511287799999991, "bp05b5048p0"},
		{18446744073709551616, -179.99999731779098511, -85.05112751263942528, "00bh0hbj200"},
		{-1e19, 180, -85.05112751263942528, "00bh0hbj200"},
	} {
		lon, lat := DecodeScore(c.score)
		if lon != c.lon || lat != c.lat {
			t.Errorf("DecodeScore(%v) = %v, %v; want %v, %v", c.score, lon, lat, c.lon, c.lat)
		}
		if h := StandardHash(c.score); string(h[:]) != c.hash {
			t.Errorf("StandardHash(%v) = %s, want %s", c.score, h[:], c.hash)
		}
	}
}

func TestScoreBits(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want uint64
	}{
		{0, 0}, {1.9, 1}, {-1, math.MaxUint64}, {-2.5, math.MaxUint64 - 1},
		{-1e19, 1 << 63}, {1e19, 10000000000000000000}, {1 << 64, 0}, {math.Inf(1), 0}, {math.Inf(-1), 1 << 63},
	} {
		if got := ScoreBits(c.in); got != c.want {
			t.Errorf("ScoreBits(%v) = %#x, want %#x", c.in, got, c.want)
		}
	}
}

func TestNeighbours(t *testing.T) {
	// At step 1 the world is 2x2 cells: every move wraps.
	h, _ := EncodeWGS84(-90, -40, 1) // lon cell 0, lat cell 0: bits 00
	n := Neighbours(h)
	want := [NumCells]uint64{CellCentre: 0b00, CellN: 0b01, CellS: 0b01, CellE: 0b10, CellW: 0b10, CellNE: 0b11, CellNW: 0b11, CellSE: 0b11, CellSW: 0b11}
	for i := range n {
		if n[i].Bits != want[i] || n[i].Step != 1 {
			t.Errorf("cell %d = %+v, want bits %b", i, n[i], want[i])
		}
	}
	// At step 26 neighbours differ by one cell per coordinate.
	h, _ = EncodeWGS84(13.361389, 38.115556, StepMax)
	a, _ := Decode(LonRange, LatRange, h)
	for i, d := range [NumCells][2]int{{0, 0}, {0, 1}, {0, -1}, {1, 0}, {-1, 0}, {1, 1}, {-1, 1}, {1, -1}, {-1, -1}} {
		b, _ := Decode(LonRange, LatRange, Neighbours(h)[i])
		dlon := math.Round((b.Lon.Min - a.Lon.Min) / (a.Lon.Max - a.Lon.Min))
		dlat := math.Round((b.Lat.Min - a.Lat.Min) / (a.Lat.Max - a.Lat.Min))
		if int(dlon) != d[0] || int(dlat) != d[1] {
			t.Errorf("cell %d moved %v,%v; want %v", i, dlon, dlat, d)
		}
	}
	// East of the antimeridian's last cell is the first one.
	h, _ = EncodeWGS84(179.9999999, 0, StepMax)
	e, _ := Decode(LonRange, LatRange, Neighbours(h)[CellE])
	if e.Lon.Min != -180 {
		t.Errorf("east of 180 starts at %v", e.Lon.Min)
	}
}

func TestDistance(t *testing.T) {
	plon, plat := DecodeScore(3479099956230698)
	clon, clat := DecodeScore(3479447370796909)
	for _, c := range []struct {
		lon1, lat1, lon2, lat2, want float64
	}{
		{plon, plat, clon, clat, 166274.15156960033},
		{clon, clat, plon, plat, 166274.15156960033},
		{0, 0, 0, 0, 0},
		{0, 10, 0, 20, EarthRadius * (20*dToR - 10*dToR)}, // the meridian shortcut
		{0, 0, 180, 0, EarthRadius * math.Pi},
	} {
		if got := Distance(c.lon1, c.lat1, c.lon2, c.lat2); math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("Distance(%v, %v, %v, %v) = %v, want %v", c.lon1, c.lat1, c.lon2, c.lat2, got, c.want)
		}
	}
}

func TestShapeContains(t *testing.T) {
	circle := Shape{Lon: 15, Lat: 37, Radius: 200, Conversion: 1000}
	box := Shape{Box: true, Lon: 15, Lat: 37, Width: 400, Height: 400, Conversion: 1000}
	plon, plat := DecodeScore(3479099956230698)
	if d, ok := circle.Contains(plon, plat); !ok || math.Abs(d-190442.4298) > 0.01 {
		t.Errorf("circle: %v %v", d, ok)
	}
	if _, ok := (&Shape{Lon: 15, Lat: 37, Radius: 190, Conversion: 1000}).Contains(plon, plat); ok {
		t.Error("Palermo is more than 190 km away")
	}
	if _, ok := box.Contains(plon, plat); !ok {
		t.Error("box misses Palermo")
	}
	if _, ok := (&Shape{Box: true, Lon: 15, Lat: 37, Width: 400, Height: 10, Conversion: 1000}).Contains(plon, plat); ok {
		t.Error("flat box holds Palermo")
	}
}

func TestEstimateSteps(t *testing.T) {
	for _, c := range []struct {
		r, lat float64
		want   uint8
	}{
		{0, 0, 26}, {1, 0, 24}, {200000, 0, 6}, {200000, 70, 5}, {200000, -85, 4}, {5e6, 0, 2}, {2e7, 0, 1}, {1e9, 0, 1}, {0.01, 0, 26},
	} {
		if got := EstimateSteps(c.r, c.lat); got != c.want {
			t.Errorf("EstimateSteps(%v, %v) = %d, want %d", c.r, c.lat, got, c.want)
		}
	}
}

// TestScanRangesCover checks that every point in a shape lies in one of
// the score ranges a search reads.
func TestScanRangesCover(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		s := Shape{Box: r.IntN(2) == 0, Lon: r.Float64()*360 - 180, Lat: r.Float64()*170 - 85, Conversion: 1}
		size := math.Pow(10, r.Float64()*7)
		s.Radius, s.Width, s.Height = size, size*(0.1+r.Float64()*2), size*(0.1+r.Float64()*2)
		ranges := s.ScanRanges()
		for range 50 {
			sc := float64(r.Uint64N(1 << 52))
			lon, lat := DecodeScore(sc)
			if _, in := s.Contains(lon, lat); !in {
				continue
			}
			found := false
			for _, rg := range ranges {
				if sc >= float64(rg.Min) && sc < float64(rg.Max) {
					found = true
				}
			}
			if !found {
				t.Fatalf("%+v: %v,%v (score %v) inside but not scanned (%v)", s, lon, lat, sc, ranges)
			}
		}
	}
}

func TestPartialSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	type el struct{ key, id int }
	byKey := func(a, b *el) int { return cmp.Compare(a.key, b.key) }
	for range 3000 {
		n := 1 + r.IntN(120)
		a := make([]el, n)
		for i := range a {
			a[i] = el{r.IntN(1 + r.IntN(n*2)), i}
		}
		want := slices.Clone(a)
		slices.SortFunc(want, func(x, y el) int { return byKey(&x, &y) })
		k := 1 + r.IntN(n)
		got := slices.Clone(a)
		PartialSort(got, byKey, 0, k-1)
		for i := range k {
			if got[i].key != want[i].key {
				t.Fatalf("n=%d k=%d: element %d has key %d, want %d", n, k, i, got[i].key, want[i].key)
			}
		}
		seen := make(map[int]bool)
		for _, e := range got {
			seen[e.id] = true
		}
		if len(seen) != n {
			t.Fatalf("n=%d: elements lost", n)
		}
	}
	// A partition outside the requested range is left unsorted.
	a := []int{9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10}
	PartialSort(a, func(x, y *int) int { return cmp.Compare(*x, *y) }, 0, 0)
	if a[0] != 0 || slices.IsSorted(a) {
		t.Errorf("partial sort of the first element: %v", a)
	}
}

func TestCorrectlyRounded(t *testing.T) {
	// Inputs where Go's math package and glibc misround; the values were
	// checked with 200-bit arithmetic.
	for _, c := range []struct {
		f       func(float64) float64
		x, want float64
	}{
		{Sin, -0.040737318410315915, -0.04072605188424349},
		{Cos, -1.1675185966949186, 0.3924352343879011},
		{Asin, 0.023220640433868612, 0.02322272769472313},
		{Sin, -0.5866494405386633, -0.5535737890471243},
		{Sin, 0, 0}, {Cos, 0, 1}, {Asin, 1, math.Pi / 2}, {Asin, -1, -math.Pi / 2},
		{Cos, 1.5707963267948966, 6.123233995736766e-17}, {Sin, math.Pi, 1.2246467991473532e-16},
	} {
		if got := c.f(c.x); got != c.want {
			t.Errorf("f(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if !math.IsNaN(Asin(1.0000000000000002)) || !math.Signbit(Sin(math.Copysign(0, -1))) {
		t.Error("asin beyond 1 or sin(-0)")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		x := (r.Float64()*2 - 1) * 7
		for _, p := range [][2]float64{{Sin(x), math.Sin(x)}, {Cos(x), math.Cos(x)}} {
			if math.Abs(p[0]-p[1]) > 2*math.Abs(math.Nextafter(p[1], 0)-p[1])+1e-300 {
				t.Fatalf("x=%v: %v vs math %v", x, p[0], p[1])
			}
		}
		y := r.Float64()
		// math.Asin is several ulps off near 1.
		if a, b := Asin(y), math.Asin(y); math.Abs(a-b) > 8*math.Abs(math.Nextafter(b, 0)-b) {
			t.Fatalf("asin(%v): %v vs math %v", y, a, b)
		}
	}
}

// TestNotFarther checks the fast path of the shape tests against the
// precise distance, with limits at, and one ulp either side of, the
// distance itself, where the fast path must defer to the precise one.
func TestNotFarther(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 20000 {
		lon1, lat1 := r.Float64()*360-180, r.Float64()*170-85
		lon2, lat2 := lon1+(r.Float64()*2-1)*math.Pow(10, r.Float64()*3-1), lat1+(r.Float64()*2-1)*math.Pow(10, r.Float64()*2-1)
		if r.IntN(10) == 0 {
			lon2, lat2 = -lon1+180, -lat1 // near the antipode
		}
		d := Distance(lon1, lat1, lon2, lat2)
		for _, limit := range []float64{d, math.Nextafter(d, 0), math.Nextafter(d, math.Inf(1)), d * 0.9, d * 1.1, 0} {
			if got, want := notFarther(lon1, lat1, lon2, lat2, limit), !(d > limit); got != want {
				t.Fatalf("(%v,%v)-(%v,%v) within %v: %v, precise %v (distance %v)", lon1, lat1, lon2, lat2, limit, got, want, d)
			}
		}
	}
}
