package rdb

import (
	"encoding/binary"
	"errors"
	"strconv"
)

// Ziplist (Redis < 7 compact encoding), decoded only. Layout: zlbytes
// (uint32 LE), zltail (uint32 LE, offset of the last entry), zllen (uint16 LE,
// 65535 meaning "count it"), entries, 0xFF. An entry is prevlen (1 byte, or
// 0xFE and a uint32 LE), an encoding header, and the data.

var errZiplist = errors.New("rdb: ziplist integrity check failed")

const zipHeaderSize = 10

// DecodeZiplist validates zl as Redis's deep integrity check does and returns
// its elements as strings (integers in decimal).
func DecodeZiplist(zl []byte) ([][]byte, error) {
	size := len(zl)
	if size < zipHeaderSize+1 {
		return nil, errZiplist
	}
	if int(binary.LittleEndian.Uint32(zl[0:])) != size || zl[size-1] != 0xFF {
		return nil, errZiplist
	}
	tail := int(binary.LittleEndian.Uint32(zl[4:]))
	if tail > size-1 {
		return nil, errZiplist
	}
	headerCount := int(binary.LittleEndian.Uint16(zl[8:]))
	last := size - 1 // index of the terminator
	p := zipHeaderSize
	prevRaw := 0
	prev := -1
	var out [][]byte
	for zl[p] != 0xFF {
		start := p
		// prevlen
		var prevlen int
		if zl[p] < 0xFE {
			prevlen = int(zl[p])
			p++
		} else {
			if p+5 > last {
				return nil, errZiplist
			}
			prevlen = int(binary.LittleEndian.Uint32(zl[p+1:]))
			p += 5
		}
		if prevlen != prevRaw || p >= last {
			return nil, errZiplist
		}
		enc := zl[p]
		var elem []byte
		var dataLen, hdr int
		isInt := false
		var v int64
		switch enc >> 6 {
		case 0:
			hdr, dataLen = 1, int(enc&0x3f)
		case 1:
			if p+2 > last {
				return nil, errZiplist
			}
			hdr, dataLen = 2, int(enc&0x3f)<<8|int(zl[p+1])
		case 2:
			if enc != 0x80 || p+5 > last {
				return nil, errZiplist
			}
			hdr, dataLen = 5, int(binary.BigEndian.Uint32(zl[p+1:]))
		default:
			isInt, hdr = true, 1
			switch {
			case enc == 0xC0:
				dataLen = 2
			case enc == 0xD0:
				dataLen = 4
			case enc == 0xE0:
				dataLen = 8
			case enc == 0xF0:
				dataLen = 3
			case enc == 0xFE:
				dataLen = 1
			case enc >= 0xF1 && enc <= 0xFD:
				dataLen = 0
				v = int64(enc&0x0f) - 1
			default:
				return nil, errZiplist
			}
		}
		if dataLen < 0 || p+hdr+dataLen > last {
			return nil, errZiplist
		}
		d := zl[p+hdr : p+hdr+dataLen]
		if isInt {
			switch enc {
			case 0xC0:
				v = int64(int16(binary.LittleEndian.Uint16(d)))
			case 0xD0:
				v = int64(int32(binary.LittleEndian.Uint32(d)))
			case 0xE0:
				v = int64(binary.LittleEndian.Uint64(d))
			case 0xF0:
				v = int64(int32(uint32(d[0])<<8|uint32(d[1])<<16|uint32(d[2])<<24) >> 8)
			case 0xFE:
				v = int64(int8(d[0]))
			}
			elem = strconv.AppendInt(nil, v, 10)
		} else {
			elem = append([]byte(nil), d...)
		}
		out = append(out, elem)
		p += hdr + dataLen
		prevRaw = p - start
		prev = start
	}
	if p != last {
		return nil, errZiplist
	}
	if prev >= 0 && prev != tail {
		return nil, errZiplist
	}
	if headerCount != 65535 && headerCount != len(out) {
		return nil, errZiplist
	}
	return out, nil
}

var errZipmap = errors.New("rdb: zipmap integrity check failed")

// DecodeZipmap decodes a zipmap (hashes of Redis < 2.6) into field, value
// pairs. Layout: count byte, then entries <len>field<len><free>value<free
// bytes>, then 0xFF; a length is one byte below 254, or 254 and a uint32 LE.
func DecodeZipmap(zm []byte) ([][]byte, error) {
	if len(zm) < 2 || zm[len(zm)-1] != 0xFF {
		return nil, errZipmap
	}
	p := 1
	readLen := func() (int, bool) {
		if p >= len(zm) {
			return 0, false
		}
		b := zm[p]
		switch {
		case b < 254:
			p++
			return int(b), true
		case b == 254:
			if p+5 > len(zm) {
				return 0, false
			}
			n := binary.LittleEndian.Uint32(zm[p+1:])
			p += 5
			if uint64(n) > uint64(len(zm)) {
				return 0, false
			}
			return int(n), true
		default:
			return 0, false
		}
	}
	var out [][]byte
	for {
		if p >= len(zm) {
			return nil, errZipmap
		}
		if zm[p] == 0xFF {
			break
		}
		fl, ok := readLen()
		if !ok || p+fl > len(zm) {
			return nil, errZipmap
		}
		field := append([]byte(nil), zm[p:p+fl]...)
		p += fl
		vl, ok := readLen()
		if !ok || p >= len(zm) {
			return nil, errZipmap
		}
		free := int(zm[p])
		p++
		if p+vl+free > len(zm) {
			return nil, errZipmap
		}
		val := append([]byte(nil), zm[p:p+vl]...)
		p += vl + free
		out = append(out, field, val)
	}
	if p != len(zm)-1 {
		return nil, errZipmap
	}
	return out, nil
}
