package rdb

import (
	"encoding/binary"
	"errors"
	"slices"
	"strconv"

	"github.com/limitkv/limitkv/internal/num"
)

// Intset: a sorted array of distinct integers, all stored with the smallest
// width (2, 4 or 8 bytes) that fits every member. Layout: encoding (uint32 LE,
// the width), length (uint32 LE), then the members little-endian, ascending.

var errIntset = errors.New("rdb: intset integrity check failed")

// EncodeIntset returns the intset Redis holds for members; ok is false when a
// member is not an integer (as string2ll decides) or members repeat.
func EncodeIntset(members [][]byte) (out []byte, ok bool) {
	vals := make([]int64, 0, len(members))
	for _, m := range members {
		v, ok := parseLongLong(m)
		if !ok {
			return nil, false
		}
		vals = append(vals, v)
	}
	slices.Sort(vals)
	for i := 1; i < len(vals); i++ {
		if vals[i] == vals[i-1] {
			return nil, false
		}
	}
	width := 2
	for _, v := range vals {
		if v < -1<<31 || v > 1<<31-1 {
			width = 8
			break
		}
		if v < -1<<15 || v > 1<<15-1 {
			width = 4
		}
	}
	out = make([]byte, 8, 8+width*len(vals))
	binary.LittleEndian.PutUint32(out[0:], uint32(width))
	binary.LittleEndian.PutUint32(out[4:], uint32(len(vals)))
	for _, v := range vals {
		switch width {
		case 2:
			out = binary.LittleEndian.AppendUint16(out, uint16(v))
		case 4:
			out = binary.LittleEndian.AppendUint32(out, uint32(v))
		default:
			out = binary.LittleEndian.AppendUint64(out, uint64(v))
		}
	}
	return out, true
}

// DecodeIntset validates an intset blob as Redis's deep check does (size,
// width, strictly ascending members) and returns the members in decimal.
func DecodeIntset(b []byte) ([][]byte, error) {
	if len(b) < 8 {
		return nil, errIntset
	}
	width := binary.LittleEndian.Uint32(b[0:])
	if width != 2 && width != 4 && width != 8 {
		return nil, errIntset
	}
	n := uint64(binary.LittleEndian.Uint32(b[4:]))
	if n*uint64(width)+8 != uint64(len(b)) {
		return nil, errIntset
	}
	if n == 0 {
		return nil, errIntset // Redis refuses an empty intset
	}
	out := make([][]byte, 0, n)
	var prev int64
	for i := uint64(0); i < n; i++ {
		p := b[8+i*uint64(width):]
		var v int64
		switch width {
		case 2:
			v = int64(int16(binary.LittleEndian.Uint16(p)))
		case 4:
			v = int64(int32(binary.LittleEndian.Uint32(p)))
		default:
			v = int64(binary.LittleEndian.Uint64(p))
		}
		if i > 0 && v <= prev {
			return nil, errIntset
		}
		prev = v
		out = append(out, strconv.AppendInt(nil, v, 10))
	}
	return out, nil
}

// parseLongLong is Redis's string2ll: the canonical decimal form of an int64
// (no '+', no leading zeros, no spaces, "-0" refused).
func parseLongLong(s []byte) (int64, bool) {
	return num.ParseInt(s)
}
