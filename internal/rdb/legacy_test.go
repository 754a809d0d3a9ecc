package rdb

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limitkv/limitkv/internal/testredis"
)

// Test-only encoders for the formats Redis 7 still loads but no longer
// writes, to check the reader against redis-server loading the same file.

func zipEntryInt(v int64) (enc []byte) {
	switch {
	case v >= 0 && v <= 12:
		return []byte{0xF1 + byte(v)}
	case v >= math.MinInt8 && v <= math.MaxInt8:
		return []byte{0xFE, byte(v)}
	case v >= math.MinInt16 && v <= math.MaxInt16:
		return binary.LittleEndian.AppendUint16([]byte{0xC0}, uint16(v))
	case v >= -1<<23 && v <= 1<<23-1:
		return []byte{0xF0, byte(v), byte(v >> 8), byte(v >> 16)}
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return binary.LittleEndian.AppendUint32([]byte{0xD0}, uint32(v))
	default:
		return binary.LittleEndian.AppendUint64([]byte{0xE0}, uint64(v))
	}
}

func encodeZiplist(elems [][]byte) []byte {
	zl := make([]byte, zipHeaderSize)
	prevlen, tail := 0, zipHeaderSize
	for _, e := range elems {
		start := len(zl)
		tail = start
		if prevlen < 254 {
			zl = append(zl, byte(prevlen))
		} else {
			zl = binary.LittleEndian.AppendUint32(append(zl, 0xFE), uint32(prevlen))
		}
		if v, ok := parseLongLong(e); ok && len(e) <= 31 {
			zl = append(zl, zipEntryInt(v)...)
		} else {
			switch n := len(e); {
			case n <= 0x3f:
				zl = append(zl, byte(n))
			case n <= 0x3fff:
				zl = append(zl, byte(n>>8)|0x40, byte(n))
			default:
				zl = binary.BigEndian.AppendUint32(append(zl, 0x80), uint32(n))
			}
			zl = append(zl, e...)
		}
		prevlen = len(zl) - start
	}
	zl = append(zl, 0xFF)
	binary.LittleEndian.PutUint32(zl[0:], uint32(len(zl)))
	binary.LittleEndian.PutUint32(zl[4:], uint32(tail))
	binary.LittleEndian.PutUint16(zl[8:], uint16(min(len(elems), 65535)))
	return zl
}

func encodeZipmap(pairs [][]byte) []byte {
	zm := []byte{byte(min(len(pairs)/2, 254))}
	ln := func(n int) {
		if n < 254 {
			zm = append(zm, byte(n))
		} else {
			zm = binary.LittleEndian.AppendUint32(append(zm, 254), uint32(n))
		}
	}
	for i := 0; i < len(pairs); i += 2 {
		ln(len(pairs[i]))
		zm = append(zm, pairs[i]...)
		ln(len(pairs[i+1]))
		zm = append(zm, 1) // one free byte after the value
		zm = append(zm, pairs[i+1]...)
		zm = append(zm, 'X')
	}
	return append(zm, 0xFF)
}

// legacyFile builds an RDB file of the given version using old encodings,
// and returns the entries it holds.
func legacyFile(ver int, withModuleAux, withEmpty bool) ([]byte, []Entry) {
	return legacyFileSized(ver, withModuleAux, withEmpty, 20000)
}

// legacyFileSized is legacyFile with the biggest ziplist element of size big.
func legacyFileSized(ver int, withModuleAux, withEmpty bool, big int) ([]byte, []Entry) {
	e := &encoder{}
	e.buf = fmt.Appendf(nil, "REDIS%04d", ver)
	var want []Entry
	bs := func(ss ...string) [][]byte {
		var out [][]byte
		for _, s := range ss {
			out = append(out, []byte(s))
		}
		return out
	}
	key := func(typ byte, k string) {
		e.byte(typ)
		e.str([]byte(k))
	}
	if withModuleAux {
		// MODULE_AUX with every opcode kind, then the module EOF.
		e.byte(opModuleAux)
		e.length(0x1234567890 << 10)
		e.length(2)
		e.length(1)
		e.length(1)
		e.length(77)
		e.length(3)
		e.buf = append(e.buf, 0, 0, 0x80, 0x3f)
		e.length(4)
		e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(2.5))
		e.length(5)
		e.str([]byte("module data"))
		e.length(0)
	}
	e.byte(opSelectDB)
	e.length(0)

	e.byte(opExpireSec)
	e.buf = binary.LittleEndian.AppendUint32(e.buf, 4000000000/2)
	key(rdbTypeString, "old:str")
	e.str([]byte("v"))
	want = append(want, Entry{Key: []byte("old:str"), Value: Value{Type: TypeString, String: []byte("v")}, Expire: 2000000000 * 1000, HasExpire: true})

	e.byte(opIdle)
	e.length(1000)
	key(rdbTypeList, "old:list")
	e.length(3)
	for _, s := range []string{"a", "12", strings.Repeat("z", 70)} {
		e.str([]byte(s))
	}
	want = append(want, Entry{Key: []byte("old:list"), Value: Value{Type: TypeList, List: bs("a", "12", strings.Repeat("z", 70))}, LRUIdle: 1000, HasLRUIdle: true})

	e.byte(opFreq)
	e.byte(9)
	key(rdbTypeSet, "old:set")
	e.length(3)
	for _, s := range []string{"x", "1", "2"} {
		e.str([]byte(s))
	}
	want = append(want, Entry{Key: []byte("old:set"), Value: Value{Type: TypeSet, Set: bs("x", "1", "2")}, LFUFreq: 9, HasLFUFreq: true})

	key(rdbTypeZSet, "old:zset")
	e.length(4)
	e.str([]byte("a"))
	e.buf = append(e.buf, 3, '1', '.', '5')
	e.str([]byte("b"))
	e.buf = append(e.buf, 254)
	e.str([]byte("c"))
	e.buf = append(e.buf, 255)
	e.str([]byte("d"))
	s := []byte("0.10000000000000001")
	e.buf = append(append(e.buf, byte(len(s))), s...)
	want = append(want, Entry{Key: []byte("old:zset"), Value: Value{Type: TypeZSet, ZSet: []ZMember{{[]byte("a"), 1.5}, {[]byte("b"), math.Inf(1)}, {[]byte("c"), math.Inf(-1)}, {[]byte("d"), 0.1}}}})

	key(rdbTypeHash, "old:hash")
	e.length(2)
	for _, s := range []string{"f", "v", "g", "123"} {
		e.str([]byte(s))
	}
	want = append(want, Entry{Key: []byte("old:hash"), Value: Value{Type: TypeHash, Hash: []HashField{{[]byte("f"), []byte("v")}, {[]byte("g"), []byte("123")}}}})

	zmPairs := bs("name", "redis", "n", "42", strings.Repeat("F", min(300, big)), strings.Repeat("V", min(300, big)))
	key(rdbTypeHashZipmap, "old:zipmap")
	e.str(encodeZipmap(zmPairs))
	want = append(want, Entry{Key: []byte("old:zipmap"), Value: Value{Type: TypeHash, Hash: []HashField{{zmPairs[0], zmPairs[1]}, {zmPairs[2], zmPairs[3]}, {zmPairs[4], zmPairs[5]}}}})

	zlElems := bs("0", "12", "13", "-1", "127", "-128", "300", "-32768", "70000", "-8388608", "2147483647", "-2147483649", "9223372036854775807", "str", "", strings.Repeat("s", 100), strings.Repeat("t", big), "007")
	key(rdbTypeListZiplist, "old:ziplist")
	e.str(encodeZiplist(zlElems))
	want = append(want, Entry{Key: []byte("old:ziplist"), Value: Value{Type: TypeList, List: zlElems}})

	is, _ := EncodeIntset(bs("5", "-3", "100000"))
	key(rdbTypeSetIntset, "old:intset")
	e.str(is)
	want = append(want, Entry{Key: []byte("old:intset"), Value: Value{Type: TypeSet, Set: bs("-3", "5", "100000")}})

	key(rdbTypeZSetZiplist, "old:zsetzl")
	e.str(encodeZiplist(bs("m1", "1", "m2", "2.5", "m3", "inf")))
	want = append(want, Entry{Key: []byte("old:zsetzl"), Value: Value{Type: TypeZSet, ZSet: []ZMember{{[]byte("m1"), 1}, {[]byte("m2"), 2.5}, {[]byte("m3"), math.Inf(1)}}}})

	key(rdbTypeHashZiplist, "old:hashzl")
	e.str(encodeZiplist(bs("a", "1", "b", "two")))
	want = append(want, Entry{Key: []byte("old:hashzl"), Value: Value{Type: TypeHash, Hash: []HashField{{[]byte("a"), []byte("1")}, {[]byte("b"), []byte("two")}}}})

	key(rdbTypeListQuicklist, "old:quicklist")
	e.length(2)
	e.str(encodeZiplist(bs("n1", "1", "2")))
	e.str(encodeZiplist(bs("n2", strings.Repeat("q", 50))))
	want = append(want, Entry{Key: []byte("old:quicklist"), Value: Value{Type: TypeList, List: bs("n1", "1", "2", "n2", strings.Repeat("q", 50))}})

	// An empty list: Redis (and we) skip it.
	if withEmpty {
		key(rdbTypeList, "old:empty")
		e.length(0)
	}

	e.byte(opSelectDB)
	e.length(2)
	e.byte(opExpireMs)
	e.buf = binary.LittleEndian.AppendUint64(e.buf, 4102444800000)
	key(rdbTypeZSet2, "old:zset2")
	e.length(1)
	e.str([]byte("only"))
	e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(-2.25))
	want = append(want, Entry{DB: 2, Key: []byte("old:zset2"), Value: Value{Type: TypeZSet, ZSet: []ZMember{{[]byte("only"), -2.25}}}, Expire: 4102444800000, HasExpire: true})

	e.byte(opEOF)
	if ver >= 5 {
		e.buf = binary.LittleEndian.AppendUint64(e.buf, CRC64(0, e.buf))
	}
	return e.buf, want
}

func TestLegacyFormatsDecode(t *testing.T) {
	for _, ver := range []int{1, 4, 6, 9} {
		data, want := legacyFile(ver, true, true)
		r, err := NewReader(bytes.NewReader(data), nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []Entry
		for {
			e, err := r.Next()
			if err != nil {
				if err.Error() != "EOF" {
					t.Fatalf("v%d: %v", ver, err)
				}
				break
			}
			got = append(got, *e)
		}
		if r.ModuleAuxSkipped != 1 || r.EmptyKeysSkipped != 1 {
			t.Errorf("v%d: module aux %d, empty %d", ver, r.ModuleAuxSkipped, r.EmptyKeysSkipped)
		}
		if len(got) != len(want) {
			t.Fatalf("v%d: %d entries, want %d", ver, len(got), len(want))
		}
		for i := range want {
			g, w := got[i], want[i]
			if string(g.Key) != string(w.Key) || g.DB != w.DB || !sameValue(g.Value, w.Value) ||
				g.HasExpire != w.HasExpire || g.Expire != w.Expire || g.HasLRUIdle != w.HasLRUIdle ||
				g.LRUIdle != w.LRUIdle || g.HasLFUFreq != w.HasLFUFreq || g.LFUFreq != w.LFUFreq {
				t.Errorf("v%d entry %q:\n got %+v %s\nwant %+v %s", ver, w.Key, g, describe(g.Value), w, describe(w.Value))
			}
		}
	}
}

// TestOracleLegacyFormats has redis-server 7.0.15 load the legacy file and
// compares what it serves with what we read.
func TestOracleLegacyFormats(t *testing.T) {
	checkRDB := testredis.RequireTool(t, "redis-check-rdb")
	for _, ver := range []int{4, 9} {
		dir := t.TempDir()
		data, want := legacyFile(ver, false, true)
		path := filepath.Join(dir, "legacy.rdb")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		p := startRedis(t, dir, "--dbfilename", "legacy.rdb")
		s, err := Decode(bytes.NewReader(data), nil)
		if err != nil {
			t.Fatal(err)
		}
		compareWithRedis(t, p, s.Entries, true)
		compareWithRedis(t, p, want, false)
		// redis-check-rdb skips module aux data as we do.
		// (it refuses the empty key that redis-server skips, so leave that out)
		withAux, _ := legacyFile(ver, true, false)
		if err := os.WriteFile(path, withAux, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(checkRDB, path).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "RDB looks OK") {
			t.Fatalf("redis-check-rdb: %v\n%s", err, out)
		}
	}
}
