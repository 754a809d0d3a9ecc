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

// DecodeFunctionDump reads a FUNCTION RESTORE payload, calling each with
// every library's code in turn (FUNCTION records of Redis 7.0 release
// candidates are converted, as Redis does); a non-empty text each returns
// stops the reading and is returned. As Redis's functionRestoreCommand, it
// reads records while more than the 10-byte footer is left, so a record
// may run into the footer. On failure it returns Redis's error text,
// without "ERR ".
func DecodeFunctionDump(payload []byte, skipChecksum bool, each func(code []byte) string) string {
	if _, err := VerifyDump(payload, skipChecksum); err != nil {
		return "DUMP payload version or checksum are wrong"
	}
	r := bytes.NewReader(payload)
	d := decoder{r: r, max: 512 << 20}
	for r.Len() > 10 {
		typ, err := d.u8()
		if err != nil {
			return "can not read data type"
		}
		var code []byte
		switch typ {
		case opFunction2:
			if code, err = d.str(); err != nil {
				return "Failed loading library payload"
			}
		case opFunction:
			if code, err = d.oldFunction(); err != nil {
				return "failed loading the given functions payload"
			}
		default:
			return "given type is not a function"
		}
		if msg := each(code); msg != "" {
			return msg
		}
	}
	return ""
}
