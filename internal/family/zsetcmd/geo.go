package zsetcmd

import (
	"math"
	"slices"
	"strconv"

	"github.com/limitkv/limitkv/internal/config"
	"github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/geo"
	"github.com/limitkv/limitkv/internal/num"
	"github.com/limitkv/limitkv/internal/zset"
)

// The GEO family, after Redis 7.0's geo.c: positions are sorted-set members
// scored with their 52-bit geohash (internal/geo), so the data lives in
// internal/zset and every zset command works on a geo key. GEOADD is ZADD
// with the coordinates turned into scores, as Redis rewrites it; the
// searches scan the score ranges of up to nine cells around the centre.
//
// Writes and WATCH: GEORADIUS and GEORADIUSBYMEMBER are write commands (for
// their STORE option) whose table key is the source; like GEOSEARCHSTORE
// they signal (Ctx.Modified) only the destination, and only when they store
// or delete it.
var GeoCommands = []*engine.Command{
	{Name: "geoadd", Arity: -5, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Group: "geo",
		Handler: cmdGeoAdd},
	{Name: "geopos", Arity: -2, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "geo",
		Handler: cmdGeoPos},
	{Name: "geodist", Arity: -4, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "geo",
		Handler: cmdGeoDist},
	{Name: "geohash", Arity: -2, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "geo",
		Handler: cmdGeoHash},
	{Name: "georadius", Arity: -6, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Group: "geo",
		Handler: cmdGeoRadius},
	{Name: "georadius_ro", Arity: -6, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "geo",
		Handler: cmdGeoRadiusRO},
	{Name: "georadiusbymember", Arity: -5, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 1, Step: 1, Group: "geo",
		Handler: cmdGeoRadiusByMember},
	{Name: "georadiusbymember_ro", Arity: -5, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "geo",
		Handler: cmdGeoRadiusByMemberRO},
	{Name: "geosearch", Arity: -7, Flags: engine.FlagReadOnly, FirstKey: 1, LastKey: 1, Step: 1, Group: "geo",
		Handler: cmdGeoSearch},
	{Name: "geosearchstore", Arity: -8, Flags: engine.FlagWrite | engine.FlagDenyOOM, FirstKey: 1, LastKey: 2, Step: 1, Group: "geo",
		Handler: cmdGeoSearchStore},
}

// cmdGeoAdd is geoaddCommand: GEOADD key [NX|XX] [CH] lon lat member ...
// becomes ZADD key [NX|XX] [CH] score member ... once every pair is valid.
func cmdGeoAdd(x *engine.Ctx) {
	args := x.Args
	xx, nx := false, false
	li := 2
options:
	for ; li < len(args); li++ {
		switch a := args[li]; {
		case engine.CEqualFold(a, "nx"):
			nx = true
		case engine.CEqualFold(a, "xx"):
			xx = true
		case engine.CEqualFold(a, "ch"):
		default:
			break options
		}
	}
	if (len(args)-li)%3 != 0 || (xx && nx) {
		x.W.Error(engine.ErrSyntax)
		return
	}
	elements := (len(args) - li) / 3
	zargs := make([][]byte, li+elements*2)
	copy(zargs, args[:li])
	zargs[0] = []byte("zadd")
	for i := range elements {
		t := args[li+i*3:]
		lon, lat, ok := geoLonLat(x, t[0], t[1])
		if !ok {
			return
		}
		score, _ := geo.Score(lon, lat)
		zargs[li+i*2] = strconv.AppendUint(nil, score, 10)
		zargs[li+i*2+1] = t[2]
	}
	x.Args = zargs
	zaddGeneric(x, 0)
	x.Args = args
	x.Rewrite(zargs...) // replaceClientCommandVector: the ZADD it is
}

// geoLonLat is extractLongLatOrReply: both numbers parsed, then the range
// checked.
func geoLonLat(x *engine.Ctx, lonArg, latArg []byte) (lon, lat float64, ok bool) {
	if lon, ok = num.ParseFloat(lonArg); !ok {
		x.W.Error(engine.ErrNotFloat)
		return 0, 0, false
	}
	if lat, ok = num.ParseFloat(latArg); !ok {
		x.W.Error(engine.ErrNotFloat)
		return 0, 0, false
	}
	if !geo.ValidLonLat(lon, lat) {
		x.W.Error(errGeoPair(lon, lat))
		return 0, 0, false
	}
	return lon, lat, true
}

// geoUnit is extractUnitOrReply: metres per unit, or 0 after replying the
// error.
func geoUnit(x *engine.Ctx, u []byte) float64 {
	switch {
	case engine.CEqualFold(u, "m"):
		return 1
	case engine.CEqualFold(u, "km"):
		return 1000
	case engine.CEqualFold(u, "ft"):
		return 0.3048
	case engine.CEqualFold(u, "mi"):
		return 1609.34
	}
	x.W.Error(engine.ErrGeoUnit)
	return 0
}

// geoRadiusArg is extractDistanceOrReply: radius, then unit.
func geoRadiusArg(x *engine.Ctx, s *geo.Shape, args [][]byte) bool {
	r, ok := num.ParseFloat(args[0])
	if !ok {
		x.W.Error(errGeoNeedRadius)
		return false
	}
	if r < 0 {
		x.W.Error(errGeoRadiusNeg)
		return false
	}
	conv := geoUnit(x, args[1])
	if conv == 0 {
		return false
	}
	s.Box, s.Radius, s.Conversion = false, r, conv
	return true
}

// geoBoxArg is extractBoxOrReply: width, height, then unit.
func geoBoxArg(x *engine.Ctx, s *geo.Shape, args [][]byte) bool {
	w, ok := num.ParseFloat(args[0])
	if !ok {
		x.W.Error(errGeoNeedWidth)
		return false
	}
	h, ok := num.ParseFloat(args[1])
	if !ok {
		x.W.Error(errGeoNeedHeight)
		return false
	}
	if h < 0 || w < 0 {
		x.W.Error(errGeoBoxNeg)
		return false
	}
	conv := geoUnit(x, args[2])
	if conv == 0 {
		return false
	}
	s.Box, s.Width, s.Height, s.Conversion = true, w, h, conv
	return true
}

// appendGeoDistance is addReplyDoubleDistance (fixedpoint_d2string with
// four decimals): the value times 10^4 rounded to nearest-even as llrint.
func AppendGeoDistance(dst []byte, d float64) []byte {
	if d == 0 {
		return append(dst, "0.0000"...)
	}
	v := int64(math.RoundToEven(d * 10000))
	u := uint64(v)
	if v < 0 {
		dst = append(dst, '-')
		u = uint64(-v)
	}
	dst = strconv.AppendUint(dst, u/10000, 10)
	dst = append(dst, '.')
	frac := u % 10000
	for p := uint64(1000); p > frac && p > 1; p /= 10 {
		dst = append(dst, '0')
	}
	return strconv.AppendUint(dst, frac, 10)
}

// appendGeoCoord is addReplyHumanLongDouble in RESP2: "%.17Lf" of the
// value, trailing zeros (and a bare dot) removed, "-0" written "0".
func AppendGeoCoord(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) {
		if f > 0 {
			return append(dst, "inf"...)
		}
		return append(dst, "-inf"...)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', 17, 64)
	for dst[len(dst)-1] == '0' {
		dst = dst[:len(dst)-1]
	}
	if dst[len(dst)-1] == '.' {
		dst = dst[:len(dst)-1]
	}
	if string(dst[start:]) == "-0" {
		dst = append(dst[:start], '0')
	}
	return dst
}

func geoReplyCoords(x *engine.Ctx, lon, lat float64) {
	var buf [48]byte
	x.W.Array(2)
	x.W.DoubleBytes(AppendGeoCoord(buf[:0], lon))
	x.W.DoubleBytes(AppendGeoCoord(buf[:0], lat))
}

func cmdGeoPos(x *engine.Ctx) {
	_, s, ok := zsetRead(x, x.Args[1])
	if !ok {
		return
	}
	x.W.Array(len(x.Args) - 2)
	for _, m := range x.Args[2:] {
		if s == nil {
			x.W.NullArray()
			continue
		}
		sc, found := s.Score(engine.Zview(m))
		if !found {
			x.W.NullArray()
			continue
		}
		lon, lat := geo.DecodeScore(sc)
		geoReplyCoords(x, lon, lat)
	}
}

func cmdGeoHash(x *engine.Ctx) {
	_, s, ok := zsetRead(x, x.Args[1])
	if !ok {
		return
	}
	x.W.Array(len(x.Args) - 2)
	for _, m := range x.Args[2:] {
		if s == nil {
			x.W.Null()
			continue
		}
		sc, found := s.Score(engine.Zview(m))
		if !found {
			x.W.Null()
			continue
		}
		h := geo.StandardHash(sc)
		x.W.Bulk(h[:])
	}
}

// cmdGeoDist checks the unit before it looks the key up, as Redis does.
func cmdGeoDist(x *engine.Ctx) {
	args := x.Args
	toMeter := 1.0
	switch {
	case len(args) == 5:
		if toMeter = geoUnit(x, args[4]); toMeter == 0 {
			return
		}
	case len(args) > 5:
		x.W.Error(engine.ErrSyntax)
		return
	}
	_, s, ok := zsetRead(x, args[1])
	if !ok {
		return
	}
	if s == nil {
		x.W.Null()
		return
	}
	s1, ok1 := s.Score(engine.Zview(args[2]))
	if !ok1 {
		x.W.Null()
		return
	}
	s2, ok2 := s.Score(engine.Zview(args[3]))
	if !ok2 {
		x.W.Null()
		return
	}
	lon1, lat1 := geo.DecodeScore(s1)
	lon2, lat2 := geo.DecodeScore(s2)
	var buf [32]byte
	x.W.Bulk(AppendGeoDistance(buf[:0], geo.Distance(lon1, lat1, lon2, lat2)/toMeter))
}

// georadiusGeneric's flags.
const (
	geoRadiusCoords = 1 << iota // GEORADIUS: centre from coordinates
	geoRadiusMember             // GEORADIUSBYMEMBER: centre from a member
	geoNoStore                  // the _RO forms: no STORE/STOREDIST
	geoSearch                   // GEOSEARCH's syntax
	geoSearchStore              // GEOSEARCHSTORE
)

func cmdGeoRadius(x *engine.Ctx)           { geoSearchGeneric(x, 1, geoRadiusCoords) }
func cmdGeoRadiusRO(x *engine.Ctx)         { geoSearchGeneric(x, 1, geoRadiusCoords|geoNoStore) }
func cmdGeoRadiusByMember(x *engine.Ctx)   { geoSearchGeneric(x, 1, geoRadiusMember) }
func cmdGeoRadiusByMemberRO(x *engine.Ctx) { geoSearchGeneric(x, 1, geoRadiusMember|geoNoStore) }
func cmdGeoSearch(x *engine.Ctx)           { geoSearchGeneric(x, 1, geoSearch) }
func cmdGeoSearchStore(x *engine.Ctx)      { geoSearchGeneric(x, 2, geoSearch|geoSearchStore) }

// Sort orders of a search.
const (
	geoSortNone = iota
	geoSortAsc
	geoSortDesc
)

// geoPoint is a match of a search.
type geoPoint struct {
	lon, lat, dist, score float64
	Member                string
}

func geoCmpAsc(a, b *geoPoint) int {
	switch {
	case a.dist > b.dist:
		return 1
	case a.dist == b.dist:
		return 0
	}
	return -1
}

func geoCmpDesc(a, b *geoPoint) int { return -geoCmpAsc(a, b) }

// geoMemberCentre is longLatFromMember.
func geoMemberCentre(s *zset.Set, member []byte, shape *geo.Shape) bool {
	sc, ok := s.Score(engine.Zview(member))
	if !ok {
		return false
	}
	shape.Lon, shape.Lat = geo.DecodeScore(sc)
	return true
}

// geoSearchGeneric is georadiusGeneric, for all six search commands, with
// Redis's order of checks: the source's type, the centre and radius of the
// GEORADIUS forms, the options left to right (each parsed as it comes),
// then the combinations.
func geoSearchGeneric(x *engine.Ctx, srcIdx int, flags int) {
	args := x.Args
	// A write command runs this too (GEORADIUS ... STORE): it only ever
	// writes the destination, which it touches itself.
	if x.Cmd.Flags&engine.FlagWrite != 0 {
	}
	_, zs, ok := zsetRead(x, args[srcIdx])
	if !ok {
		return
	}
	var shape geo.Shape
	var storeKey []byte
	base := 0
	switch {
	case flags&geoRadiusCoords != 0:
		base = 6
		lon, lat, ok := geoLonLat(x, args[2], args[3])
		if !ok {
			return
		}
		shape.Lon, shape.Lat = lon, lat
		if !geoRadiusArg(x, &shape, args[4:6]) {
			return
		}
	case flags&geoRadiusMember != 0:
		base = 5
		// Without a source Redis parses neither the member nor the radius,
		// only the options, to learn which empty reply to give.
		if zs != nil {
			if !geoMemberCentre(zs, args[2], &shape) {
				x.W.Error(engine.ErrGeoMember)
				return
			}
			if !geoRadiusArg(x, &shape, args[3:5]) {
				return
			}
		}
	default:
		base = 2
		if flags&geoSearchStore != 0 {
			base = 3
			storeKey = args[1]
		}
	}

	var withDist, withHash, withCoord, fromMember, fromLoc, byRadius, byBox, any, storeDist bool
	sort := geoSortNone
	var count int64
	search := flags&geoSearch != 0
	canStore := flags&(geoNoStore|geoSearch) == 0
	rest := args[base:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		more := len(rest) - 1 - i // arguments after this one
		switch {
		case engine.CEqualFold(a, "withdist"):
			withDist = true
		case engine.CEqualFold(a, "withhash"):
			withHash = true
		case engine.CEqualFold(a, "withcoord"):
			withCoord = true
		case engine.CEqualFold(a, "any"):
			any = true
		case engine.CEqualFold(a, "asc"):
			sort = geoSortAsc
		case engine.CEqualFold(a, "desc"):
			sort = geoSortDesc
		case engine.CEqualFold(a, "count") && more >= 1:
			n, ok := num.ParseInt(rest[i+1])
			if !ok {
				x.W.Error(engine.ErrNotInt)
				return
			}
			if n <= 0 {
				x.W.Error(errGeoCount)
				return
			}
			count = n
			i++
		case engine.CEqualFold(a, "store") && more >= 1 && canStore:
			storeKey, storeDist = rest[i+1], false
			i++
		case engine.CEqualFold(a, "storedist") && more >= 1 && canStore:
			storeKey, storeDist = rest[i+1], true
			i++
		case engine.CEqualFold(a, "storedist") && flags&geoSearchStore != 0:
			storeDist = true
		case engine.CEqualFold(a, "frommember") && more >= 1 && search && !fromLoc:
			if zs != nil && !geoMemberCentre(zs, rest[i+1], &shape) {
				x.W.Error(engine.ErrGeoMember)
				return
			}
			fromMember = true
			i++
		case engine.CEqualFold(a, "fromlonlat") && more >= 2 && search && !fromMember:
			lon, lat, ok := geoLonLat(x, rest[i+1], rest[i+2])
			if !ok {
				return
			}
			shape.Lon, shape.Lat = lon, lat
			fromLoc = true
			i += 2
		case engine.CEqualFold(a, "byradius") && more >= 2 && search && !byBox:
			if !geoRadiusArg(x, &shape, rest[i+1:i+3]) {
				return
			}
			byRadius = true
			i += 2
		case engine.CEqualFold(a, "bybox") && more >= 3 && search && !byRadius:
			if !geoBoxArg(x, &shape, rest[i+1:i+4]) {
				return
			}
			byBox = true
			i += 3
		default:
			x.W.Error(engine.ErrSyntax)
			return
		}
	}

	switch {
	case storeKey != nil && (withDist || withHash || withCoord):
		if flags&geoSearchStore != 0 {
			x.W.Error(errGeoSStoreWith)
		} else {
			x.W.Error(errGeoStoreWith)
		}
		return
	case search && !fromMember && !fromLoc:
		x.W.Error(errGeoFrom(args[0]))
		return
	case search && !byRadius && !byBox:
		x.W.Error(errGeoBy(args[0]))
		return
	case any && count == 0:
		x.W.Error(engine.ErrGeoAnyCount)
		return
	}

	if zs == nil {
		if storeKey != nil {
			geoStoreDelete(x, storeKey)
			x.W.Int(0)
		} else {
			x.W.Array(0)
		}
		return
	}
	if count != 0 && sort == geoSortNone && !any {
		sort = geoSortAsc
	}
	limit := 0
	if any {
		limit = int(count)
	}
	pts := GeoScan(zs, &shape, limit)
	if len(pts) == 0 && storeKey == nil {
		x.W.Array(0)
		return
	}
	n := len(pts)
	if count != 0 && int64(n) > count {
		n = int(count)
	}
	if sort != geoSortNone || withDist || storeDist {
		geoMeasure(pts, &shape)
	}
	if sort != geoSortNone {
		cmp := geoCmpAsc
		if sort == geoSortDesc {
			cmp = geoCmpDesc
		}
		if n == len(pts) {
			// glibc's qsort is a merge sort: stable.
			slices.SortStableFunc(pts, func(a, b geoPoint) int { return cmp(&a, &b) })
		} else {
			geo.PartialSort(pts, cmp, 0, n-1)
		}
	}
	pts = pts[:n]
	for i := range pts {
		pts[i].dist /= shape.Conversion
	}
	if storeKey != nil {
		geoStore(x, storeKey, pts, storeDist)
		return
	}
	opts := 0
	for _, b := range []bool{withDist, withCoord, withHash} {
		if b {
			opts++
		}
	}
	var buf [48]byte
	x.W.Array(n)
	for _, p := range pts {
		if opts > 0 {
			x.W.Array(opts + 1)
		}
		x.W.BulkString(p.Member)
		if withDist {
			x.W.Bulk(AppendGeoDistance(buf[:0], p.dist))
		}
		if withHash {
			x.W.Int(int64(p.score))
		}
		if withCoord {
			geoReplyCoords(x, p.lon, p.lat)
		}
	}
}

// geoScan is membersOfAllNeighbors: the members of each cell's score range
// in score order, cells in Redis's order, kept if inside the shape;
// with limit > 0 (COUNT n ANY) it stops once limit matched. The matches'
// distances are left to geoMeasure: only a sort or the reply needs them.
func GeoScan(s *zset.Set, shape *geo.Shape, limit int) []geoPoint {
	var pts []geoPoint
	for _, r := range shape.ScanRanges() {
		if limit > 0 && len(pts) >= limit {
			break
		}
		sr := zset.ScoreRange{Min: float64(r.Min), Max: float64(r.Max), MaxEx: true}
		s.RangeByScore(sr, false, 0, -1, func(m []byte, sc float64) bool {
			lon, lat := geo.DecodeScore(sc)
			if shape.Within(lon, lat) {
				pts = append(pts, geoPoint{lon: lon, lat: lat, score: sc, Member: string(m)})
			}
			return !(limit > 0 && len(pts) >= limit)
		})
	}
	return pts
}

// geoMeasure sets the matches' distances from the shape's centre.
func geoMeasure(pts []geoPoint, shape *geo.Shape) {
	for i := range pts {
		pts[i].dist = shape.DistanceTo(pts[i].lon, pts[i].lat)
	}
}

// geoStore saves the matches as a sorted set under dst, scored by geohash
// or, with STOREDIST, by distance in the query's unit; no match deletes
// dst. It replies the number stored.
func geoStore(x *engine.Ctx, dst []byte, pts []geoPoint, byDist bool) {
	if len(pts) == 0 {
		geoStoreDelete(x, dst)
		x.W.Int(0)
		return
	}
	res := make([]zpair, len(pts))
	for i, p := range pts {
		sc := p.score
		if byDist {
			sc = p.dist
		}
		res[i] = zpair{member: p.Member, score: sc}
	}
	ev := "georadiusstore"
	if x.Cmd.Name == "geosearchstore" {
		ev = "geosearchstore"
	}
	zstoreResult(x, dst, zsetFromPairs(res, x.E.Cfg.ZsetLimits()), ev)
}

// geoStoreDelete deletes a store destination; the deletion reaches
// watchers through the keyspace's delete hook.
func geoStoreDelete(x *engine.Ctx, dst []byte) {
	if x.DB.Delete(dst, x.Now) {
		x.Modified(dst)
		x.Notify(config.EvGeneric, "del", dst)
	}
}
