package commands

import (
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/family/zsetcmd"

	"github.com/limitkv/limitkv/internal/geo"
	"github.com/limitkv/limitkv/internal/zset"
)

// Unit tests of the GEO family. Parity with Redis is proven in
// conformance/geo_test.go and geo_random_test.go; these pin the formatting
// and the search logic without a Redis at hand.

func TestGeoFormatting(t *testing.T) {
	for _, c := range []struct {
		d    float64
		want string
	}{
		{0, "0.0000"}, {166274.15156960033, "166274.1516"}, {0.00004, "0.0000"}, {0.00005, "0.0000"}, {0.00015, "0.0001"}, {0.00025, "0.0002"}, {0.00035, "0.0004"},
		{0.0123, "0.0123"}, {1, "1.0000"}, {12.3456789, "12.3457"}, {20037726.37, "20037726.3700"}, {-1.5, "-1.5000"},
	} {
		if got := string(zsetcmd.AppendGeoDistance(nil, c.d)); got != c.want {
			t.Errorf("distance %v = %q, want %q", c.d, got, c.want)
		}
	}
	for _, c := range []struct {
		f    float64
		want string
	}{
		{13.36138933897018433, "13.36138933897018433"}, {85.05112878, "85.0511287799999991"}, {180, "180"}, {-180, "-180"},
		{0, "0"}, {math.Copysign(0, -1), "0"}, {0.5, "0.5"}, {1e-18, "0"}, {-1e-18, "0"}, {math.Inf(1), "inf"},
	} {
		if got := string(zsetcmd.AppendGeoCoord(nil, c.f)); got != c.want {
			t.Errorf("coord %v = %q, want %q", c.f, got, c.want)
		}
	}
	for _, c := range []struct {
		f    float64
		want string
	}{{200, "200.000000"}, {math.Inf(-1), "-inf"}, {1e30, "1000000000000000019884624838656.000000"}, {math.Copysign(0, -1), "-0.000000"}} {
		if got := engine.CFixed6(c.f); got != c.want {
			t.Errorf("%%f of %v = %q, want %q", c.f, got, c.want)
		}
	}
}

func TestGeoCommands(t *testing.T) {
	add := cmd(integer(2), "GEOADD", "k", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania")
	runCases(t, []cmdCase{
		{"add and read", []step{add, cmd(bulk("3479099956230698"), "ZSCORE", "k", "Palermo"),
			cmd(array(array(bulk("13.36138933897018433"), bulk("38.11555639549629859")), nilArray), "GEOPOS", "k", "Palermo", "x"),
			cmd(array(bulk("sqc8b49rny0"), nilReply), "GEOHASH", "k", "Palermo", "x"), cmd(bulk("166.2742"), "GEODIST", "k", "Palermo", "Catania", "km"),
			cmd(nilReply, "GEODIST", "k", "Palermo", "x"), cmd(errReply(engine.ErrGeoUnit), "GEODIST", "k", "Palermo", "Catania", "yd")}},
		{"add errors", []step{cmd(zSyntax, "GEOADD", "k", "1", "2", "m", "3"), cmd(zSyntax, "GEOADD", "k", "NX", "XX", "1", "2", "m"),
			cmd(errReply("ERR invalid longitude,latitude pair 200.000000,1.000000"), "GEOADD", "k", "200", "1", "m"),
			cmd(zNotFloat, "GEOADD", "k", "x", "1", "m"), cmd(integer(0), "EXISTS", "k")}},
		{"search", []step{add, cmd(bulks("Catania", "Palermo"), "GEOSEARCH", "k", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC"),
			cmd(array(array(bulk("Palermo"), bulk("190.4424"))), "GEOSEARCH", "k", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "DESC", "COUNT", "1", "WITHDIST"),
			cmd(integer(2), "GEOSEARCHSTORE", "d", "k", "FROMMEMBER", "Palermo", "BYBOX", "400", "400", "km"),
			cmd(errReply("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for geoSearch"), "geoSearch", "k", "BYRADIUS", "1", "km", "ASC", "DESC"),
			cmd(errReply(engine.ErrGeoAnyCount), "GEORADIUS", "k", "15", "37", "1", "km", "ANY"), cmd(errReply(engine.ErrGeoMember), "GEORADIUSBYMEMBER", "k", "x", "1", "km"),
			cmd(emptyList, "GEORADIUSBYMEMBER", "nokey", "x", "bad", "unit"), cmd(integer(0), "GEORADIUS", "nokey", "1", "1", "1", "km", "STORE", "d"),
			cmd(integer(0), "EXISTS", "d")}},
	})
}

// TestGeoSearchModel compares geoScan with a brute-force filter of every
// member: the nine cells must find each member inside the shape exactly
// once (unless Redis's own duplicate-cell quirk applies, which needs a
// neighbour equal to the centre: only at step 1).
func TestGeoSearchModel(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	lim := zset.DefaultLimits()
	for round := range 300 {
		s := zset.New()
		type pt struct{ lon, lat float64 }
		pts := map[string]pt{}
		for i := range 1 + r.IntN(300) {
			lon, lat := r.Float64()*360-180, r.Float64()*170-85
			if round%2 == 0 { // clustered
				lon, lat = 10+r.Float64()*4, 45+r.Float64()*4
			}
			sc, _ := geo.Score(lon, lat)
			m := "m" + strconv.Itoa(i)
			s.Add(m, float64(sc), lim)
			pts[m] = pt{}
			pts[m] = func() pt { a, b := geo.DecodeScore(float64(sc)); return pt{a, b} }()
		}
		shape := geo.Shape{Box: r.IntN(2) == 0, Lon: 12 + r.Float64(), Lat: 47 + r.Float64(), Conversion: 1000}
		size := math.Pow(10, r.Float64()*4)
		shape.Radius, shape.Width, shape.Height = size, size*(0.2+r.Float64()), size*(0.2+r.Float64())
		var want []string
		for m, p := range pts {
			if _, in := shape.Contains(p.lon, p.lat); in {
				want = append(want, m)
			}
		}
		var got []string
		for _, p := range zsetcmd.GeoScan(s, &shape, 0) {
			got = append(got, p.Member)
		}
		slices.Sort(want)
		slices.Sort(got)
		if _, step := shape.Cells(); step > 1 && !slices.Equal(got, want) {
			t.Fatalf("round %d, shape %+v: got %v, want %v", round, shape, got, want)
		}
		// COUNT n ANY stops after n matches.
		if len(want) > 2 {
			if n := len(zsetcmd.GeoScan(s, &shape, 2)); n != 2 {
				t.Fatalf("ANY 2 found %d", n)
			}
		}
	}
}

// TestGeoMemoryPerMember measures Go heap bytes per geo member
// (GEO_MEASURE=1): 20,000 small (listpack) sets of 10 members named like
// "member:1234" and one large (skiplist) set of 200,000, all scored by
// GEOADD's 52-bit geohash. Compare with Redis's MEMORY USAGE of the same.
func TestGeoMemoryPerMember(t *testing.T) {
	if os.Getenv("GEO_MEASURE") == "" {
		t.Skip("set GEO_MEASURE=1 to measure bytes per member")
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	r := rand.New(rand.NewPCG(1, 1))
	lim := zset.DefaultLimits()
	score := func() float64 {
		sc, _ := geo.Score(r.Float64()*360-180, r.Float64()*170-85)
		return float64(sc)
	}
	const sets, per = 20000, 10
	before := heap()
	small := make([]*zset.Set, sets)
	for i := range small {
		small[i] = zset.New()
		for j := range per {
			small[i].Add("member:"+strconv.Itoa(i*per+j), score(), lim)
		}
	}
	after := heap()
	t.Logf("small: %.1f bytes/member (heap)", float64(after-before)/float64(sets*per))
	runtime.KeepAlive(small)
	small = nil
	before = heap()
	big := zset.New()
	const n = 200000
	for i := range n {
		big.Add("member:"+strconv.Itoa(i), score(), lim)
	}
	after = heap()
	t.Logf("large: %.1f bytes/member (heap), encoding %s", float64(after-before)/float64(n), big.Encoding())
	runtime.KeepAlive(big)
}
