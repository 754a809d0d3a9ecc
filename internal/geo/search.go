package geo

import "math"

// moveLon shifts a cell one step east (d > 0) or west (d < 0), wrapping
// around the antimeridian, as Redis's geohash_move_x: the longitude bits
// are the odd ones, and the even ones are filled (or kept at 0) so that the
// carry or borrow crosses them.
func moveLon(h *Bits, d int) {
	if d == 0 {
		return
	}
	x := h.Bits & 0xaaaaaaaaaaaaaaaa
	y := h.Bits & 0x5555555555555555
	zz := uint64(0x5555555555555555) >> (64 - uint(h.Step)*2)
	if d > 0 {
		x += zz + 1
	} else {
		x |= zz
		x -= zz + 1
	}
	x &= uint64(0xaaaaaaaaaaaaaaaa) >> (64 - uint(h.Step)*2)
	h.Bits = x | y
}

// moveLat is moveLon for latitude (geohash_move_y): north for d > 0. It
// wraps from one pole's row to the other's.
func moveLat(h *Bits, d int) {
	if d == 0 {
		return
	}
	x := h.Bits & 0xaaaaaaaaaaaaaaaa
	y := h.Bits & 0x5555555555555555
	zz := uint64(0xaaaaaaaaaaaaaaaa) >> (64 - uint(h.Step)*2)
	if d > 0 {
		y += zz + 1
	} else {
		y |= zz
		y -= zz + 1
	}
	y &= uint64(0x5555555555555555) >> (64 - uint(h.Step)*2)
	h.Bits = x | y
}

func neighbour(h Bits, dlon, dlat int) Bits {
	moveLon(&h, dlon)
	moveLat(&h, dlat)
	return h
}

// The cells of a search in the order Redis scans them
// (membersOfAllNeighbors): the centre, then its neighbours.
const (
	CellCentre = iota
	CellN
	CellS
	CellE
	CellW
	CellNE
	CellNW
	CellSE
	CellSW
	NumCells
)

// Neighbours returns h and its eight neighbours in scan order.
func Neighbours(h Bits) [NumCells]Bits {
	return [NumCells]Bits{
		CellCentre: h,
		CellN:      neighbour(h, 0, 1),
		CellS:      neighbour(h, 0, -1),
		CellE:      neighbour(h, 1, 0),
		CellW:      neighbour(h, -1, 0),
		CellNE:     neighbour(h, 1, 1),
		CellNW:     neighbour(h, -1, 1),
		CellSE:     neighbour(h, 1, -1),
		CellSW:     neighbour(h, -1, -1),
	}
}

// Shape is a search area: a circle of Radius, or a box Width by Height,
// around (Lon, Lat), in units of Conversion metres.
type Shape struct {
	Box                   bool
	Lon, Lat              float64
	Radius, Width, Height float64
	Conversion            float64
}

// LatDistance is geohashGetLatDistance: metres along a meridian.
func LatDistance(lat1, lat2 float64) float64 {
	return EarthRadius * math.Abs(degRad(lat2)-degRad(lat1))
}

// Distance is geohashGetDistance: the Haversine distance in metres, with
// the shortcut Redis takes when the longitudes are practically equal.
func Distance(lon1, lat1, lon2, lat2 float64) float64 {
	lon1r := degRad(lon1)
	lon2r := degRad(lon2)
	v := Sin((lon2r - lon1r) / 2)
	if v == 0 {
		return LatDistance(lat1, lat2)
	}
	lat1r := degRad(lat1)
	lat2r := degRad(lat2)
	u := Sin((lat2r - lat1r) / 2)
	a := u*u + Cos(lat1r)*Cos(lat2r)*v*v
	return 2.0 * EarthRadius * Asin(math.Sqrt(a))
}

// fastDistance is Distance with Go's math functions, a few times faster,
// and a bound on how far it may be from Distance: 0 on the meridian
// shortcut (the same arithmetic), +Inf near the antipode, where asin
// amplifies any error.
func fastDistance(lon1, lat1, lon2, lat2 float64) (d, tol float64) {
	lon1r := degRad(lon1)
	lon2r := degRad(lon2)
	v := math.Sin((lon2r - lon1r) / 2) // zero exactly when Sin's is
	if v == 0 {
		return LatDistance(lat1, lat2), 0
	}
	lat1r := degRad(lat1)
	lat2r := degRad(lat2)
	u := math.Sin((lat2r - lat1r) / 2)
	a := u*u + math.Cos(lat1r)*math.Cos(lat2r)*v*v
	if !(a < 1-1e-6) {
		return 0, math.Inf(1)
	}
	d = 2.0 * EarthRadius * math.Asin(math.Sqrt(a))
	// Each function is within a few ulps, and asin amplifies them at most
	// a thousandfold below the antipode's neighbourhood.
	return d, 1e-11*d + 1e-9
}

// notFarther is Redis's !(distance > limit) for the precise distance,
// decided from the fast one when it is clear.
func notFarther(lon1, lat1, lon2, lat2, limit float64) bool {
	d, tol := fastDistance(lon1, lat1, lon2, lat2)
	switch {
	case d+tol <= limit:
		return true
	case d-tol > limit:
		return false
	}
	return !(Distance(lon1, lat1, lon2, lat2) > limit)
}

// Within is geoWithinShape's test after the decoding: whether the point is
// in the shape (geohashGetDistanceIfInRadiusWGS84 or InRectangle).
func (s *Shape) Within(lon, lat float64) bool {
	if !s.Box {
		return notFarther(s.Lon, s.Lat, lon, lat, s.Radius*s.Conversion)
	}
	// Latitude first, as Redis does: it is cheaper.
	w, h := s.Width*s.Conversion, s.Height*s.Conversion
	if LatDistance(lat, s.Lat) > h/2 {
		return false
	}
	return notFarther(lon, lat, s.Lon, lat, w/2)
}

// DistanceTo is a point's distance in metres from the shape's centre, as
// Redis measures it for the reply.
func (s *Shape) DistanceTo(lon, lat float64) float64 {
	return Distance(s.Lon, s.Lat, lon, lat)
}

// Contains is Within and DistanceTo together.
func (s *Shape) Contains(lon, lat float64) (dist float64, ok bool) {
	if !s.Within(lon, lat) {
		return 0, false
	}
	return s.DistanceTo(lon, lat), true
}

// EstimateSteps is geohashEstimateStepsByRadius: the coarsest step whose
// cells are about as large as the radius, one or two coarser near the poles.
func EstimateSteps(rangeMeters, lat float64) uint8 {
	if rangeMeters == 0 {
		return 26
	}
	step := 1
	for rangeMeters < mercatorMax {
		rangeMeters *= 2
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	return uint8(min(max(step, 1), 26))
}

// BoundingBox is geohashBoundingBox: min lon, min lat, max lon, max lat of
// the shape. The longitude span is measured at the edge nearer the pole.
func (s *Shape) BoundingBox() [4]float64 {
	height, width := s.Radius, s.Radius
	if s.Box {
		height, width = s.Height/2, s.Width/2
	}
	height *= s.Conversion
	width *= s.Conversion
	latDelta := radDeg(height / EarthRadius)
	lonDeltaTop := radDeg(width / EarthRadius / Cos(degRad(s.Lat+latDelta)))
	lonDeltaBottom := radDeg(width / EarthRadius / Cos(degRad(s.Lat-latDelta)))
	var b [4]float64
	if s.Lat < 0 {
		b[0], b[2] = s.Lon-lonDeltaBottom, s.Lon+lonDeltaBottom
	} else {
		b[0], b[2] = s.Lon-lonDeltaTop, s.Lon+lonDeltaTop
	}
	b[1] = s.Lat - latDelta
	b[3] = s.Lat + latDelta
	return b
}

// Cells is geohashCalculateAreasByShapeWGS84: the step chosen for the
// shape and the cells to scan, in scan order, zero where a cell lies
// wholly outside the shape's bounding box.
func (s *Shape) Cells() (cells [NumCells]Bits, step uint8) {
	b := s.BoundingBox()
	minLon, minLat, maxLon, maxLat := b[0], b[1], b[2], b[3]
	radius := s.Radius
	if s.Box {
		radius = math.Sqrt((s.Width/2)*(s.Width/2) + (s.Height/2)*(s.Height/2))
	}
	radius *= s.Conversion
	step = EstimateSteps(radius, s.Lat)

	hash, _ := EncodeWGS84(s.Lon, s.Lat, step)
	cells = Neighbours(hash)
	area, _ := Decode(LonRange, LatRange, hash)

	// The estimate may be too coarse when the area is near a cell's edge:
	// then one of the four side neighbours does not reach the bounding box.
	n, _ := Decode(LonRange, LatRange, cells[CellN])
	so, _ := Decode(LonRange, LatRange, cells[CellS])
	e, _ := Decode(LonRange, LatRange, cells[CellE])
	w, _ := Decode(LonRange, LatRange, cells[CellW])
	decrease := n.Lat.Max < maxLat || so.Lat.Min > minLat || e.Lon.Max < maxLon || w.Lon.Min > minLon
	if step > 1 && decrease {
		step--
		hash, _ = EncodeWGS84(s.Lon, s.Lat, step)
		cells = Neighbours(hash)
		area, _ = Decode(LonRange, LatRange, hash)
	}

	if step >= 2 {
		if area.Lat.Min < minLat {
			cells[CellS], cells[CellSW], cells[CellSE] = Bits{}, Bits{}, Bits{}
		}
		if area.Lat.Max > maxLat {
			cells[CellN], cells[CellNE], cells[CellNW] = Bits{}, Bits{}, Bits{}
		}
		if area.Lon.Min < minLon {
			cells[CellW], cells[CellSW], cells[CellNW] = Bits{}, Bits{}, Bits{}
		}
		if area.Lon.Max > maxLon {
			cells[CellE], cells[CellSE], cells[CellNE] = Bits{}, Bits{}, Bits{}
		}
	}
	return cells, step
}

// ScoreRange is a cell's interval of scores, Min <= score < Max
// (scoresOfGeoHashBox).
type ScoreRange struct{ Min, Max uint64 }

func cellScores(h Bits) ScoreRange {
	lo := Align52(h)
	h.Bits++
	return ScoreRange{Min: lo, Max: Align52(h)}
}

// ScanRanges returns the score intervals a search of the shape reads, in
// Redis's order. A zero cell is skipped, and so is a cell equal to the last
// one scanned (huge radii give equal neighbours), except that, as in
// Redis, the comparison only starts once a cell after the centre has been
// scanned: a first neighbour equal to the centre is scanned twice.
func (s *Shape) ScanRanges() []ScoreRange {
	cells, _ := s.Cells()
	out := make([]ScoreRange, 0, NumCells)
	last := 0
	for i, c := range cells {
		if c.IsZero() {
			continue
		}
		if last != 0 && c == cells[last] {
			continue
		}
		out = append(out, cellScores(c))
		last = i
	}
	return out
}
