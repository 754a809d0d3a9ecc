package stream

import (
	"encoding/binary"
	"strconv"

	"github.com/limitkv/limitkv/internal/listpack"
)

// lpElem is one decoded listpack element.
type lpElem struct {
	isInt bool
	v     int64
	s     []byte // aliases the listpack
}

// bytes is the element as lpGet returns it (integers in decimal).
func (e lpElem) bytes() []byte {
	if e.isInt {
		return strconv.AppendInt(nil, e.v, 10)
	}
	return append([]byte(nil), e.s...)
}

// integer is lpGetIntegerIfValid: a string element counts if it parses.
func (e lpElem) integer() (int64, bool) {
	if e.isInt {
		return e.v, true
	}
	return listpack.StringToInt64(e.s)
}

// lpDecode checks lp as lpValidateIntegrity does in deep mode and returns
// its elements, which decodeNode reads with look-ahead a walk cannot give.
func lpDecode(lp []byte) ([]lpElem, error) {
	// Sized from the header's count, as far as lp's bytes can hold that
	// many (two bytes an element at least) so a lying header costs
	// nothing: a node is decoded whole on every load, and growing the
	// slice element by element was most of the walk's cost.
	var out []lpElem
	if len(lp) >= listpack.HeaderSize {
		if n := int(binary.LittleEndian.Uint16(lp[4:6])); n != listpack.NumeleUnknown {
			out = make([]lpElem, 0, min(n, len(lp)/2))
		}
	}
	err := listpack.Walk(lp, func(s []byte, v int64, isInt bool) error {
		out = append(out, lpElem{isInt: isInt, v: v, s: s})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
