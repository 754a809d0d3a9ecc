package conformance

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Conformance of the bitmap family (SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP,
// BITFIELD, BITFIELD_RO) and of the string commands SUBSTR and LCS: every
// option and error path, negative and huge offsets, the raw encoding the
// bit writers leave, TTLs, WATCH (including writes that change nothing),
// MULTI and EVAL. The randomized differential test is in
// bitops_random_test.go.

// bitEnc is OBJECT ENCODING of key, the usual check after a writer.
func bitEnc(key string) Cmd {
	c := C("OBJECT", "ENCODING", key)
	c.where = caller()
	return c
}

// bitSmallBulk limits proto-max-bulk-len to its minimum (1 MB) for a case,
// so the size guards can be reached without 512 MB strings; bitBulkReset
// puts Redis's default back.
var (
	bitSmallBulk = C("CONFIG", "SET", "proto-max-bulk-len", "1mb")
	bitBulkReset = C("CONFIG", "SET", "proto-max-bulk-len", "512mb")
)

func TestBitopsSetGetBit(t *testing.T) {
	runCases(t, []Case{
		{Name: "set and get", Cmds: []Cmd{C("SETBIT", "k", "7", "1"), C("GET", "k"), C("GETBIT", "k", "7"), C("GETBIT", "k", "6"),
			C("SETBIT", "k", "7", "0"), C("SETBIT", "k", "7", "0"), C("GET", "k"), C("SETBIT", "k", "0", "1"), C("SETBIT", "k", "0", "1"), C("GET", "k"), bitEnc("k")}},
		{Name: "grows zero filled", Cmds: []Cmd{C("SET", "k", "a"), C("SETBIT", "k", "100", "1"), C("GET", "k"), C("STRLEN", "k"), bitEnc("k"),
			C("SETBIT", "k", "9", "0"), C("STRLEN", "k")}},
		{Name: "getbit past the end and missing", Cmds: []Cmd{C("GETBIT", "nokey", "0"), C("GETBIT", "nokey", "4294967295"), C("SET", "k", "\xff"),
			C("GETBIT", "k", "7"), C("GETBIT", "k", "8"), C("GETBIT", "k", "4294967295")}},
		{Name: "encodings after setbit", Cmds: []Cmd{
			C("SET", "i", "12"), bitEnc("i"), C("SETBIT", "i", "0", "0"), bitEnc("i"), C("GET", "i"),
			C("SET", "s", "1"), C("SETBIT", "s", "2", "1"), bitEnc("s"), C("GET", "s"),
			C("SET", "e", "hello"), bitEnc("e"), C("SETBIT", "e", "0", "0"), bitEnc("e"),
			C("SETBIT", "n", "3", "1"), bitEnc("n"), C("GET", "n"),
			C("SET", "x", "7"), C("GETBIT", "x", "2"), bitEnc("x"), C("BITCOUNT", "x"), bitEnc("x"),
			C("SET", "y", "1234"), C("APPEND", "y", ""), C("SETBIT", "y", "1", "1"), bitEnc("y"), C("INCR", "y"), bitEnc("y")}},
		{Name: "offset errors", Cmds: []Cmd{C("SETBIT", "k", "-1", "1"), C("SETBIT", "k", "x", "1"), C("SETBIT", "k", "", "1"), C("SETBIT", "k", "1.5", "1"),
			C("SETBIT", "k", "4294967296", "1"), C("SETBIT", "k", "9223372036854775807", "1"), C("SETBIT", "k", "9223372036854775808", "1"),
			C("SETBIT", "k", "#1", "1"), C("SETBIT", "k", " 1", "1"), C("SETBIT", "k", "+1", "1"), C("SETBIT", "k", "01", "1"),
			C("GETBIT", "k", "-1"), C("GETBIT", "k", "4294967296"), C("GETBIT", "k", "x"), C("EXISTS", "k")}},
		{Name: "value errors", Cmds: []Cmd{C("SETBIT", "k", "0", "2"), C("SETBIT", "k", "0", "-1"), C("SETBIT", "k", "0", "x"), C("SETBIT", "k", "0", ""),
			C("SETBIT", "k", "0", "01"), C("SETBIT", "k", "0", "1.0"), C("SETBIT", "k", "-1", "2"), C("SETBIT", "k", "0", "9223372036854775808"), C("EXISTS", "k")}},
		{Name: "arity", Cmds: []Cmd{C("SETBIT"), C("SETBIT", "k"), C("SETBIT", "k", "0"), C("SETBIT", "k", "0", "1", "1"), C("GETBIT", "k"), C("GETBIT", "k", "0", "1")}},
		{Name: "wrong type", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("SETBIT", "z", "0", "1"), C("GETBIT", "z", "0"), C("SETBIT", "z", "-1", "1"),
			C("SETBIT", "z", "0", "5"), C("GETBIT", "z", "x")}},
		{Name: "keeps ttl", Cmds: []Cmd{C("SET", "k", "a", "EX", "100"), C("SETBIT", "k", "1", "0"), strTTL("k"), C("SETBIT", "k", "80", "1"), strTTL("k"), bitEnc("k")}},
		{Name: "expired key is recreated", Cmds: []Cmd{C("SET", "k", "\xff\xff", "PX", "20"), Sleep(40 * time.Millisecond), C("SETBIT", "k", "3", "1"), C("GET", "k"), C("TTL", "k")}},
		{Name: "offset limit follows proto-max-bulk-len", Cmds: []Cmd{bitSmallBulk, C("SETBIT", "k", "8388608", "1"), C("SETBIT", "k", "8388607", "1"),
			C("STRLEN", "k"), C("GETBIT", "k", "8388608"), C("GETBIT", "k", "8388607"), bitBulkReset}},
		{Name: "growth after a shorter integer", Cmds: []Cmd{C("SET", "k", "100000000000"), C("INCRBY", "k", "-99999999999"), C("SETBIT", "k", "95", "0"), C("GET", "k"),
			C("SET", "j", "100000000000"), C("DECRBY", "j", "99999999999"), C("BITFIELD", "j", "SET", "u8", "40", "1"), C("GET", "j")}},
		{Name: "copy and rename keep raw", Cmds: []Cmd{C("SET", "k", "5"), C("SETBIT", "k", "7", "0"), C("COPY", "k", "c"), bitEnc("c"), C("SETBIT", "c", "0", "1"),
			C("GET", "k"), C("GET", "c"), C("RENAME", "c", "r"), bitEnc("r"), C("GETRANGE", "r", "0", "-1"), C("SET", "r", "5"), bitEnc("r")}},
		{Name: "large offset", Cmds: []Cmd{C("SETBIT", "k", "8000000", "1"), C("STRLEN", "k"), C("BITCOUNT", "k"), C("BITPOS", "k", "1"), C("GETBIT", "k", "8000000")}},
	})
}

func TestBitopsBitCount(t *testing.T) {
	v := "\xff\xf0\x00\x0f\xaa\x55"
	runCases(t, []Case{
		{Name: "whole", Cmds: []Cmd{C("SET", "k", v), C("BITCOUNT", "k"), C("BITCOUNT", "nokey"), C("SET", "e", ""), C("BITCOUNT", "e"), C("BITCOUNT", "e", "0", "-1")}},
		{Name: "byte ranges", Cmds: []Cmd{C("SET", "k", v), C("BITCOUNT", "k", "0", "0"), C("BITCOUNT", "k", "1", "3"), C("BITCOUNT", "k", "-2", "-1"),
			C("BITCOUNT", "k", "-100", "100"), C("BITCOUNT", "k", "4", "2"), C("BITCOUNT", "k", "6", "10"), C("BITCOUNT", "k", "-1", "-2"),
			C("BITCOUNT", "k", "-1", "0"), C("BITCOUNT", "k", "0", "-100"), C("BITCOUNT", "k", "5", "-1"), C("BITCOUNT", "k", "1", "3", "BYTE"),
			C("BITCOUNT", "k", "-9223372036854775808", "9223372036854775807"), C("BITCOUNT", "k", "-9223372036854775808", "-9223372036854775808")}},
		{Name: "bit ranges", Cmds: []Cmd{C("SET", "k", v), C("BITCOUNT", "k", "0", "0", "BIT"), C("BITCOUNT", "k", "3", "12", "bit"), C("BITCOUNT", "k", "5", "5", "BIT"),
			C("BITCOUNT", "k", "-5", "-1", "BIT"), C("BITCOUNT", "k", "-100", "100", "BIT"), C("BITCOUNT", "k", "9", "30", "Bit"), C("BITCOUNT", "k", "12", "11", "BIT"),
			C("BITCOUNT", "k", "47", "47", "BIT"), C("BITCOUNT", "k", "48", "100", "BIT"), C("BITCOUNT", "k", "1", "6", "BIT"), C("BITCOUNT", "k", "0", "-1", "BIT"),
			C("SET", "e", ""), C("BITCOUNT", "e", "0", "-1", "BIT"), C("BITCOUNT", "e", "0", "0", "BIT")}},
		{Name: "lone start and bad unit", Cmds: []Cmd{C("SET", "k", v), C("BITCOUNT", "k", "0"), C("BITCOUNT", "k", "x"), C("BITCOUNT", "k", "0", "1", "BITS"),
			C("BITCOUNT", "k", "0", "1", "BIT", "x"), C("BITCOUNT", "k", "-1", "-2", "nonsense"), C("BITCOUNT", "k", "x", "1"), C("BITCOUNT", "k", "0", "x"),
			C("BITCOUNT", "k", "0", "x", "nonsense"), C("BITCOUNT", "k", "0", "1", "BIT\x00x"), C("BITCOUNT", "k", "0", "1", "")}},
		{Name: "missing key ignores arguments", Cmds: []Cmd{C("BITCOUNT", "nokey", "0"), C("BITCOUNT", "nokey", "x", "y", "z"), C("BITCOUNT", "nokey", "0", "1", "2", "3")}},
		{Name: "arity and wrong type", Cmds: []Cmd{C("BITCOUNT"), C("ZADD", "z", "1", "a"), C("BITCOUNT", "z"), C("BITCOUNT", "z", "x")}},
		{Name: "integer values", Cmds: []Cmd{C("SET", "k", "12345"), C("BITCOUNT", "k"), C("BITCOUNT", "k", "1", "2"), C("INCR", "k"), C("BITCOUNT", "k", "-1", "-1")}},
		{Name: "long string", Cmds: []Cmd{C("SET", "k", strings.Repeat("\xa5\x0f\xff", 700)), C("BITCOUNT", "k"), C("BITCOUNT", "k", "3", "1500"),
			C("BITCOUNT", "k", "13", "16000", "BIT"), C("BITCOUNT", "k", "-1000", "-3")}},
	})
}

func TestBitopsBitPos(t *testing.T) {
	runCases(t, []Case{
		{Name: "basic", Cmds: []Cmd{C("SET", "k", "\x00\x0f\xff"), C("BITPOS", "k", "1"), C("BITPOS", "k", "0"), C("BITPOS", "k", "1", "2"),
			C("BITPOS", "k", "0", "1"), C("BITPOS", "k", "1", "-1"), C("BITPOS", "k", "0", "-1"), C("BITPOS", "k", "1", "0", "0"), C("BITPOS", "k", "0", "2", "2")}},
		{Name: "clear bit past the end", Cmds: []Cmd{C("SET", "k", "\xff\xff\xff"), C("BITPOS", "k", "0"), C("BITPOS", "k", "0", "1"), C("BITPOS", "k", "0", "-1"),
			C("BITPOS", "k", "0", "0", "-1"), C("BITPOS", "k", "0", "1", "2"), C("BITPOS", "k", "0", "0", "100"), C("BITPOS", "k", "0", "5"),
			C("BITPOS", "k", "0", "0", "-1", "BIT"), C("BITPOS", "k", "0", "0", "23", "BIT"), C("BITPOS", "k", "1", "3")}},
		{Name: "all zeros", Cmds: []Cmd{C("SET", "k", "\x00\x00"), C("BITPOS", "k", "1"), C("BITPOS", "k", "0"), C("BITPOS", "k", "1", "1"), C("BITPOS", "k", "0", "1", "1"),
			C("BITPOS", "k", "1", "0", "15", "BIT")}},
		{Name: "missing and empty", Cmds: []Cmd{C("BITPOS", "nokey", "0"), C("BITPOS", "nokey", "1"), C("BITPOS", "nokey", "0", "x"), C("BITPOS", "nokey", "1", "5", "3", "BIT"),
			C("SET", "e", ""), C("BITPOS", "e", "0"), C("BITPOS", "e", "1"), C("BITPOS", "e", "0", "0"), C("BITPOS", "e", "0", "0", "-1"), C("BITPOS", "e", "0", "0", "-1", "BIT")}},
		{Name: "bit ranges", Cmds: []Cmd{C("SET", "k", "\x80\x01\x7f\xfe\x00\xff"),
			C("BITPOS", "k", "1", "1", "14", "BIT"), C("BITPOS", "k", "1", "1", "15", "BIT"), C("BITPOS", "k", "0", "0", "0", "BIT"), C("BITPOS", "k", "0", "16", "16", "BIT"),
			C("BITPOS", "k", "1", "17", "30", "BIT"), C("BITPOS", "k", "0", "17", "30", "BIT"), C("BITPOS", "k", "0", "17", "31", "BIT"), C("BITPOS", "k", "1", "31", "39", "BIT"),
			C("BITPOS", "k", "1", "32", "39", "BIT"), C("BITPOS", "k", "0", "40", "47", "BIT"), C("BITPOS", "k", "0", "-8", "-1", "BIT"), C("BITPOS", "k", "1", "-9", "-1", "bit"),
			C("BITPOS", "k", "1", "5", "3", "BIT"), C("BITPOS", "k", "0", "3", "3", "BIT"), C("BITPOS", "k", "1", "0", "-1", "BIT"), C("BITPOS", "k", "0", "-100", "100", "BIT"),
			C("BITPOS", "k", "1", "1", "2", "BYTE"), C("BITPOS", "k", "0", "2", "3", "byte"), C("BITPOS", "k", "1", "4", "4", "BYTE"), C("BITPOS", "k", "0", "5", "5", "BYTE")}},
		{Name: "negative and huge indexes", Cmds: []Cmd{C("SET", "k", "\x00\x00\x01"), C("BITPOS", "k", "1", "-100"), C("BITPOS", "k", "1", "-1", "-2"),
			C("BITPOS", "k", "1", "-9223372036854775808", "9223372036854775807"), C("BITPOS", "k", "0", "9223372036854775807"),
			C("BITPOS", "k", "1", "100"), C("BITPOS", "k", "0", "-2", "-3")}},
		{Name: "errors", Cmds: []Cmd{C("SET", "k", "\x0f"), C("BITPOS", "k", "2"), C("BITPOS", "k", "-1"), C("BITPOS", "k", "x"), C("BITPOS", "k", ""),
			C("BITPOS", "k", "1", "x"), C("BITPOS", "k", "1", "0", "x"), C("BITPOS", "k", "1", "0", "1", "BITS"), C("BITPOS", "k", "1", "x", "1", "BITS"),
			C("BITPOS", "k", "1", "0", "x", "BITS"), C("BITPOS", "k", "1", "0", "x", "BIT"), C("BITPOS", "k", "1", "0", "1", "BIT", "x"),
			C("BITPOS", "nokey", "2"), C("BITPOS", "nokey", "x"), C("BITPOS", "k"), C("BITPOS")}},
		{Name: "wrong type", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("BITPOS", "z", "1"), C("BITPOS", "z", "2"), C("BITPOS", "z", "1", "x")}},
		{Name: "long runs", Cmds: []Cmd{C("SET", "k", strings.Repeat("\x00", 300)+"\x10"+strings.Repeat("\xff", 300)), C("BITPOS", "k", "1"), C("BITPOS", "k", "0", "301"),
			C("BITPOS", "k", "1", "3", "299"), C("BITPOS", "k", "0", "301", "-1"), C("BITPOS", "k", "0", "2411", "4815", "BIT"), C("BITPOS", "k", "1", "7", "2404", "BIT"),
			C("BITPOS", "k", "1", "7", "2403", "BIT")}},
		{Name: "integer value", Cmds: []Cmd{C("SET", "k", "10"), C("BITPOS", "k", "1"), C("BITPOS", "k", "0", "1")}},
	})
}

func TestBitopsBitOp(t *testing.T) {
	setup := []Cmd{C("SET", "a", "\xff\x0f\x00abcdefghijklmnopqrstuvwxyz0123456789"), C("SET", "b", "\x0f\xff"), C("SET", "c", "\xaa\xaa\xaa\xaa")}
	with := func(cmds ...Cmd) []Cmd { return append(append([]Cmd{}, setup...), cmds...) }
	runCases(t, []Case{
		{Name: "and", Cmds: with(C("BITOP", "AND", "d", "a", "b"), C("GET", "d"), bitEnc("d"), C("BITOP", "and", "d", "a", "b", "c"), C("GET", "d"),
			C("BITOP", "AND", "d", "a", "nokey"), C("GET", "d"))},
		{Name: "or", Cmds: with(C("BITOP", "OR", "d", "a", "b"), C("GET", "d"), C("BITOP", "Or", "d", "a", "b", "c", "nokey"), C("GET", "d"))},
		{Name: "xor", Cmds: with(C("BITOP", "XOR", "d", "a", "b"), C("GET", "d"), C("BITOP", "xor", "d", "a", "a"), C("GET", "d"), C("BITOP", "XOR", "d", "c", "b", "a"), C("GET", "d"))},
		{Name: "not", Cmds: with(C("BITOP", "NOT", "d", "a"), C("GET", "d"), C("BITOP", "not", "d", "b"), C("GET", "d"), bitEnc("d"))},
		{Name: "long operands", Cmds: []Cmd{C("SET", "a", strings.Repeat("\x5a\xf0\x3c", 100)), C("SET", "b", strings.Repeat("\x0f\x81", 120)), C("SET", "c", strings.Repeat("\xff", 90)),
			C("BITOP", "AND", "d", "a", "b", "c"), C("GET", "d"), C("BITOP", "OR", "d", "a", "b", "c"), C("GET", "d"), C("BITOP", "XOR", "d", "a", "b", "c"), C("GET", "d"),
			C("BITOP", "NOT", "d", "a"), C("GET", "d"), C("BITOP", "AND", "d", "a", "a"), C("GET", "d")}},
		{Name: "destination is a source", Cmds: with(C("BITOP", "AND", "a", "a", "b"), C("GET", "a"), C("BITOP", "NOT", "b", "b"), C("GET", "b"))},
		{Name: "empty result deletes the destination", Cmds: []Cmd{C("SET", "d", "x"), C("BITOP", "AND", "d", "nokey"), C("EXISTS", "d"), C("SET", "e", ""),
			C("SET", "d", "x"), C("BITOP", "OR", "d", "e", "nokey"), C("EXISTS", "d"), C("ZADD", "d", "1", "a"), C("BITOP", "NOT", "d", "e"), C("EXISTS", "d"),
			C("BITOP", "XOR", "d2", "nokey", "nokey2"), C("EXISTS", "d2")}},
		{Name: "overwrites other types and ttl", Cmds: []Cmd{C("SET", "a", "ab"), C("ZADD", "d", "1", "x"), C("BITOP", "OR", "d", "a"), C("TYPE", "d"), C("GET", "d"),
			C("SET", "e", "x", "EX", "100"), C("BITOP", "OR", "e", "a"), C("TTL", "e"), bitEnc("e"), C("SET", "n", "12"), C("BITOP", "OR", "m", "n"), bitEnc("m"), C("GET", "m")}},
		{Name: "errors", Cmds: with(C("BITOP", "NAND", "d", "a"), C("BITOP", "AN", "d", "a"), C("BITOP", "", "d", "a"), C("BITOP", "AND\x00", "d", "a"),
			C("BITOP", "NOT", "d", "a", "b"), C("BITOP", "NOT", "d", "nokey", "nokey"), C("BITOP", "NOT", "d"), C("BITOP", "AND", "d"), C("BITOP", "AND"),
			C("ZADD", "z", "1", "x"), C("BITOP", "AND", "d", "a", "z"), C("BITOP", "OR", "d", "z", "a"), C("BITOP", "NOT", "d", "z"), C("BITOP", "XX", "d", "z"),
			C("BITOP", "NOT", "d", "z", "a"), C("EXISTS", "d"), C("SET", "d", "keep"), C("BITOP", "AND", "d", "a", "z"), C("GET", "d"))},
	})
}

func TestBitopsBitField(t *testing.T) {
	runCases(t, []Case{
		{Name: "get set incrby", Cmds: []Cmd{C("BITFIELD", "k", "SET", "i8", "0", "100", "GET", "i8", "0", "INCRBY", "i8", "0", "20", "GET", "u8", "0", "GET", "u4", "0", "GET", "i4", "4"),
			C("GET", "k"), bitEnc("k"), C("BITFIELD", "k", "set", "u16", "3", "65535", "get", "u16", "3", "incrby", "u16", "3", "-1", "Get", "i16", "3"), C("GET", "k")}},
		{Name: "hash offsets", Cmds: []Cmd{C("BITFIELD", "k", "SET", "u8", "#0", "1", "SET", "u8", "#1", "2", "SET", "u8", "#3", "4", "GET", "u8", "#3", "GET", "u16", "#1"),
			C("GET", "k"), C("BITFIELD", "k", "INCRBY", "i5", "#2", "7", "GET", "i5", "#2"), C("BITFIELD", "k", "GET", "u8", "#-1"), C("BITFIELD", "k", "GET", "u8", "##1"),
			C("BITFIELD", "k", "GET", "u8", "#"), C("BITFIELD", "k", "GET", "u8", "#x"), C("BITFIELD", "k", "GET", "u8", "# 1"),
			C("BITFIELD", "k", "SET", "i4", "#4611686018427387905", "1"), C("BITFIELD", "k", "GET", "i8", "#2305843009213693953"),
			C("BITFIELD", "k", "GET", "u2", "#2147483648"), C("BITFIELD", "k", "GET", "u8", "#536870912"), C("BITFIELD", "k", "GET", "u8", "#536870911")}},
		{Name: "widths", Cmds: []Cmd{C("BITFIELD", "k", "SET", "i64", "0", "-9223372036854775808", "GET", "i64", "0", "GET", "u63", "0", "GET", "u63", "1", "GET", "i1", "0", "GET", "u1", "0"),
			C("BITFIELD", "k", "SET", "u63", "3", "9223372036854775807", "GET", "u63", "3", "GET", "i64", "2", "GET", "i63", "3"),
			C("BITFIELD", "k", "SET", "i1", "100", "-1", "GET", "i1", "100", "GET", "u1", "100", "SET", "i1", "100", "1", "GET", "i1", "100"), C("GET", "k")}},
		{Name: "overflow wrap", Cmds: []Cmd{C("BITFIELD", "k", "SET", "u8", "0", "250", "INCRBY", "u8", "0", "10", "INCRBY", "u8", "0", "-20", "SET", "u8", "0", "300", "GET", "u8", "0",
			"SET", "i8", "8", "127", "INCRBY", "i8", "8", "1", "INCRBY", "i8", "8", "-1", "SET", "i8", "8", "-129", "GET", "i8", "8", "SET", "u8", "16", "-1", "GET", "u8", "16",
			"SET", "i64", "24", "9223372036854775807", "INCRBY", "i64", "24", "1", "INCRBY", "i64", "24", "-1", "INCRBY", "i64", "24", "-9223372036854775808",
			"SET", "u63", "100", "0", "INCRBY", "u63", "100", "-1", "INCRBY", "u63", "100", "1", "INCRBY", "u63", "100", "9223372036854775807")}},
		{Name: "overflow sat", Cmds: []Cmd{C("BITFIELD", "k", "OVERFLOW", "SAT", "SET", "u8", "0", "250", "INCRBY", "u8", "0", "10", "INCRBY", "u8", "0", "-300", "SET", "u8", "0", "300",
			"SET", "u8", "0", "-1", "GET", "u8", "0", "SET", "i8", "8", "127", "INCRBY", "i8", "8", "1", "INCRBY", "i8", "8", "-1000", "SET", "i8", "8", "-129", "GET", "i8", "8",
			"SET", "i8", "8", "-9223372036854775808", "GET", "i8", "8", "SET", "i8", "8", "-9223372036854775681", "GET", "i8", "8", "SET", "i8", "8", "-9223372036854775680", "GET", "i8", "8",
			"SET", "i64", "24", "9223372036854775807", "INCRBY", "i64", "24", "1", "INCRBY", "i64", "24", "-9223372036854775808", "SET", "i64", "24", "-9223372036854775808",
			"INCRBY", "i64", "24", "-1", "SET", "u63", "100", "1", "INCRBY", "u63", "100", "-2", "INCRBY", "u63", "100", "9223372036854775807", "INCRBY", "u63", "100", "-9223372036854775808")}},
		{Name: "overflow fail", Cmds: []Cmd{C("BITFIELD", "k", "OVERFLOW", "FAIL", "SET", "u8", "0", "250", "INCRBY", "u8", "0", "10", "INCRBY", "u8", "0", "5", "INCRBY", "u8", "0", "-256",
			"SET", "u8", "0", "256", "GET", "u8", "0", "SET", "i8", "8", "-128", "INCRBY", "i8", "8", "-1", "SET", "i8", "8", "128", "SET", "u2", "16", "-1", "GET", "i8", "8"), C("GET", "k")}},
		{Name: "overflow switches per operation", Cmds: []Cmd{C("BITFIELD", "k", "SET", "u4", "0", "15", "INCRBY", "u4", "0", "1", "OVERFLOW", "SAT", "INCRBY", "u4", "0", "20",
			"OVERFLOW", "fail", "INCRBY", "u4", "0", "1", "overflow", "Wrap", "INCRBY", "u4", "0", "1", "OVERFLOW", "SAT", "OVERFLOW", "FAIL", "INCRBY", "u4", "0", "100")}},
		{Name: "fail creates the key", Cmds: []Cmd{C("BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u8", "100", "300"), C("EXISTS", "k"), C("STRLEN", "k"), bitEnc("k"), C("GET", "k")}},
		{Name: "reads only", Cmds: []Cmd{C("BITFIELD", "nokey", "GET", "u8", "0", "GET", "i64", "1000"), C("EXISTS", "nokey"), C("BITFIELD", "nokey"), C("SET", "k", "12"),
			C("BITFIELD", "k"), C("BITFIELD", "k", "GET", "u8", "0", "GET", "i16", "4", "GET", "u8", "100"), bitEnc("k"), C("BITFIELD", "k", "OVERFLOW", "SAT"), bitEnc("k"),
			C("BITFIELD", "k", "SET", "u8", "0", "49"), bitEnc("k"), C("GET", "k")}},
		{Name: "growth", Cmds: []Cmd{C("SET", "k", "a"), C("BITFIELD", "k", "SET", "u8", "30", "255", "GET", "u8", "30"), C("GET", "k"), C("STRLEN", "k"),
			C("BITFIELD", "k", "INCRBY", "i5", "100", "0"), C("STRLEN", "k"), C("BITFIELD", "k", "SET", "i64", "0", "0"), C("STRLEN", "k")}},
		{Name: "type errors", Cmds: []Cmd{C("BITFIELD", "k", "GET", "u64", "0"), C("BITFIELD", "k", "GET", "i65", "0"), C("BITFIELD", "k", "GET", "i0", "0"),
			C("BITFIELD", "k", "GET", "u0", "0"), C("BITFIELD", "k", "GET", "I8", "0"), C("BITFIELD", "k", "GET", "U8", "0"), C("BITFIELD", "k", "GET", "x8", "0"),
			C("BITFIELD", "k", "GET", "", "0"), C("BITFIELD", "k", "GET", "i", "0"), C("BITFIELD", "k", "GET", "i-1", "0"), C("BITFIELD", "k", "GET", "i08", "0"),
			C("BITFIELD", "k", "GET", "i8\x00x", "0"), C("BITFIELD", "k", "GET", "i 8", "0"), C("BITFIELD", "k", "GET", "i+8", "0"), C("BITFIELD", "k", "SET", "u64", "0", "x")}},
		{Name: "offset and value errors", Cmds: []Cmd{C("BITFIELD", "k", "GET", "u8", "-1"), C("BITFIELD", "k", "GET", "u8", "x"), C("BITFIELD", "k", "GET", "u8", "4294967296"),
			C("BITFIELD", "k", "GET", "u8", "4294967295"), C("BITFIELD", "k", "SET", "u8", "4294967288", "x"), C("BITFIELD", "k", "SET", "u8", "0", "x"),
			C("BITFIELD", "k", "SET", "u8", "0", "1.5"), C("BITFIELD", "k", "INCRBY", "u8", "0", ""), C("BITFIELD", "k", "SET", "u8", "0", "9223372036854775808"),
			C("BITFIELD", "k", "SET", "u8", "x", "1"), C("EXISTS", "k")}},
		{Name: "syntax errors", Cmds: []Cmd{C("BITFIELD", "k", "GET"), C("BITFIELD", "k", "GET", "u8"), C("BITFIELD", "k", "SET", "u8", "0"), C("BITFIELD", "k", "INCRBY", "u8", "0"),
			C("BITFIELD", "k", "OVERFLOW"), C("BITFIELD", "k", "OVERFLOW", "x"), C("BITFIELD", "k", "OVERFLOW", "WRAP", "GET"), C("BITFIELD", "k", "FOO", "u8", "0"),
			C("BITFIELD", "k", "SET", "u8", "0", "1", "GET", "u8"), C("BITFIELD", "k", "SET", "u8", "0", "1", "OVERFLOW", "BAD", "GET", "u8", "0"),
			C("BITFIELD", "k", "GET", "u8", "0", "SET", "u99", "0", "1"), C("BITFIELD", "k", "get\x00", "u8", "0"), C("BITFIELD", "k", "OVERFLOW", "sat\x00x", "GET", "u8", "0"),
			C("BITFIELD"), C("EXISTS", "k")}},
		{Name: "wrong type", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("BITFIELD", "z", "GET", "u8", "0"), C("BITFIELD", "z", "SET", "u8", "0", "1"), C("BITFIELD", "z"),
			C("BITFIELD", "z", "GET", "u99", "0"), C("BITFIELD_RO", "z", "GET", "u8", "0"), C("BITFIELD_RO", "z", "SET", "u8", "0", "1")}},
		{Name: "keeps ttl", Cmds: []Cmd{C("SET", "k", "abc", "EX", "100"), C("BITFIELD", "k", "SET", "u8", "100", "1"), strTTL("k"), C("STRLEN", "k")}},
		{Name: "bitfield_ro", Cmds: []Cmd{C("SET", "k", "\x12\x34\x56"), C("BITFIELD_RO", "k", "GET", "u8", "0", "GET", "i12", "#1", "GET", "u4", "20"), C("BITFIELD_RO", "k"),
			C("BITFIELD_RO", "nokey", "GET", "u8", "0"), C("BITFIELD_RO", "k", "SET", "u8", "0", "1"), C("BITFIELD_RO", "k", "INCRBY", "u8", "0", "1"),
			C("BITFIELD_RO", "k", "OVERFLOW", "SAT", "GET", "u8", "0"), C("BITFIELD_RO", "k", "SET", "u8", "0", "x"), C("BITFIELD_RO", "k", "GET", "u64", "0"),
			C("BITFIELD_RO", "k", "FOO"), C("BITFIELD_RO", "k", "GET", "u8"), C("BITFIELD_RO"), C("GET", "k"), bitEnc("k")}},
		{Name: "many operations", Cmds: []Cmd{bitManyOps()}},
	})
}

// bitManyOps is one BITFIELD with a few hundred operations of every kind.
func bitManyOps() Cmd {
	args := []string{"BITFIELD", "k"}
	ows := []string{"WRAP", "SAT", "FAIL"}
	for i := 0; i < 200; i++ {
		typ := []string{"i", "u"}[i%2] + itoa(1+i*7%63)
		off := itoa(i * 13 % 300)
		switch i % 4 {
		case 0:
			args = append(args, "OVERFLOW", ows[i/4%3], "INCRBY", typ, off, itoa(i*977-50000))
		case 1:
			args = append(args, "SET", typ, off, itoa(i*i*i*31-7))
		case 2:
			args = append(args, "GET", typ, off)
		case 3:
			args = append(args, "INCRBY", typ, "#"+itoa(i%9), itoa(-i*12345))
		}
	}
	c := C(args...)
	c.where = caller()
	return c
}

func TestBitopsSubstrLCS(t *testing.T) {
	runCases(t, []Case{
		{Name: "substr", Cmds: []Cmd{C("SET", "k", "Hello World"), C("SUBSTR", "k", "0", "4"), C("SUBSTR", "k", "-5", "-1"), C("SUBSTR", "k", "5", "2"),
			C("SUBSTR", "k", "0", "100"), C("SUBSTR", "k", "-100", "-50"), C("SUBSTR", "nokey", "0", "1"), C("SUBSTR", "k", "x", "1"), C("SUBSTR", "k", "0"),
			C("ZADD", "z", "1", "a"), C("SUBSTR", "z", "0", "1"), C("SUBSTR", "z", "x", "1")}},
		{Name: "lcs", Cmds: []Cmd{C("MSET", "a", "ohmytext", "b", "mynewtext"), C("LCS", "a", "b"), C("LCS", "a", "b", "LEN"), C("LCS", "b", "a"),
			C("LCS", "a", "b", "IDX"), C("LCS", "a", "b", "IDX", "MINMATCHLEN", "4"), C("LCS", "a", "b", "IDX", "WITHMATCHLEN"),
			C("LCS", "a", "b", "idx", "minmatchlen", "4", "withmatchlen"), C("LCS", "a", "b", "IDX", "MINMATCHLEN", "-5", "WITHMATCHLEN"),
			C("LCS", "a", "b", "IDX", "MINMATCHLEN", "100"), C("LCS", "a", "b", "WITHMATCHLEN"), C("LCS", "a", "b", "MINMATCHLEN", "2"), C("LCS", "a", "b", "LEN", "WITHMATCHLEN"),
			C("LCS", "a", "a", "IDX", "WITHMATCHLEN"), C("LCS", "a", "b", "IDX", "IDX", "MINMATCHLEN", "1", "MINMATCHLEN", "3")}},
		{Name: "lcs missing and empty", Cmds: []Cmd{C("LCS", "x", "y"), C("LCS", "x", "y", "LEN"), C("LCS", "x", "y", "IDX"), C("SET", "a", "abc"), C("LCS", "a", "x"),
			C("LCS", "x", "a", "IDX", "WITHMATCHLEN"), C("SET", "e", ""), C("LCS", "a", "e", "IDX"), C("SET", "c", "xyz"), C("LCS", "a", "c"), C("LCS", "a", "c", "IDX")}},
		{Name: "lcs ties and runs", Cmds: []Cmd{C("MSET", "a", "abcabcabcXYZxyzabc", "b", "cbacbaXYZbcazyx"), C("LCS", "a", "b"), C("LCS", "a", "b", "IDX", "WITHMATCHLEN"),
			C("LCS", "b", "a", "IDX", "WITHMATCHLEN"), C("MSET", "c", "aaaa", "d", "aa"), C("LCS", "c", "d", "IDX", "WITHMATCHLEN"), C("LCS", "d", "c", "IDX"),
			C("MSET", "e", "12345", "f", "54321"), C("LCS", "e", "f", "IDX", "WITHMATCHLEN"), C("MSET", "g", "a\x00b\xffc", "h", "\x00\xff"), C("LCS", "g", "h"), C("LCS", "g", "h", "IDX")}},
		{Name: "lcs long", Cmds: []Cmd{C("SET", "a", strings.Repeat("the quick brown fox ", 30)), C("SET", "b", strings.Repeat("jumps over the lazy dog ", 25)),
			C("LCS", "a", "b"), C("LCS", "a", "b", "LEN"), C("LCS", "a", "b", "IDX", "MINMATCHLEN", "3", "WITHMATCHLEN")}},
		{Name: "lcs errors", Cmds: []Cmd{C("MSET", "a", "abc", "b", "abd"), C("LCS", "a", "b", "LEN", "IDX"), C("LCS", "a", "b", "FOO"), C("LCS", "a", "b", "MINMATCHLEN"),
			C("LCS", "a", "b", "MINMATCHLEN", "x"), C("LCS", "a", "b", "MINMATCHLEN", "x", "LEN", "IDX"), C("LCS", "a", "b", "LEN", "IDX", "FOO"), C("LCS", "a"), C("LCS"),
			C("ZADD", "z", "1", "a"), C("LCS", "a", "z"), C("LCS", "z", "a"), C("LCS", "z", "nokey", "FOO"), C("LCS", "nokey", "z", "LEN", "IDX"), C("LCS", "a", "b", "idx\x00")}},
		{Name: "lcs allocation failure", Skip: "divergence: Redis answers 'ERR Insufficient memory, failed allocating transient memory for LCS' when its " +
			"ztrymalloc of a table under proto-max-bulk-len fails; Go cannot try an allocation, so limitkv would need that much memory instead " +
			"(proto-max-bulk-len bounds it, 512 MB by default, as in Redis)",
			Cmds: []Cmd{C("CONFIG", "SET", "proto-max-bulk-len", "1000gb"), C("SETRANGE", "a", "400000", "x"), C("SETRANGE", "b", "400000", "y"),
				C("LCS", "a", "b", "LEN"), bitBulkReset}},
		{Name: "lcs memory guard", Cmds: []Cmd{bitSmallBulk, C("SET", "a", strings.Repeat("ab", 300)), C("SET", "b", strings.Repeat("ba", 300)), C("LCS", "a", "b", "LEN"),
			C("LCS", "a", "b", "IDX", "FOO"), C("SET", "b", strings.Repeat("ba", 100)), C("LCS", "a", "b", "LEN"), C("SET", "b", strings.Repeat("b", 435)),
			C("LCS", "a", "b", "LEN"), C("SET", "b", strings.Repeat("b", 436)), C("LCS", "a", "b", "LEN"), bitBulkReset}},
	})
}

// bitHits compares INFO's keyspace_hits and keyspace_misses, which say
// which lookups count as reads (lookupKeyRead) and which do not.
func bitHits() Cmd {
	stat := func(r *Reply) string {
		var out []string
		for _, l := range strings.Split(r.Str, "\r\n") {
			if strings.HasPrefix(l, "keyspace_hits:") || strings.HasPrefix(l, "keyspace_misses:") {
				out = append(out, l)
			}
		}
		return strings.Join(out, " ")
	}
	c := C("INFO", "stats").Check("keyspace hits", func(rds, lkv *Reply) error {
		if a, b := stat(rds), stat(lkv); a != b || a == "" {
			return fmt.Errorf("redis %q, limitkv %q", a, b)
		}
		return nil
	})
	c.where = caller()
	return c
}

func TestBitopsKeyspaceStats(t *testing.T) {
	runCases(t, []Case{
		{Name: "hits and misses", Cmds: []Cmd{C("SET", "k", "ab"), C("CONFIG", "RESETSTAT"),
			C("GETBIT", "k", "1"), C("GETBIT", "nokey", "1"), C("BITCOUNT", "k"), C("BITCOUNT", "nokey"), C("BITPOS", "k", "1"), C("BITPOS", "nokey", "1"), bitHits(),
			C("SETBIT", "k", "1", "1"), C("SETBIT", "n1", "1", "1"), C("BITFIELD", "k", "SET", "u8", "0", "1"), C("BITFIELD", "n2", "INCRBY", "u8", "0", "1"), bitHits(),
			C("BITFIELD", "k", "GET", "u8", "0"), C("BITFIELD", "nokey", "GET", "u8", "0"), C("BITFIELD_RO", "k", "GET", "u8", "0"), C("BITFIELD_RO", "nokey"), bitHits(),
			C("BITOP", "AND", "d", "k", "nokey", "k"), C("BITOP", "OR", "d", "nokey"), C("LCS", "k", "nokey"), C("LCS", "k", "d", "LEN"), C("SUBSTR", "k", "0", "1"), bitHits(),
			C("BITPOS", "k", "2"), C("GETBIT", "k", "-1"), C("BITCOUNT", "k", "x", "y"), C("BITFIELD", "k", "GET", "u99", "0"), C("LCS", "k", "d", "FOO"), bitHits()}},
	})
}

func TestBitopsWatch(t *testing.T) {
	s := []Cmd{C("SET", "k", "\x0f")}
	runCases(t, []Case{
		zsWatchCase("setbit same bit", s, C("SETBIT", "k", "7", "1")),
		zsWatchCase("setbit clear bit already clear", s, C("SETBIT", "k", "0", "0")),
		zsWatchCase("setbit changes", s, C("SETBIT", "k", "0", "1")),
		zsWatchCase("setbit grows with zero", s, C("SETBIT", "k", "100", "0")),
		zsWatchCase("setbit creates with zero", nil, C("SETBIT", "k", "3", "0")),
		zsWatchCase("setbit error", s, C("SETBIT", "k", "0", "2")),
		zsWatchCase("setbit other key", s, C("SETBIT", "x", "0", "1")),
		zsWatchCase("bitfield same value", s, C("BITFIELD", "k", "SET", "u8", "0", "15", "INCRBY", "u4", "0", "0")),
		zsWatchCase("bitfield changes", s, C("BITFIELD", "k", "INCRBY", "u4", "0", "1")),
		zsWatchCase("bitfield get only", s, C("BITFIELD", "k", "GET", "u8", "0")),
		zsWatchCase("bitfield grows", s, C("BITFIELD", "k", "SET", "u8", "100", "0")),
		zsWatchCase("bitfield fail grows", s, C("BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u8", "100", "300")),
		zsWatchCase("bitfield fail creates", nil, C("BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "300")),
		zsWatchCase("bitfield fail then grow", s, C("BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "300", "SET", "u2", "0", "0")),
		zsWatchCase("bitfield sat at limit", append(s, C("SET", "k", "\xff")), C("BITFIELD", "k", "OVERFLOW", "SAT", "INCRBY", "u8", "0", "10")),
		zsWatchCase("bitfield error", s, C("BITFIELD", "k", "SET", "u8", "0", "1", "GET", "u99", "0")),
		zsWatchCase("bitfield_ro", s, C("BITFIELD_RO", "k", "GET", "u8", "0")),
		zsWatchCase("bitop to watched", s, C("BITOP", "OR", "k", "k")),
		zsWatchCase("bitop from watched", s, C("BITOP", "OR", "x", "k")),
		zsWatchCase("bitop empty on missing", s, C("BITOP", "AND", "d", "nokey")),
		zsWatchCase("bitop empty deletes", append(s, C("SET", "d", "x")), C("BITOP", "AND", "d", "nokey")),
		zsWatchCase("bitop error", s, C("BITOP", "NOT", "k", "k", "k")),
		zsWatchCase("reads", s, C("GETBIT", "k", "0"), C("BITCOUNT", "k"), C("BITPOS", "k", "1"), C("LCS", "k", "d"), C("SUBSTR", "k", "0", "1")),
	})
}

func TestBitopsMultiEval(t *testing.T) {
	runCases(t, []Case{
		{Name: "multi", Cmds: []Cmd{C("MULTI"), C("SETBIT", "k", "1", "1"), C("GETBIT", "k", "1"), C("BITFIELD", "k", "INCRBY", "u8", "0", "1"), C("BITCOUNT", "k"),
			C("BITPOS", "k", "1"), C("BITOP", "NOT", "d", "k"), C("GET", "d"), C("BITFIELD_RO", "k", "GET", "u8", "0"), C("LCS", "k", "d"), C("SUBSTR", "k", "0", "0"), C("EXEC")}},
		{Name: "multi runtime and queue errors", Cmds: []Cmd{C("ZADD", "z", "1", "a"), C("MULTI"), C("SETBIT", "z", "0", "1"), C("SETBIT", "k", "0", "1"),
			C("BITFIELD", "k", "GET", "u99", "0"), C("BITOP", "NOT", "d", "a", "b"), C("EXEC"), C("GET", "k"),
			C("MULTI"), C("SETBIT", "k", "0"), C("SETBIT", "k", "1", "1"), C("EXEC"), C("GET", "k")}},
		{Name: "eval", Cmds: []Cmd{
			C("EVAL", "redis.call('setbit', KEYS[1], 9, 1); return {redis.call('getbit', KEYS[1], 9), redis.call('bitcount', KEYS[1]), redis.call('bitpos', KEYS[1], 1), redis.call('get', KEYS[1])}", "1", "k"),
			C("EVAL", "return redis.call('bitfield', KEYS[1], 'OVERFLOW', 'FAIL', 'INCRBY', 'u2', 0, 5, 'SET', 'i8', 8, -3, 'GET', 'i8', 8)", "1", "k"),
			C("EVAL", "return redis.call('bitfield_ro', KEYS[1], 'GET', 'u16', 0)", "1", "k"),
			C("EVAL", "return redis.call('bitop', 'xor', KEYS[2], KEYS[1], KEYS[1])", "2", "k", "d"), C("GET", "d"),
			C("EVAL", "return redis.pcall('setbit', KEYS[1], -1, 1)", "1", "k"),
			C("EVAL", "return redis.pcall('bitfield', KEYS[1], 'GET', 'u64', 0)", "1", "k"),
			C("EVAL", "return redis.pcall('bitfield_ro', KEYS[1], 'SET', 'u8', 0, 1)", "1", "k"),
			C("EVAL", "return redis.call('setbit', KEYS[1], 0, 1)", "1", "k"),
			C("EVAL_RO", "return redis.pcall('setbit', KEYS[1], 0, 1)", "1", "k"),
			C("EVAL_RO", "return redis.pcall('bitfield', KEYS[1], 'GET', 'u8', 0)", "1", "k"),
			C("EVAL_RO", "return redis.call('bitfield_ro', KEYS[1], 'GET', 'u8', 0)", "1", "k"),
			C("MSET", "a", "ohmytext", "b", "mynewtext"),
			C("EVAL", "return redis.call('lcs', KEYS[1], KEYS[2], 'IDX', 'WITHMATCHLEN')", "2", "a", "b"),
			C("EVAL", "return redis.call('lcs', KEYS[1], KEYS[2])", "2", "a", "b"),
			C("EVAL", "return redis.call('substr', KEYS[1], 1, 3)", "1", "a")}},
		{Name: "command info", Cmds: []Cmd{C("COMMAND", "INFO", "setbit", "getbit", "bitcount", "bitpos", "bitop", "bitfield", "bitfield_ro", "substr", "lcs"),
			C("COMMAND", "GETKEYS", "BITOP", "AND", "d", "a", "b"), C("COMMAND", "GETKEYS", "LCS", "a", "b", "IDX"),
			C("COMMAND", "GETKEYSANDFLAGS", "BITFIELD", "k", "GET", "u8", "0")}},
	})
}

func itoa(i int) string { return strconv.Itoa(i) }
