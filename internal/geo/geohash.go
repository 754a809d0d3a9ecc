// Package geo is the arithmetic behind limitkv's GEO commands, after Redis
// 7.0's geohash.c and geohash_helper.c: the 52-bit interleaved geohash a
// sorted-set score holds, its decoding to a cell centre, the neighbouring
// cells, the cells a radius or box search must scan, and the Haversine
// distance on Redis's sphere.
//
// Every step follows Redis's floating-point operations in the same order
// (and the same conversions from double to integer), since the replies show
// the results to the last digit: a score, a GEOPOS coordinate printed with
// 17 decimals, a distance with 4. The package knows nothing of sorted sets,
// commands or RESP.
package geo

import "math"

// Limits of what can be indexed, Redis's GEO_* constants: latitudes beyond
// about ±85.05 cannot be projected (EPSG:900913).
const (
	StepMax = 26 // 26 bits per coordinate, 52 in a score
	LatMin  = -85.05112878
	LatMax  = 85.05112878
	LonMin  = -180.0
	LonMax  = 180.0
)

// EarthRadius is the sphere's radius in metres Redis measures on.
const EarthRadius = 6372797.560856

// mercatorMax bounds the radius-to-step estimate (geohash_helper.c).
const mercatorMax = 20037726.37

// dToR is M_PI/180.0 as C computes it: a rounded double divided by 180 at
// run time. A Go constant expression would be computed exactly and rounded
// once, which can differ in the last bit.
var dToR = func() float64 { pi := math.Pi; return pi / 180.0 }()

func degRad(a float64) float64 { return a * dToR }
func radDeg(a float64) float64 { return a / dToR }

// Range is an interval of one coordinate.
type Range struct{ Min, Max float64 }

// Bits is a geohash of Step bits per coordinate: longitude in the odd bits,
// latitude in the even ones. The zero Bits (Step 0) marks a cell a search
// skips.
type Bits struct {
	Bits uint64
	Step uint8
}

// IsZero is Redis's HASHISZERO.
func (b Bits) IsZero() bool { return b.Bits == 0 && b.Step == 0 }

// Area is a cell: its hash and the coordinates it covers.
type Area struct {
	Hash     Bits
	Lon, Lat Range
}

// WGS84 ranges: the ones scores are encoded in.
var (
	LonRange = Range{LonMin, LonMax}
	LatRange = Range{LatMin, LatMax}
	// StdLatRange is the standard geohash's latitude range, which GEOHASH
	// re-encodes positions in.
	StdLatRange = Range{-90, 90}
)

// spread moves the low 32 bits of v to the even bit positions.
func spread(v uint64) uint64 {
	v = (v | v<<16) & 0x0000FFFF0000FFFF
	v = (v | v<<8) & 0x00FF00FF00FF00FF
	v = (v | v<<4) & 0x0F0F0F0F0F0F0F0F
	v = (v | v<<2) & 0x3333333333333333
	v = (v | v<<1) & 0x5555555555555555
	return v
}

// squeeze is spread's inverse: the even bits of v, packed into 32.
func squeeze(v uint64) uint64 {
	v &= 0x5555555555555555
	v = (v | v>>1) & 0x3333333333333333
	v = (v | v>>2) & 0x0F0F0F0F0F0F0F0F
	v = (v | v>>4) & 0x00FF00FF00FF00FF
	v = (v | v>>8) & 0x0000FFFF0000FFFF
	v = (v | v>>16) & 0x00000000FFFFFFFF
	return v
}

// interleave puts lat in the even bits and lon in the odd ones.
func interleave(lat, lon uint32) uint64 { return spread(uint64(lat)) | spread(uint64(lon))<<1 }

// deinterleave is interleave's inverse.
func deinterleave(h uint64) (lat, lon uint32) { return uint32(squeeze(h)), uint32(squeeze(h >> 1)) }

// Encode is geohashEncode: the cell of step bits per coordinate holding
// (lon, lat) within the given ranges. ok is false for a position outside the
// WGS84 limits or the ranges, or a step outside 1..32.
func Encode(lonR, latR Range, lon, lat float64, step uint8) (Bits, bool) {
	if step > 32 || step == 0 || (latR.Min == 0 && latR.Max == 0) || (lonR.Min == 0 && lonR.Max == 0) {
		return Bits{}, false
	}
	if lon > LonMax || lon < LonMin || lat > LatMax || lat < LatMin {
		return Bits{}, false
	}
	if lat < latR.Min || lat > latR.Max || lon < lonR.Min || lon > lonR.Max {
		return Bits{Step: step}, false
	}
	latOff := (lat - latR.Min) / (latR.Max - latR.Min)
	lonOff := (lon - lonR.Min) / (lonR.Max - lonR.Min)
	scale := float64(uint64(1) << step)
	latOff *= scale
	lonOff *= scale
	// C converts the offsets (0 <= off <= 2^step) to uint32 by truncation.
	return Bits{Bits: interleave(uint32(latOff), uint32(lonOff)), Step: step}, true
}

// EncodeWGS84 encodes in the ranges scores use.
func EncodeWGS84(lon, lat float64, step uint8) (Bits, bool) {
	return Encode(LonRange, LatRange, lon, lat, step)
}

// Decode is geohashDecode: the area of cell h within the given ranges.
func Decode(lonR, latR Range, h Bits) (Area, bool) {
	if h.IsZero() || (latR.Min == 0 && latR.Max == 0) || (lonR.Min == 0 && lonR.Max == 0) {
		return Area{}, false
	}
	ilat, ilon := deinterleave(h.Bits)
	latScale := latR.Max - latR.Min
	lonScale := lonR.Max - lonR.Min
	div := float64(uint64(1) << h.Step)
	// Each bound is computed in C as min + (i * 1.0 / 2^step) * scale, with
	// i+1 computed in 32 bits (it wraps for i = 2^32-1).
	return Area{
		Hash: h,
		Lat: Range{
			Min: latR.Min + (float64(ilat)*1.0/div)*latScale,
			Max: latR.Min + (float64(ilat+1)*1.0/div)*latScale,
		},
		Lon: Range{
			Min: lonR.Min + (float64(ilon)*1.0/div)*lonScale,
			Max: lonR.Min + (float64(ilon+1)*1.0/div)*lonScale,
		},
	}, true
}

// Centre is geohashDecodeAreaToLongLat: the middle of the area, clamped to
// the WGS84 limits.
func (a Area) Centre() (lon, lat float64) {
	lon = (a.Lon.Min + a.Lon.Max) / 2
	lon = min(max(lon, LonMin), LonMax)
	lat = (a.Lat.Min + a.Lat.Max) / 2
	lat = min(max(lat, LatMin), LatMax)
	return lon, lat
}

// ScoreBits is C's (uint64_t) conversion of a score, as gcc compiles it for
// x86-64 (Redis's decodeGeohash), including for scores no GEOADD writes:
// below 2^63 a signed truncation (negative scores wrap, -1.5 gives 2^64-1),
// from 2^63 on a truncation of score-2^63 with the top bit flipped, and
// 0x8000000000000000 wherever the processor's conversion overflows.
func ScoreBits(score float64) uint64 {
	const two63 = 9223372036854775808.0
	const indefinite = uint64(1) << 63
	cvt := func(f float64) uint64 {
		if !(f >= -two63 && f < two63) { // NaN or out of int64 range
			return indefinite
		}
		return uint64(int64(f))
	}
	if score < two63 {
		return cvt(score)
	}
	return cvt(score-two63) ^ indefinite
}

// DecodeScore is decodeGeohash: the centre of the step-26 cell a score
// holds.
func DecodeScore(score float64) (lon, lat float64) {
	a, _ := Decode(LonRange, LatRange, Bits{Bits: ScoreBits(score), Step: StepMax})
	return a.Centre()
}

// Align52 is geohashAlign52Bits: the hash as a score's 52 bits.
func Align52(h Bits) uint64 { return h.Bits << (52 - uint(h.Step)*2) }

// Score is the score GEOADD gives a valid position.
func Score(lon, lat float64) (uint64, bool) {
	h, ok := EncodeWGS84(lon, lat, StepMax)
	if !ok {
		return 0, false
	}
	return Align52(h), true
}

// ValidLonLat is the range check of Redis's extractLongLatOrReply.
func ValidLonLat(lon, lat float64) bool {
	return !(lon < LonMin || lon > LonMax || lat < LatMin || lat > LatMax)
}

const geoAlphabet = "0123456789bcdefghjkmnpqrstuvwxyz"

// StandardHash is GEOHASH's string for a score: the position decoded, then
// encoded again with the standard latitude range ±90, 52 bits in 10
// characters and an 11th that is always '0'.
func StandardHash(score float64) [11]byte {
	lon, lat := DecodeScore(score)
	h, _ := Encode(LonRange, StdLatRange, lon, lat, StepMax)
	var out [11]byte
	for i := range out {
		idx := 0
		if i < 10 {
			idx = int(h.Bits>>(52-(i+1)*5)) & 0x1f
		}
		out[i] = geoAlphabet[idx]
	}
	return out
}
