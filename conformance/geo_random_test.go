package conformance

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// TestGeoRandom is a randomized differential test of the GEO family:
// random points clustered around a few centres (the antimeridian, the
// poles' limits, the equator, anywhere), some of them at equal positions,
// and random searches of every kind and option, including COUNT (whose
// partial sort decides among equally distant matches), the STORE forms and
// reads of what they stored. Every reply is compared byte for byte, unsorted
// ones included, except the scores STOREDIST stored: those are distances
// with all 17 digits, and glibc's sin, cos and asin, unlike limitkv's
// (internal/geo/mathdd.go), misround about one result in a thousand, so
// they may differ in the last bits (TestGeoKnownDivergence). LIMITKV_SEED=<n> replays a run, LIMITKV_GEO_OPS=<n>
// changes its length.
func TestGeoRandom(t *testing.T) {
	requireServers(t)
	r, total := randomRun(t, "LIMITKV_GEO_OPS", 4000)
	g := &grGen{r: r}
	rds, lkv := dialPair(t)
	for _, c := range []*RawConn{rds, lkv} {
		c.Timeout = 10 * time.Second
		if r := c.MustDo(t, "FLUSHALL"); string(r.Raw) != "+OK\r\n" {
			t.Fatalf("FLUSHALL on %s: %q", c.Name, r.Raw)
		}
	}
	sent := 0
	for chunk := 0; sent < total; chunk++ {
		steps := g.chunk(200)
		rr := zrPipeline(t, rds, steps)
		lr := zrPipeline(t, lkv, steps)
		for i, st := range steps {
			if err := grCompare(st, rr[i], lr[i]); err != nil {
				t.Fatalf("chunk %d, command %d of the run: %v\n  command: %s\n  redis:   %q\n  limitkv: %q\n%s",
					chunk, sent+i+1, err, fmtArgs(st.args), truncate(rr[i].Raw, 1500), truncate(lr[i].Raw, 1500), zrFirstDiff(rr[i], lr[i]))
			}
		}
		sent += len(steps)
	}
}

// grDistScores marks a ZRANGE ... WITHSCORES of a STOREDIST result.
const grDistScores = 100

// grCompare compares byte for byte, or for grDistScores the members exactly
// and the scores as far as libm's rounding allows.
func grCompare(st zrStep, rds, lkv *Reply) error {
	if string(rds.Raw) == string(lkv.Raw) {
		return nil
	}
	if st.cmp != grDistScores || rds.Type != '*' || lkv.Type != '*' || len(rds.Elems) != len(lkv.Elems) {
		return fmt.Errorf("replies differ")
	}
	for i := 0; i+1 < len(rds.Elems); i += 2 {
		if rds.Elems[i].Str != lkv.Elems[i].Str {
			return fmt.Errorf("members differ at %d", i)
		}
		a, err1 := strconv.ParseFloat(rds.Elems[i+1].Str, 64)
		b, err2 := strconv.ParseFloat(lkv.Elems[i+1].Str, 64)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("scores differ at %d", i+1)
		}
		// Geohash scores (integers) must match; distances to 1e-11
		// relative, since near the antipode asin amplifies a last-bit
		// difference of sin or cos a thousandfold.
		if a != b && (a == math.Trunc(a) && b == math.Trunc(b) || math.Abs(a-b) > 1e-11*math.Abs(a)) {
			return fmt.Errorf("scores differ at %d beyond libm rounding", i+1)
		}
	}
	return nil
}

type grGen struct {
	r     *rand.Rand
	steps []zrStep
	names []string // members added so far (some later removed)
}

func (g *grGen) chunk(n int) []zrStep {
	g.steps = g.steps[:0]
	for len(g.steps) < n {
		g.op()
	}
	return append([]zrStep(nil), g.steps...)
}

func (g *grGen) add(args ...string) { g.steps = append(g.steps, zrStep{args: args}) }

// addRead reads the stored result back. Its scores are compared with a
// tolerance even after a plain STORE: when that failed, dst still holds the
// distances an earlier STOREDIST stored. Integer (geohash) scores must
// still be equal.
func (g *grGen) addRead() {
	g.add("ZRANGE", "dst", "0", "-1", "WITHSCORES")
	g.steps[len(g.steps)-1].cmp = grDistScores
}

func (g *grGen) pct(p int) bool { return g.r.IntN(100) < p }

var grCentres = [][2]float64{{179.9, 0}, {-179.9, 10}, {0, 84.9}, {30, -84.9}, {0, 0}, {13.4, 38.1}, {-73.9, 40.7}, {139.7, 35.7}}

func (g *grGen) key() string { return []string{"g1", "g2", "g3"}[g.r.IntN(3)] }

// point returns a position near one of the centres (within about a
// thousand kilometres, fewer near the poles), or anywhere, clamped to the
// valid range.
func (g *grGen) point() (string, string) {
	var lon, lat float64
	if g.pct(15) {
		lon, lat = g.r.Float64()*360-180, g.r.Float64()*170.1-85.05
	} else {
		c := grCentres[g.r.IntN(len(grCentres))]
		spread := []float64{0.001, 0.1, 1, 10}[g.r.IntN(4)]
		lon = c[0] + (g.r.Float64()*2-1)*spread
		lat = c[1] + (g.r.Float64()*2-1)*spread
	}
	if lon > 180 {
		lon -= 360
	} else if lon < -180 {
		lon += 360
	}
	lat = max(min(lat, 85.05), -85.05)
	digits := []int{1, 3, 6, -1}[g.r.IntN(4)]
	return strconv.FormatFloat(lon, 'f', digits, 64), strconv.FormatFloat(lat, 'f', digits, 64)
}

func (g *grGen) member() string {
	if len(g.names) == 0 || g.pct(40) {
		m := "m" + strconv.Itoa(len(g.names))
		g.names = append(g.names, m)
		return m
	}
	return g.names[g.r.IntN(len(g.names))]
}

func (g *grGen) existing() string {
	if len(g.names) == 0 || g.pct(5) {
		return "nosuch"
	}
	return g.names[g.r.IntN(len(g.names))]
}

func (g *grGen) dist() string {
	d := []float64{0, 1, 50, 500, 5000, 20000, 100000, 1e6, 5e6, 2e7}[g.r.IntN(10)] * (0.5 + g.r.Float64())
	if g.pct(20) {
		d = float64(g.r.IntN(1000))
	}
	return strconv.FormatFloat(d, 'f', []int{0, 2, -1}[g.r.IntN(3)], 64)
}

func (g *grGen) unit() string { return []string{"m", "km", "mi", "ft", "M", "KM"}[g.r.IntN(6)] }

// options returns a random subset of the reply and sort options, shuffled.
func (g *grGen) options(with bool) []string {
	var o []string
	if with {
		for _, w := range []string{"WITHDIST", "WITHCOORD", "WITHHASH"} {
			if g.pct(35) {
				o = append(o, w)
			}
		}
	}
	switch g.r.IntN(3) {
	case 1:
		o = append(o, "ASC")
	case 2:
		o = append(o, "DESC")
	}
	if g.pct(40) {
		o = append(o, "COUNT", strconv.Itoa(1+g.r.IntN(30)))
		if g.pct(40) {
			o = append(o, "ANY")
		}
	}
	g.r.Shuffle(len(o), func(i, j int) {
		// COUNT n stays together: shuffle only what is not a count.
		if o[i] == "COUNT" || o[j] == "COUNT" || isNum(o[i]) || isNum(o[j]) {
			return
		}
		o[i], o[j] = o[j], o[i]
	})
	return o
}

func isNum(s string) bool { _, err := strconv.Atoi(s); return err == nil }

func (g *grGen) shape() []string {
	if g.pct(50) {
		return []string{"BYRADIUS", g.dist(), g.unit()}
	}
	return []string{"BYBOX", g.dist(), g.dist(), g.unit()}
}

func (g *grGen) from() []string {
	if g.pct(40) {
		return []string{"FROMMEMBER", g.existing()}
	}
	lon, lat := g.point()
	return []string{"FROMLONLAT", lon, lat}
}

func (g *grGen) op() {
	k := g.key()
	switch n := g.r.IntN(100); {
	case n < 30:
		args := []string{"GEOADD", k}
		if g.pct(10) {
			args = append(args, []string{"NX", "XX", "CH"}[g.r.IntN(3)])
		}
		for range 1 + g.r.IntN(8) {
			lon, lat := g.point()
			args = append(args, lon, lat, g.member())
		}
		// Sometimes several members at one position, so that distances tie.
		if g.pct(20) {
			lon, lat := g.point()
			for range 2 + g.r.IntN(10) {
				args = append(args, lon, lat, g.member())
			}
		}
		g.add(args...)
	case n < 55:
		parts := [][]string{g.from(), g.shape(), g.options(true)}
		if g.pct(50) {
			parts[0], parts[1] = parts[1], parts[0]
		}
		args := []string{"GEOSEARCH", k}
		for _, p := range parts {
			args = append(args, p...)
		}
		g.add(args...)
	case n < 65:
		lon, lat := g.point()
		cmd := []string{"GEORADIUS", "GEORADIUS_RO"}[g.r.IntN(2)]
		g.add(append([]string{cmd, k, lon, lat, g.dist(), g.unit()}, g.options(true)...)...)
	case n < 72:
		cmd := []string{"GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER_RO"}[g.r.IntN(2)]
		g.add(append([]string{cmd, k, g.existing(), g.dist(), g.unit()}, g.options(true)...)...)
	case n < 80:
		args := append([]string{"GEOSEARCHSTORE", "dst", k}, g.from()...)
		args = append(args, g.shape()...)
		args = append(args, g.options(false)...)
		if g.pct(50) {
			args = append(args, "STOREDIST")
		}
		g.add(args...)
		g.addRead()
	case n < 85:
		lon, lat := g.point()
		g.add(append([]string{"GEORADIUS", k, lon, lat, g.dist(), g.unit(), []string{"STORE", "STOREDIST"}[g.r.IntN(2)], "dst"}, g.options(false)...)...)
		g.addRead()
		g.add("OBJECT", "ENCODING", "dst")
	case n < 90:
		g.add("GEODIST", k, g.existing(), g.existing(), g.unit())
	case n < 94:
		g.add("GEOPOS", k, g.existing(), g.existing())
		g.add("GEOHASH", k, g.existing(), g.existing())
	case n < 98:
		g.add("ZREM", k, g.existing(), g.existing())
	default:
		g.add("DEL", k)
	}
}
