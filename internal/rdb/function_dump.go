package rdb

import (
	"bytes"
	"encoding/binary"
)

// EncodeFunctionDump is FUNCTION DUMP's payload: a FUNCTION2 record per
// library (its code, compressed as rdbSaveRawString would), the RDB version
// (2 bytes little-endian) and the CRC-64 of all that (8 bytes little-endian).
func EncodeFunctionDump(codes [][]byte, opts DumpOptions) []byte {
	e := encoder{compress: !opts.NoCompression, limits: opts.Limits}
	for _, c := range codes {
		e.byte(opFunction2)
		e.str(c)
	}
	e.buf = append(e.buf, Version&0xff, Version>>8)
	e.buf = binary.LittleEndian.AppendUint64(e.buf, CRC64(0, e.buf))
	return e.buf
}

// DecodeFunctionDump reads a FUNCTION RESTORE payload into the libraries'
// codes (FUNCTION records of Redis 7.0 release candidates are converted, as
// Redis does). On failure it returns Redis's error text, without "ERR ".
func DecodeFunctionDump(payload []byte, skipChecksum bool) ([][]byte, string) {
	if _, err := VerifyDump(payload, skipChecksum); err != nil {
		return nil, "DUMP payload version or checksum are wrong"
	}
	body := payload[:len(payload)-10]
	r := bytes.NewReader(body)
	d := decoder{r: r, max: 512 << 20}
	var codes [][]byte
	for r.Len() > 0 {
		typ, err := d.u8()
		if err != nil {
			return nil, "can not read data type"
		}
		var code []byte
		switch typ {
		case opFunction2:
			if code, err = d.str(); err != nil {
				return nil, "Failed loading library payload"
			}
		case opFunction:
			if code, err = d.oldFunction(); err != nil {
				return nil, "failed loading the given functions payload"
			}
		default:
			return nil, "given type is not a function"
		}
		codes = append(codes, code)
	}
	return codes, ""
}
