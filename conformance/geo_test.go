package conformance

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Conformance of the GEO family: GEOADD's options and coordinate errors,
// GEOPOS/GEOHASH/GEODIST formatting, every search command with every
// option and error in Redis's order of checks, the poles and the
// antimeridian, huge radii, the STORE forms, WRONGTYPE, WATCH, MULTI and
// EVAL. Replies without ASC/DESC are compared byte for byte too: limitkv
// scans the same cells in the same order as Redis. The randomized test is
// geo_random_test.go.

// geoSicily is the Redis documentation's data set plus a few more cities.
var geoSicily = []Cmd{C("GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania",
	"12.758489", "38.788135", "edge1", "17.241510", "38.788135", "edge2", "13.583333", "37.316667", "Agrigento",
	"14.015482", "37.490110", "Caltanissetta", "15.553333", "38.193333", "Messina")}

func geoCase(name string, cmds ...Cmd) Case {
	return Case{Name: name, Cmds: append(append([]Cmd{}, geoSicily...), cmds...)}
}

func TestGeoAdd(t *testing.T) {
	runCases(t, []Case{
		{Name: "add and count", Cmds: []Cmd{C("GEOADD", "k", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"),
			C("ZRANGE", "k", "0", "-1", "WITHSCORES"), C("GEOADD", "k", "13.361389", "38.115556", "Palermo"), C("GEOADD", "k", "1", "1", "Palermo"),
			C("ZSCORE", "k", "Palermo"), C("OBJECT", "ENCODING", "k"), C("TYPE", "k")}},
		{Name: "options", Cmds: []Cmd{C("GEOADD", "k", "1", "1", "a"), C("GEOADD", "k", "NX", "2", "2", "a", "3", "3", "b"), C("ZRANGE", "k", "0", "-1", "WITHSCORES"),
			C("GEOADD", "k", "XX", "4", "4", "a", "5", "5", "c"), C("ZRANGE", "k", "0", "-1", "WITHSCORES"), C("GEOADD", "k", "CH", "4", "4", "a", "6", "6", "b", "7", "7", "d"),
			C("GEOADD", "k", "ch", "xx", "ch", "8", "8", "d", "8", "8", "e"), C("GEOADD", "k", "nx", "ch", "9", "9", "d", "9", "9", "f"), C("ZRANGE", "k", "0", "-1", "WITHSCORES"),
			C("GEOADD", "missing", "XX", "1", "1", "a"), C("EXISTS", "missing"), C("GEOADD", "missing", "XX", "CH", "1", "1", "a"), C("EXISTS", "missing")}},
		{Name: "syntax", Cmds: []Cmd{C("GEOADD"), C("GEOADD", "k"), C("GEOADD", "k", "1", "2"), C("GEOADD", "k", "1", "2", "m", "3"),
			C("GEOADD", "k", "1", "2", "m", "3", "4"), C("GEOADD", "k", "NX", "XX", "1", "2", "m"), C("GEOADD", "k", "XX", "NX", "CH", "1", "2", "m"),
			C("GEOADD", "k", "nx", "ch", "xx"), C("GEOADD", "k", "ch", "ch", "ch"), C("GEOADD", "k", "GT", "1", "2", "m"), C("GEOADD", "k", "LT", "1", "2"),
			C("GEOADD", "k", "INCR", "1", "2"), C("GEOADD", "k", "nx", "nx", "nx"), C("EXISTS", "k")}},
		{Name: "bad numbers", Cmds: []Cmd{C("GEOADD", "k", "x", "1", "m"), C("GEOADD", "k", "1", "y", "m"), C("GEOADD", "k", "x", "200", "m"),
			C("GEOADD", "k", "1", "1", "a", "x", "1", "b"), C("GEOADD", "k", "nan", "1", "m"), C("GEOADD", "k", "", "1", "m"), C("GEOADD", "k", " 1", "1", "m"),
			C("GEOADD", "k", "1e400", "1", "m"), C("GEOADD", "k", "0x10", "1", "m"), C("ZRANGE", "k", "0", "-1", "WITHSCORES"), C("EXISTS", "k")}},
		{Name: "range errors", Cmds: []Cmd{C("GEOADD", "k", "180.0000001", "0", "m"), C("GEOADD", "k", "-180.0000001", "0", "m"), C("GEOADD", "k", "0", "85.05112879", "m"),
			C("GEOADD", "k", "0", "-85.05112879", "m"), C("GEOADD", "k", "0", "90", "m"), C("GEOADD", "k", "inf", "0", "m"), C("GEOADD", "k", "-inf", "-inf", "m"),
			C("GEOADD", "k", "1e30", "0", "m"), C("GEOADD", "k", "-0", "100", "m"), C("GEOADD", "k", "1.23456789", "-123.4567895", "m"),
			C("GEOADD", "k", "1", "1", "ok", "200", "1", "bad"), C("EXISTS", "k")}},
		{Name: "limits", Cmds: []Cmd{C("GEOADD", "k", "180", "85.05112878", "ne", "-180", "-85.05112878", "sw", "-180", "85.05112878", "nw", "180", "-85.05112878", "se",
			"0", "0", "origin", "-0", "-0", "negzero"), C("ZRANGE", "k", "0", "-1", "WITHSCORES"), C("GEOPOS", "k", "ne", "sw", "nw", "se", "origin", "negzero"),
			C("GEOHASH", "k", "ne", "sw", "nw", "se", "origin", "negzero")}},
		{Name: "binary members", Cmds: []Cmd{C("GEOADD", "k", "1", "2", "a\x00b", "3", "4", ""), C("GEOPOS", "k", "a\x00b", ""), C("GEOSEARCH", "k", "FROMMEMBER", "", "BYRADIUS", "1000", "km")}},
		{Name: "wrong type", Cmds: []Cmd{C("SET", "s", "v"), C("GEOADD", "s", "1", "1", "m"), C("GEOADD", "s", "x", "1", "m"), C("GEOADD", "s", "NX", "XX", "1", "1", "m"), C("GET", "s")}},
		{Name: "keeps ttl", Cmds: []Cmd{C("GEOADD", "k", "1", "1", "a"), C("EXPIRE", "k", "100"), C("GEOADD", "k", "2", "2", "b"), C("TTL", "k").TTLApprox(1)}},
		{Name: "encoding conversion", Cmds: []Cmd{geoMany("k", 128), C("OBJECT", "ENCODING", "k"), C("GEOADD", "k", "1", "1", "extra"), C("OBJECT", "ENCODING", "k"),
			C("GEOADD", "j", "1", "1", string(make([]byte, 65))), C("OBJECT", "ENCODING", "j")}},
	})
}

// geoMany adds n points on a small grid around (10, 45).
func geoMany(key string, n int) Cmd {
	args := []string{"GEOADD", key}
	for i := range n {
		lon := 10 + float64(i%12)*0.05
		lat := 45 + float64(i/12)*0.05
		args = append(args, strconv.FormatFloat(lon, 'f', -1, 64), strconv.FormatFloat(lat, 'f', -1, 64), "p"+strconv.Itoa(i))
	}
	c := C(args...)
	c.where = caller()
	return c
}

func TestGeoPosHashDist(t *testing.T) {
	runCases(t, []Case{
		geoCase("geopos", C("GEOPOS", "Sicily", "Palermo", "Catania", "nosuch", "edge1", "edge2", "Messina"), C("GEOPOS", "nokey", "a", "b"),
			C("GEOPOS", "Sicily"), C("GEOPOS", "nokey"), C("GEOPOS")),
		geoCase("geohash", C("GEOHASH", "Sicily", "Palermo", "Catania", "nosuch", "Agrigento", "Caltanissetta"), C("GEOHASH", "nokey", "a"),
			C("GEOHASH", "Sicily"), C("GEOHASH")),
		geoCase("geodist units", C("GEODIST", "Sicily", "Palermo", "Catania"), C("GEODIST", "Sicily", "Palermo", "Catania", "km"),
			C("GEODIST", "Sicily", "Palermo", "Catania", "KM"), C("GEODIST", "Sicily", "Palermo", "Catania", "mi"), C("GEODIST", "Sicily", "Palermo", "Catania", "ft"),
			C("GEODIST", "Sicily", "Palermo", "Catania", "M"), C("GEODIST", "Sicily", "Palermo", "Palermo"), C("GEODIST", "Sicily", "edge1", "edge2", "Mi"),
			C("GEODIST", "Sicily", "Catania", "Palermo", "m")),
		geoCase("geodist missing", C("GEODIST", "Sicily", "Palermo", "nosuch"), C("GEODIST", "Sicily", "nosuch", "Palermo"), C("GEODIST", "nokey", "a", "b"),
			C("GEODIST", "nokey", "a", "b", "km")),
		geoCase("geodist errors", C("GEODIST", "Sicily", "Palermo", "Catania", "yd"), C("GEODIST", "nokey", "a", "b", "yd"), C("GEODIST", "Sicily", "Palermo", "Catania", "km", "x"),
			C("GEODIST", "Sicily", "Palermo"), C("GEODIST", "Sicily", "Palermo", "Catania", "km\x00")),
		{Name: "distances across the globe", Cmds: []Cmd{C("GEOADD", "k", "-179.9", "0", "w", "179.9", "0", "e", "0", "85", "n", "0", "-85", "s", "180", "85.05112878", "a", "-180", "-85.05112878", "b",
			"0", "0", "o", "0.0000001", "0.0000001", "o2"),
			C("GEODIST", "k", "w", "e"), C("GEODIST", "k", "n", "s", "km"), C("GEODIST", "k", "a", "b"), C("GEODIST", "k", "o", "o2"), C("GEODIST", "k", "o", "e", "ft"),
			C("GEODIST", "k", "n", "a", "mi")}},
		{Name: "odd scores", Cmds: []Cmd{C("ZADD", "k", "-1", "neg", "-1.5", "negfrac", "1e300", "huge", "inf", "pinf", "-inf", "ninf", "9007199254740993", "b53",
			"4503599627370496", "b52", "4503599627370495", "max52", "1e19", "e19", "18446744073709551616", "b64", "-1e19", "ne19", "0.5", "half", "0", "zero"),
			C("GEOPOS", "k", "neg", "negfrac", "huge", "pinf", "ninf", "b53", "b52", "max52", "e19", "b64", "ne19", "half", "zero"),
			C("GEOHASH", "k", "neg", "negfrac", "huge", "pinf", "ninf", "b53", "b52", "max52", "e19", "b64", "ne19", "half", "zero"),
			C("GEODIST", "k", "neg", "huge"), C("GEODIST", "k", "half", "zero"), C("GEOSEARCH", "k", "FROMLONLAT", "-180", "-85", "BYRADIUS", "100", "km", "WITHHASH", "WITHCOORD")}},
		{Name: "wrong type", Cmds: []Cmd{C("SET", "s", "v"), C("GEOPOS", "s", "a"), C("GEOHASH", "s", "a"), C("GEODIST", "s", "a", "b"), C("GEODIST", "s", "a", "b", "yd"),
			C("GEODIST", "s", "a", "b", "km", "x")}},
	})
}

func TestGeoSearch(t *testing.T) {
	all := []string{"WITHCOORD", "WITHDIST", "WITHHASH"}
	gs := func(args ...string) Cmd {
		c := C(append([]string{"GEOSEARCH", "Sicily"}, args...)...)
		c.where = caller()
		return c
	}
	runCases(t, []Case{
		geoCase("radius from lonlat", gs("FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"), gs("FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC"),
			gs("FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "DESC"), gs(append([]string{"FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC"}, all...)...),
			gs("FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "WITHDIST"), gs("FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "WITHHASH"),
			gs("FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "WITHCOORD"), gs("FROMLONLAT", "15", "37", "BYRADIUS", "200000", "m", "withdist", "withcoord"),
			gs("FROMLONLAT", "15", "37", "BYRADIUS", "124.27", "mi", "WITHDIST", "DESC"), gs("FROMLONLAT", "15", "37", "BYRADIUS", "656168", "ft", "WITHDIST")),
		geoCase("radius from member", gs("FROMMEMBER", "Palermo", "BYRADIUS", "200", "km", "WITHDIST", "ASC"), gs("FROMMEMBER", "Palermo", "BYRADIUS", "0", "km", "WITHDIST"),
			gs("FROMMEMBER", "Palermo", "BYRADIUS", "200", "km"), gs("FROMMEMBER", "Catania", "BYRADIUS", "1", "m"), gs("FROMMEMBER", "nosuch", "BYRADIUS", "1", "m")),
		geoCase("box", gs("FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km", "ASC", "WITHCOORD", "WITHDIST"), gs("FROMMEMBER", "Palermo", "BYBOX", "200", "100", "km", "WITHDIST"),
			gs("FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km"), gs("FROMLONLAT", "15", "37", "BYBOX", "0", "0", "km"), gs("FROMLONLAT", "15", "37", "BYBOX", "1000", "10", "km", "DESC"),
			gs("FROMLONLAT", "15", "37", "BYBOX", "10", "1000", "km", "DESC"), gs("FROMLONLAT", "15", "37", "BYBOX", "249", "249", "mi", "WITHDIST"),
			gs("FROMMEMBER", "Catania", "BYBOX", "2000000", "2000000", "ft", "WITHDIST", "WITHHASH")),
		geoCase("count", gs("FROMLONLAT", "15", "37", "BYRADIUS", "500", "km", "COUNT", "2"), gs("FROMLONLAT", "15", "37", "BYRADIUS", "500", "km", "COUNT", "2", "DESC"),
			gs("FROMLONLAT", "15", "37", "BYRADIUS", "500", "km", "COUNT", "100"), gs("FROMLONLAT", "15", "37", "BYRADIUS", "500", "km", "COUNT", "3", "ANY"),
			gs("FROMLONLAT", "15", "37", "BYRADIUS", "500", "km", "COUNT", "3", "ANY", "ASC", "WITHDIST"), gs("FROMLONLAT", "15", "37", "BYRADIUS", "500", "km", "ANY", "COUNT", "1", "DESC"),
			gs("FROMLONLAT", "15", "37", "BYRADIUS", "500", "km", "COUNT", "1", "COUNT", "5"), gs("FROMLONLAT", "15", "37", "BYRADIUS", "500", "km", "COUNT", "7", "ANY")),
		geoCase("option order and repeats", gs("BYRADIUS", "200", "km", "FROMLONLAT", "15", "37", "WITHDIST"), gs("COUNT", "2", "BYBOX", "500", "500", "km", "FROMMEMBER", "Palermo"),
			gs("FROMMEMBER", "Palermo", "FROMMEMBER", "Catania", "BYRADIUS", "100", "km", "BYRADIUS", "200", "km", "WITHDIST"),
			gs("FROMLONLAT", "1", "1", "FROMLONLAT", "15", "37", "BYBOX", "1", "1", "m", "BYBOX", "400", "400", "km", "asc", "desc"),
			gs("fromlonlat", "15", "37", "byradius", "200", "KM", "withdist", "WithHash", "wItHcOoRd", "Desc")),
		geoCase("errors", gs("FROMLONLAT", "15", "37"), gs("BYRADIUS", "200", "km"), gs("FROMLONLAT", "15", "37", "BYRADIUS", "200"),
			gs("FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "FROMMEMBER", "Palermo"), gs("FROMMEMBER", "Palermo", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"),
			gs("FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "BYBOX", "1", "1", "km"), gs("FROMLONLAT", "15", "37", "BYBOX", "1", "1", "km", "BYRADIUS", "200", "km"),
			gs("FROMLONLAT", "x", "37", "BYRADIUS", "200", "km"), gs("FROMLONLAT", "15", "y", "BYRADIUS", "200", "km"), gs("FROMLONLAT", "200", "37", "BYRADIUS", "200", "km"),
			gs("FROMLONLAT", "15", "37", "BYRADIUS", "x", "km"), gs("FROMLONLAT", "15", "37", "BYRADIUS", "-1", "km"), gs("FROMLONLAT", "15", "37", "BYRADIUS", "1", "yd"),
			gs("FROMLONLAT", "15", "37", "BYRADIUS", "-1", "yd"), gs("FROMLONLAT", "15", "37", "BYBOX", "x", "1", "km"), gs("FROMLONLAT", "15", "37", "BYBOX", "1", "y", "km"),
			gs("FROMLONLAT", "15", "37", "BYBOX", "-1", "1", "km"), gs("FROMLONLAT", "15", "37", "BYBOX", "1", "-1", "km"), gs("FROMLONLAT", "15", "37", "BYBOX", "1", "1", "yd"),
			gs("FROMLONLAT", "15", "37", "BYBOX", "x", "-1", "yd"), gs("FROMLONLAT", "15", "37", "BYBOX", "1", "1"), gs("FROMMEMBER", "nosuch", "BYBOX", "1", "1", "km"),
			gs("FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "COUNT"), gs("FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "COUNT", "0"),
			gs("FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "COUNT", "-1"), gs("FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "COUNT", "x"),
			gs("FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "COUNT", "99999999999999999999"), gs("FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ANY"),
			gs("FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "STORE", "d"), gs("FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "STOREDIST"),
			gs("FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "STOREDIST", "d"), gs("FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "bogus"),
			gs("FROMMEMBER", "nosuch", "BYRADIUS", "x", "km"), gs("FROMLONLAT", "15", "37", "BYRADIUS", "x", "km", "FROMMEMBER", "nosuch"),
			gs("bogus", "FROMLONLAT", "200", "37", "BYRADIUS", "200", "km"), gs("ANY", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "COUNT", "0"),
			C("GeoSearch", "Sicily", "WITHDIST", "WITHDIST", "WITHDIST", "WITHDIST", "WITHDIST"), C("geoSEARCH", "Sicily", "FROMLONLAT", "15", "37", "ASC", "DESC"),
			C("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS"), C("GEOSEARCH", "Sicily")),
		{Name: "missing key", Cmds: []Cmd{C("GEOSEARCH", "nokey", "FROMMEMBER", "x", "BYRADIUS", "1", "km"), C("GEOSEARCH", "nokey", "FROMLONLAT", "1", "1", "BYBOX", "1", "1", "km", "WITHDIST"),
			C("GEOSEARCH", "nokey", "FROMMEMBER", "x", "BYRADIUS", "-1", "km"), C("GEOSEARCH", "nokey", "FROMMEMBER", "x", "WITHDIST"),
			C("GEOSEARCH", "nokey", "FROMLONLAT", "200", "1", "BYRADIUS", "1", "km")}},
		{Name: "wrong type", Cmds: []Cmd{C("SET", "s", "v"), C("GEOSEARCH", "s", "FROMLONLAT", "1", "1", "BYRADIUS", "1", "km"), C("GEOSEARCH", "s", "bogus", "1", "1", "1", "1", "1")}},
		geoCase("no match", gs("FROMLONLAT", "-70", "40", "BYRADIUS", "10", "km"), gs("FROMLONLAT", "-70", "40", "BYBOX", "10", "10", "km", "COUNT", "1")),
	})
}

// TestGeoSearchEdges covers the poles, the antimeridian and radii from
// metres to the whole planet, where the cell selection changes step,
// wraps around and sees equal neighbours.
func TestGeoSearchEdges(t *testing.T) {
	ring := []Cmd{C("GEOADD", "k", "179.99", "0", "e1", "-179.99", "0", "w1", "179.5", "10", "e2", "-179.5", "-10", "w2", "0", "0", "o",
		"0", "85", "np", "90", "85.05", "np2", "-90", "-85.05", "sp", "180", "0", "am", "-180", "0", "am2", "90", "0", "q", "-90", "0", "q2",
		"45", "60", "x1", "-135", "-60", "x2", "0.0001", "0.0001", "near", "100", "20", "far1", "-60", "-30", "far2")}
	var cmds []Cmd
	cmds = append(cmds, ring...)
	for _, centre := range [][2]string{{"180", "0"}, {"-180", "0"}, {"179.9", "5"}, {"0", "85.05112878"}, {"0", "-85.05112878"}, {"0", "0"}, {"-179.9", "-80"}, {"90", "70"}} {
		for _, r := range []string{"1", "100", "1000", "5000", "10000", "20000", "40000"} {
			cmds = append(cmds, C("GEOSEARCH", "k", "FROMLONLAT", centre[0], centre[1], "BYRADIUS", r, "km", "WITHDIST"),
				C("GEORADIUS", "k", centre[0], centre[1], r, "km", "WITHCOORD"),
				C("GEOSEARCH", "k", "FROMLONLAT", centre[0], centre[1], "BYBOX", r, r, "km", "WITHHASH"),
				C("GEOSEARCH", "k", "FROMLONLAT", centre[0], centre[1], "BYBOX", r, "10", "km", "DESC"),
				C("GEOSEARCH", "k", "FROMLONLAT", centre[0], centre[1], "BYRADIUS", r, "km", "COUNT", "3", "ANY"))
		}
	}
	runCases(t, []Case{
		{Name: "ring", Cmds: cmds},
		{Name: "infinite and huge sizes", Cmds: []Cmd{C("GEOADD", "k", "1", "1", "a", "-170", "80", "b", "100", "-60", "c", "0", "0", "d"),
			C("GEOSEARCH", "k", "FROMLONLAT", "0", "0", "BYRADIUS", "inf", "km", "WITHDIST"), C("GEOSEARCH", "k", "FROMLONLAT", "0", "0", "BYRADIUS", "+inf", "m", "ASC"),
			C("GEOSEARCH", "k", "FROMLONLAT", "0", "0", "BYBOX", "inf", "inf", "km", "WITHDIST"), C("GEOSEARCH", "k", "FROMLONLAT", "0", "0", "BYBOX", "inf", "0", "km"),
			C("GEOSEARCH", "k", "FROMLONLAT", "0", "0", "BYBOX", "0", "inf", "km"), C("GEOSEARCH", "k", "FROMLONLAT", "0", "0", "BYRADIUS", "1e308", "mi", "COUNT", "2"),
			C("GEOSEARCH", "k", "FROMLONLAT", "0", "0", "BYRADIUS", "-0", "m"), C("GEOSEARCH", "k", "FROMLONLAT", "0", "0", "BYRADIUS", "-inf", "m"),
			C("GEOSEARCH", "k", "FROMLONLAT", "0", "0", "BYRADIUS", "1e-300", "m", "WITHDIST"), C("GEOSEARCH", "k", "FROMLONLAT", "0", "0", "BYRADIUS", "5e-324", "m"),
			C("GEORADIUS", "k", "0", "0", "inf", "km", "COUNT", "9223372036854775807", "DESC"), C("GEOSEARCHSTORE", "d", "k", "FROMLONLAT", "0", "0", "BYRADIUS", "inf", "km", "STOREDIST"),
			C("ZRANGE", "d", "0", "-1", "WITHSCORES")}},
		{Name: "zero radius", Cmds: []Cmd{C("GEOADD", "k", "1", "1", "a", "1", "1", "b"), C("GEOSEARCH", "k", "FROMMEMBER", "a", "BYRADIUS", "0", "m"),
			C("GEORADIUSBYMEMBER", "k", "a", "0", "m", "WITHDIST"), C("GEOSEARCH", "k", "FROMMEMBER", "a", "BYBOX", "0", "0", "m", "COUNT", "1")}},
		{Name: "equal distances with count", Cmds: []Cmd{C("GEOADD", "k", "1", "1", "a", "1", "1", "b", "1", "1", "c", "1", "1", "d", "1", "1", "e", "1", "1", "f", "1", "1", "g",
			"1", "1", "h", "1.1", "1", "i", "1.1", "1", "j", "0.9", "1", "k"),
			C("GEOSEARCH", "k", "FROMLONLAT", "1", "1", "BYRADIUS", "100", "km", "COUNT", "3"), C("GEOSEARCH", "k", "FROMLONLAT", "1", "1", "BYRADIUS", "100", "km", "COUNT", "9", "DESC"),
			C("GEOSEARCH", "k", "FROMLONLAT", "1", "1", "BYRADIUS", "100", "km", "COUNT", "10"), C("GEOSEARCH", "k", "FROMLONLAT", "1", "1", "BYRADIUS", "100", "km", "ASC"),
			C("GEOSEARCH", "k", "FROMLONLAT", "1", "1", "BYRADIUS", "100", "km", "DESC"), C("GEOSEARCH", "k", "FROMLONLAT", "1", "1", "BYRADIUS", "100", "km", "COUNT", "1", "DESC")}},
		{Name: "large set", Cmds: []Cmd{geoMany("k", 300), C("OBJECT", "ENCODING", "k"), C("GEOSEARCH", "k", "FROMLONLAT", "10.2", "45.3", "BYRADIUS", "15", "km"),
			C("GEOSEARCH", "k", "FROMLONLAT", "10.2", "45.3", "BYRADIUS", "15", "km", "COUNT", "20"), C("GEOSEARCH", "k", "FROMLONLAT", "10.2", "45.3", "BYRADIUS", "15", "km", "COUNT", "20", "DESC", "WITHDIST"),
			C("GEOSEARCH", "k", "FROMLONLAT", "10.2", "45.3", "BYBOX", "30", "10", "km", "COUNT", "50", "ANY"), C("GEOSEARCHSTORE", "d", "k", "FROMLONLAT", "10.2", "45.3", "BYRADIUS", "1000", "km"),
			C("OBJECT", "ENCODING", "d"), C("ZCARD", "d"), C("GEOSEARCHSTORE", "d", "k", "FROMLONLAT", "10.2", "45.3", "BYRADIUS", "5", "km", "STOREDIST"), C("OBJECT", "ENCODING", "d"),
			C("ZRANGE", "d", "0", "-1", "WITHSCORES")}},
		{Name: "large set of equal points", Cmds: []Cmd{geoSame("k", 150), C("GEOSEARCH", "k", "FROMLONLAT", "5", "5", "BYRADIUS", "1", "km", "COUNT", "7"),
			C("GEOSEARCH", "k", "FROMLONLAT", "5", "5", "BYRADIUS", "1", "km", "COUNT", "60", "DESC"), C("GEOSEARCH", "k", "FROMLONLAT", "5.001", "5", "BYRADIUS", "1", "km", "COUNT", "45")}},
	})
}

// geoSame adds n members at one of three nearby positions.
func geoSame(key string, n int) Cmd {
	args := []string{"GEOADD", key}
	for i := range n {
		args = append(args, []string{"5", "5.0001", "5.0002"}[i%3], "5", "m"+strconv.Itoa(i))
	}
	c := C(args...)
	c.where = caller()
	return c
}

func TestGeoRadius(t *testing.T) {
	runCases(t, []Case{
		geoCase("georadius", C("GEORADIUS", "Sicily", "15", "37", "200", "km"), C("GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHDIST", "WITHCOORD", "WITHHASH", "ASC"),
			C("GEORADIUS", "Sicily", "15", "37", "200", "km", "COUNT", "2", "DESC"), C("GEORADIUS", "Sicily", "15", "37", "200", "km", "COUNT", "2", "ANY"),
			C("GEORADIUS_RO", "Sicily", "15", "37", "200", "km", "WITHDIST"), C("GEORADIUS", "Sicily", "15", "37", "0", "km")),
		geoCase("georadius errors", C("GEORADIUS", "Sicily", "x", "37", "200", "km"), C("GEORADIUS", "Sicily", "15", "37", "x", "km"), C("GEORADIUS", "Sicily", "15", "37", "200", "yd"),
			C("GEORADIUS", "Sicily", "15", "37", "-2", "yd"), C("GEORADIUS", "Sicily", "15", "99", "x", "km"), C("GEORADIUS", "Sicily", "15", "37", "200", "km", "FROMMEMBER", "x"),
			C("GEORADIUS", "Sicily", "15", "37", "200", "km", "BYRADIUS", "1", "km"), C("GEORADIUS", "Sicily", "15", "37", "200", "km", "STOREDIST"),
			C("GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "d", "WITHDIST"), C("GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHHASH", "STOREDIST", "d"),
			C("GEORADIUS", "Sicily", "15", "37", "200", "km", "ANY"), C("GEORADIUS_RO", "Sicily", "15", "37", "200", "km", "STORE", "d"),
			C("GEORADIUS_RO", "Sicily", "15", "37", "200", "km", "STOREDIST", "d"), C("GEORADIUS", "Sicily", "15", "37", "200"), C("GEORADIUS", "nokey", "x", "37", "200", "km"),
			C("GEORADIUS", "nokey", "15", "37", "200", "km", "bogus"), C("GEORADIUS", "Sicily", "15", "37", "200", "km", "COUNT", "0", "STORE", "d", "WITHDIST"), C("EXISTS", "d")),
		geoCase("georadiusbymember", C("GEORADIUSBYMEMBER", "Sicily", "Palermo", "200", "km"), C("GEORADIUSBYMEMBER", "Sicily", "Palermo", "200", "km", "WITHDIST", "DESC"),
			C("GEORADIUSBYMEMBER_RO", "Sicily", "Catania", "100", "mi", "WITHCOORD", "COUNT", "2"), C("GEORADIUSBYMEMBER", "Sicily", "nosuch", "200", "km"),
			C("GEORADIUSBYMEMBER", "Sicily", "nosuch", "x", "km"), C("GEORADIUSBYMEMBER", "Sicily", "Palermo", "x", "km"), C("GEORADIUSBYMEMBER", "Sicily", "Palermo", "1", "yd"),
			C("GEORADIUSBYMEMBER", "nokey", "Palermo", "x", "yd"), C("GEORADIUSBYMEMBER", "nokey", "Palermo", "x", "yd", "WITHDIST"),
			C("GEORADIUSBYMEMBER", "nokey", "Palermo", "x", "yd", "bogus"), C("GEORADIUSBYMEMBER", "nokey", "Palermo", "1", "km", "STORE", "d"),
			C("GEORADIUSBYMEMBER", "nokey", "Palermo", "1", "km", "STORE", "d", "WITHDIST"), C("GEORADIUSBYMEMBER", "nokey", "Palermo", "1", "km", "ANY"),
			C("GEORADIUSBYMEMBER_RO", "nokey", "Palermo", "1", "km", "STORE", "d"), C("GEORADIUSBYMEMBER", "Sicily", "Palermo", "200")),
		geoCase("store", C("GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "d"), C("ZRANGE", "d", "0", "-1", "WITHSCORES"), C("OBJECT", "ENCODING", "d"),
			C("GEORADIUS", "Sicily", "15", "37", "200", "km", "STOREDIST", "d"), C("ZRANGE", "d", "0", "-1", "WITHSCORES"),
			C("GEORADIUS", "Sicily", "15", "37", "200", "km", "STOREDIST", "d", "COUNT", "2", "DESC"), C("ZRANGE", "d", "0", "-1", "WITHSCORES"),
			C("GEORADIUS", "Sicily", "15", "37", "200", "mi", "STORE", "d", "STOREDIST", "e"), C("EXISTS", "d"), C("ZRANGE", "e", "0", "-1", "WITHSCORES"),
			C("GEORADIUSBYMEMBER", "Sicily", "Palermo", "100", "km", "STORE", "Sicily"), C("ZRANGE", "Sicily", "0", "-1", "WITHSCORES"),
			C("GEORADIUS", "Sicily", "-70", "40", "1", "km", "STORE", "e"), C("EXISTS", "e"), C("SET", "s", "v"), C("GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "s"),
			C("TYPE", "s"), C("SET", "s2", "v"), C("GEORADIUS", "nokey", "15", "37", "200", "km", "STORE", "s2"), C("EXISTS", "s2"), C("EXPIRE", "d", "100"),
			C("GEORADIUS", "Sicily", "15", "37", "300", "km", "STORE", "d"), C("TTL", "d")),
		geoCase("geosearchstore", C("GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km"), C("ZRANGE", "d", "0", "-1", "WITHSCORES"),
			C("GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km", "STOREDIST", "COUNT", "3"), C("ZRANGE", "d", "0", "-1", "WITHSCORES"),
			C("GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "mi", "STOREDIST", "DESC", "COUNT", "2", "ANY"), C("ZRANGE", "d", "0", "-1", "WITHSCORES"),
			C("GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "WITHDIST"), C("GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "STORE", "x"),
			C("GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "STOREDIST", "x"), C("GEOSEARCHSTORE", "d", "Sicily", "WITHHASH", "STOREDIST", "x"),
			C("GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "WITHCOORD", "x"), C("GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "WITHCOORD", "ASC"),
			C("GEOSEARCHSTORE", "d", "Sicily", "BYBOX", "1", "1", "km", "WITHCOORD"), C("GeoSearchStore", "d", "Sicily", "BYBOX", "1", "1", "km", "ASC"),
			C("GEOSEARCHSTORE", "d", "nokey", "FROMMEMBER", "x", "BYRADIUS", "1", "km"), C("EXISTS", "d"), C("GEOSEARCHSTORE", "d", "Sicily", "FROMMEMBER", "nosuch", "BYRADIUS", "1", "km"),
			C("SET", "s", "v"), C("GEOSEARCHSTORE", "d", "s", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"), C("GEOSEARCHSTORE", "s", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"),
			C("TYPE", "s"), C("GEOSEARCHSTORE", "Sicily", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "100", "km", "STOREDIST"), C("ZRANGE", "Sicily", "0", "-1", "WITHSCORES"),
			C("GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "-70", "40", "BYRADIUS", "1", "km"), C("GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "1")),
		geoCase("keyspace stats", C("CONFIG", "RESETSTAT"), C("GEOSEARCH", "nokey", "FROMLONLAT", "1", "1", "BYRADIUS", "1", "km"), C("GEOPOS", "Sicily", "Palermo"),
			C("GEORADIUS", "nokey", "1", "1", "1", "km", "STORE", "d"), C("GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "km"),
			C("GEODIST", "nokey", "a", "b"), C("GEOHASH", "Sicily", "a"), C("GEOADD", "Sicily", "1", "1", "x"),
			C("INFO", "stats").Check("keyspace hits and misses", geoStatsCheck)),
	})
}

// geoStatsCheck compares INFO's keyspace_hits and keyspace_misses.
func geoStatsCheck(rds, lkv *Reply) error {
	pick := func(r *Reply) string {
		var out []string
		for _, line := range strings.Split(r.Str, "\r\n") {
			for _, k := range []string{"keyspace_hits:", "keyspace_misses:"} {
				if len(line) > len(k) && line[:len(k)] == k {
					out = append(out, line)
				}
			}
		}
		return strings.Join(out, ",")
	}
	if a, b := pick(rds), pick(lkv); a != b {
		return fmt.Errorf("redis %q, limitkv %q", a, b)
	}
	return nil
}

// TestGeoWatch checks which GEO writes invalidate a WATCH: GEOADD when it
// changed something, the STORE forms only on their destination.
func TestGeoWatch(t *testing.T) {
	g := []Cmd{C("GEOADD", "k", "1", "1", "a", "2", "2", "b")}
	runCases(t, []Case{
		zsWatchCase("geoadd same position", g, C("GEOADD", "k", "1", "1", "a")),
		zsWatchCase("geoadd moved", g, C("GEOADD", "k", "1", "1.5", "a")),
		zsWatchCase("geoadd nx existing", g, C("GEOADD", "k", "NX", "5", "5", "a")),
		zsWatchCase("geoadd xx new", g, C("GEOADD", "k", "XX", "5", "5", "zz")),
		zsWatchCase("geoadd error", g, C("GEOADD", "k", "500", "5", "zz")),
		zsWatchCase("georadius read", g, C("GEORADIUS", "k", "1", "1", "500", "km")),
		zsWatchCase("georadius store dest", g, C("GEORADIUS", "k", "1", "1", "500", "km", "STORE", "d")),
		zsWatchCase("georadius store source to other", g, C("GEORADIUS", "k", "1", "1", "500", "km", "STORE", "x")),
		zsWatchCase("georadius store empty missing dest", g, C("GEORADIUS", "k", "50", "50", "1", "km", "STORE", "d")),
		zsWatchCase("georadius store empty deletes", append(g, C("SET", "d", "v")), C("GEORADIUS", "k", "50", "50", "1", "km", "STORE", "d")),
		zsWatchCase("georadius missing source deletes", append(g, C("SET", "d", "v")), C("GEORADIUS", "nokey", "50", "50", "1", "km", "STORE", "d")),
		zsWatchCase("georadiusbymember store", g, C("GEORADIUSBYMEMBER", "k", "a", "500", "km", "STOREDIST", "d")),
		zsWatchCase("georadiusbymember error", g, C("GEORADIUSBYMEMBER", "k", "zz", "500", "km", "STOREDIST", "d")),
		zsWatchCase("geosearchstore source", g, C("GEOSEARCHSTORE", "x", "k", "FROMMEMBER", "a", "BYRADIUS", "500", "km")),
		zsWatchCase("geosearchstore dest", g, C("GEOSEARCHSTORE", "d", "k", "FROMMEMBER", "a", "BYRADIUS", "500", "km")),
		zsWatchCase("geosearchstore empty", g, C("GEOSEARCHSTORE", "d", "k", "FROMLONLAT", "50", "50", "BYRADIUS", "1", "km")),
		zsWatchCase("reads then write", g, C("GEOSEARCH", "k", "FROMMEMBER", "a", "BYRADIUS", "500", "km"), C("GEOPOS", "k", "a"), C("GEORADIUS_RO", "k", "1", "1", "1", "km"),
			C("SET", "other", "1")),
		zsWatchCase("read then geoadd no-op", g, C("GEOSEARCH", "k", "FROMMEMBER", "a", "BYRADIUS", "500", "km"), C("GEOADD", "k", "2", "2", "b")),
	})
}

// TestGeoBlocking checks that a sorted set created by GEOADD or a STORE
// form serves a blocked BZPOPMIN, as Redis's dbAdd signals it.
func TestGeoBlocking(t *testing.T) {
	wait := Sleep(25 * time.Millisecond)
	read := func(conn int) Cmd { return Raw("").On(conn) }
	runCases(t, []Case{
		{Name: "woken by geoadd", Cmds: []Cmd{C("BZPOPMIN", "k", "5").NoReply(), wait, C("GEOADD", "k", "1", "1", "a", "2", "2", "b").On(1), read(0),
			C("ZRANGE", "k", "0", "-1", "WITHSCORES").On(1)}},
		{Name: "woken by geosearchstore", Cmds: []Cmd{C("GEOADD", "src", "1", "1", "a"), C("BZPOPMAX", "d", "5").NoReply(), wait,
			C("GEOSEARCHSTORE", "d", "src", "FROMLONLAT", "1", "1", "BYRADIUS", "10", "km", "STOREDIST").On(1), read(0)}},
		{Name: "woken by georadius store", Cmds: []Cmd{C("GEOADD", "src", "1", "1", "a"), C("BZMPOP", "5", "1", "d", "MIN").NoReply(), wait,
			C("GEORADIUS", "src", "1", "1", "10", "km", "STORE", "d").On(1), read(0)}},
		{Name: "empty store does not wake", Cmds: []Cmd{C("GEOADD", "src", "1", "1", "a"), C("BZPOPMIN", "d", "0.2").NoReply(), wait,
			C("GEORADIUS", "src", "50", "50", "1", "km", "STORE", "d").On(1), read(0)}},
	})
}

func TestGeoMultiEval(t *testing.T) {
	runCases(t, []Case{
		{Name: "multi", Cmds: []Cmd{C("MULTI"), C("GEOADD", "k", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"),
			C("GEODIST", "k", "Palermo", "Catania", "km"), C("GEOPOS", "k", "Palermo"), C("GEOHASH", "k", "Catania"),
			C("GEOSEARCH", "k", "FROMMEMBER", "Palermo", "BYRADIUS", "500", "km", "WITHDIST", "WITHCOORD", "WITHHASH"),
			C("GEORADIUS", "k", "15", "37", "200", "km", "STORE", "d"), C("GEOADD", "k", "500", "1", "x"), C("GEOSEARCH", "k", "FROMLONLAT", "1", "1"), C("EXEC"),
			C("MULTI"), C("GEOADD", "k", "1"), C("EXEC")}},
		{Name: "eval", Cmds: []Cmd{C("EVAL", "return redis.call('GEOADD', KEYS[1], '13.361389', '38.115556', 'Palermo', '15.087269', '37.502669', 'Catania')", "1", "k"),
			C("EVAL", "return redis.call('GEOPOS', KEYS[1], 'Palermo', 'x')", "1", "k"), C("EVAL", "return redis.call('GEODIST', KEYS[1], 'Palermo', 'Catania')", "1", "k"),
			C("EVAL", "return redis.call('GEOHASH', KEYS[1], 'Palermo')", "1", "k"),
			C("EVAL", "return redis.call('GEOSEARCH', KEYS[1], 'FROMLONLAT', '15', '37', 'BYRADIUS', '200', 'km', 'WITHDIST', 'WITHCOORD', 'WITHHASH')", "1", "k"),
			C("EVAL", "return redis.call('GEORADIUS', KEYS[1], '15', '37', '200', 'km', 'STOREDIST', KEYS[2])", "2", "k", "d"), C("ZRANGE", "d", "0", "-1", "WITHSCORES"),
			C("EVAL", "return redis.call('GEORADIUS_RO', KEYS[1], '15', '37', '200', 'km')", "1", "k"),
			C("EVAL", "return redis.pcall('GEOSEARCH', KEYS[1], 'FROMLONLAT', '15', '37')", "1", "k"),
			C("EVAL", "return redis.pcall('GEOADD', KEYS[1], '500', '1', 'x')", "1", "k"),
			C("EVAL_RO", "return redis.pcall('GEORADIUS', KEYS[1], '15', '37', '200', 'km')", "1", "k"),
			C("EVAL_RO", "return redis.pcall('GEOSEARCHSTORE', 'd', KEYS[1], 'FROMLONLAT', '15', '37', 'BYRADIUS', '200', 'km')", "1", "k"),
			C("EVAL_RO", "return redis.call('GEOSEARCH', KEYS[1], 'FROMLONLAT', '15', '37', 'BYRADIUS', '200', 'km')", "1", "k")}},
		{Name: "command info", Cmds: []Cmd{C("COMMAND", "INFO", "geoadd", "geopos", "geodist", "geohash", "georadius", "georadius_ro", "georadiusbymember",
			"georadiusbymember_ro", "geosearch", "geosearchstore"), C("COMMAND", "GETKEYS", "GEOSEARCHSTORE", "d", "s", "FROMLONLAT", "1", "1", "BYRADIUS", "1", "km"),
			C("COMMAND", "GETKEYS", "GEORADIUS", "s", "1", "1", "1", "km", "STORE", "d")}},
	})
}

// TestGeoKnownDivergence records where limitkv and Redis differ: a
// distance's last bit. Redis computes it with glibc's sin, cos and asin,
// which misround about one result in a thousand; limitkv's are correctly
// rounded (internal/geo/mathdd.go), so for about one distance in 300 the
// two differ by an ulp (more near the antipode, where asin amplifies it).
// Only STOREDIST's 17-digit scores show it in practice: GEODIST and
// WITHDIST print 4 decimals, and a radius boundary falling inside that ulp
// is vanishingly rare.
func TestGeoKnownDivergence(t *testing.T) {
	runCases(t, []Case{
		{Name: "storedist last bit", Skip: "glibc's libm misrounds sin/cos/asin for ~0.1% of inputs; limitkv rounds correctly (Redis 5794146.425146495, limitkv 5794146.425146496)",
			Cmds: []Cmd{C("GEOADD", "k", "-97.80187278985977", "-27.425397787917024", "m"),
				C("GEOSEARCHSTORE", "d", "k", "FROMLONLAT", "-148.00585815141952", "-6.176211635097076", "BYRADIUS", "6000000", "m", "STOREDIST"),
				C("ZSCORE", "d", "m")}},
	})
}
