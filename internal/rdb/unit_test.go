package rdb

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestCRC64Vectors(t *testing.T) {
	if got := CRC64(0, []byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("crc64(123456789) = %016x", got)
	}
	// Redis's crc64.c self test.
	li := []byte("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed " +
		"do eiusmod tempor incididunt ut labore et dolore magna " +
		"aliqua. Ut enim ad minim veniam, quis nostrud exercitation " +
		"ullamco laboris nisi ut aliquip ex ea commodo consequat. Duis " +
		"aute irure dolor in reprehenderit in voluptate velit esse " +
		"cillum dolore eu fugiat nulla pariatur. Excepteur sint " +
		"occaecat cupidatat non proident, sunt in culpa qui officia " +
		"deserunt mollit anim id est laborum.\x00") // with C's terminator
	if got := CRC64(0, li); got != 0xc7794709e69683b3 {
		t.Fatalf("crc64(li) = %016x", got)
	}
	// Incremental equals one shot, at every split.
	for i := 0; i <= len(li); i++ {
		if CRC64(CRC64(0, li[:i]), li[i:]) != 0xc7794709e69683b3 {
			t.Fatalf("split at %d differs", i)
		}
	}
}

func TestLZFRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	inputs := [][]byte{
		bytes.Repeat([]byte("a"), 100),
		bytes.Repeat([]byte("abcdefgh"), 1000),
		[]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"),
	}
	for i := 0; i < 300; i++ {
		n := r.Intn(5000) + 1
		b := make([]byte, n)
		alpha := r.Intn(20) + 1
		for j := range b {
			b[j] = byte('a' + r.Intn(alpha))
		}
		inputs = append(inputs, b)
	}
	for _, in := range inputs {
		c := lzfCompress(in, len(in)-4)
		if c == nil {
			continue
		}
		if len(c) > len(in)-4 {
			t.Fatalf("compressed %d into %d, over the bound", len(in), len(c))
		}
		out, err := lzfDecompress(c, len(in))
		if err != nil || !bytes.Equal(out, in) {
			t.Fatalf("round trip of %d bytes failed: %v", len(in), err)
		}
	}
	if lzfCompress([]byte("abcdefghijklmnopqrstuvwxyz0123456789"), 32) != nil {
		t.Fatal("incompressible input compressed")
	}
}

func TestListpackEncoding(t *testing.T) {
	cases := []struct {
		elem string
		want []byte // entry bytes including backlen
	}{
		{"0", []byte{0x00, 0x01}},
		{"127", []byte{0x7f, 0x01}},
		{"128", []byte{0xC0, 0x80, 0x02}},
		{"-1", []byte{0xDF, 0xFF, 0x02}},
		{"-4096", []byte{0xD0, 0x00, 0x02}},
		{"4096", []byte{0xF1, 0x00, 0x10, 0x03}},
		{"-32768", []byte{0xF1, 0x00, 0x80, 0x03}},
		{"32768", []byte{0xF2, 0x00, 0x80, 0x00, 0x04}},
		{"2147483647", []byte{0xF3, 0xff, 0xff, 0xff, 0x7f, 0x05}},
		{"-9223372036854775808", []byte{0xF4, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x09}},
		{"9223372036854775808", append([]byte{0x80 | 19}, append([]byte("9223372036854775808"), 20)...)},
		{"01", []byte{0x82, '0', '1', 0x03}},
		{"-0", []byte{0x82, '-', '0', 0x03}},
		{"", []byte{0x80, 0x01}},
	}
	for _, c := range cases {
		lp := EncodeListpack([][]byte{[]byte(c.elem)})
		if got := lp[6 : len(lp)-1]; !bytes.Equal(got, c.want) {
			t.Errorf("%q: % x, want % x", c.elem, got, c.want)
		}
		back, err := DecodeListpack(lp)
		if err != nil || len(back) != 1 || string(back[0]) != c.elem {
			t.Errorf("%q: decoded %q, %v", c.elem, back, err)
		}
	}
	// Long strings: 12-bit and 32-bit lengths and multi-byte backlens.
	for _, n := range []int{63, 64, 127, 128, 4095, 4096, 20000} {
		s := bytes.Repeat([]byte("x"), n)
		lp := EncodeListpack([][]byte{s, []byte("1")})
		back, err := DecodeListpack(lp)
		if err != nil || !bytes.Equal(back[0], s) || string(back[1]) != "1" {
			t.Fatalf("len %d: %v", n, err)
		}
	}
	// 65535+ elements: the header count says "unknown".
	many := make([][]byte, 70000)
	for i := range many {
		many[i] = []byte(strconv.Itoa(i))
	}
	lp := EncodeListpack(many)
	if lp[4] != 0xff || lp[5] != 0xff {
		t.Fatalf("count header % x", lp[4:6])
	}
	back, err := DecodeListpack(lp)
	if err != nil || len(back) != len(many) {
		t.Fatalf("decoded %d, %v", len(back), err)
	}
}

func TestIntset(t *testing.T) {
	is, ok := EncodeIntset([][]byte{[]byte("3"), []byte("-1"), []byte("2")})
	want := []byte{2, 0, 0, 0, 3, 0, 0, 0, 0xff, 0xff, 2, 0, 3, 0}
	if !ok || !bytes.Equal(is, want) {
		t.Fatalf("% x", is)
	}
	is, _ = EncodeIntset([][]byte{[]byte("70000"), []byte("1")})
	if is[0] != 4 {
		t.Fatalf("width %d", is[0])
	}
	is, _ = EncodeIntset([][]byte{[]byte("5000000000")})
	if is[0] != 8 {
		t.Fatalf("width %d", is[0])
	}
	back, err := DecodeIntset(is)
	if err != nil || string(back[0]) != "5000000000" {
		t.Fatal(back, err)
	}
	if _, ok := EncodeIntset([][]byte{[]byte("a")}); ok {
		t.Fatal("non-integer accepted")
	}
}

func sampleSnapshot() *Snapshot {
	big := make([][]byte, 1000)
	for i := range big {
		big[i] = []byte("element-" + strconv.Itoa(i))
	}
	hash := make([]HashField, 200)
	for i := range hash {
		hash[i] = HashField{[]byte("f" + strconv.Itoa(i)), []byte("v" + strconv.Itoa(i))}
	}
	return &Snapshot{
		Functions: [][]byte{[]byte("#!lua name=mylib\nredis.register_function('f', function() return 1 end)")},
		Entries: []Entry{
			{Key: []byte("s"), Value: Value{Type: TypeString, String: []byte("hello")}},
			{Key: []byte("n"), Value: Value{Type: TypeString, String: []byte("-12345")}},
			{Key: []byte("lz"), Value: Value{Type: TypeString, String: bytes.Repeat([]byte("ab"), 100)}, Expire: 1<<42 + 5, HasExpire: true},
			{Key: []byte("l"), Value: Value{Type: TypeList, List: big}},
			{Key: []byte("is"), Value: Value{Type: TypeSet, Set: [][]byte{[]byte("1"), []byte("2")}}},
			{Key: []byte("hs"), Value: Value{Type: TypeSet, Set: [][]byte{[]byte("a"), []byte("b")}}},
			{Key: []byte("z"), Value: Value{Type: TypeZSet, ZSet: []ZMember{{[]byte("a"), 1.5}, {[]byte("b"), math.Inf(-1)}, {[]byte("c"), 3}}}},
			{Key: []byte("zs"), Value: Value{Type: TypeZSet, Encoding: EncodingSkiplist, ZSet: []ZMember{{[]byte("a"), 1.5}, {[]byte("b"), 2}}}},
			{Key: []byte("h"), Value: Value{Type: TypeHash, Hash: hash[:3]}},
			{DB: 3, Key: []byte("hh"), Value: Value{Type: TypeHash, Hash: hash}, LRUIdle: 7, HasLRUIdle: true, LFUFreq: 5, HasLFUFreq: true},
		},
	}
}

func TestRoundTrip(t *testing.T) {
	for _, opts := range []WriterOptions{{}, {NoCompression: true}, {NoChecksum: true}} {
		s := sampleSnapshot()
		var buf bytes.Buffer
		if err := Encode(&buf, s, opts); err != nil {
			t.Fatal(err)
		}
		got, err := Decode(bytes.NewReader(buf.Bytes()), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Entries) != len(s.Entries) {
			t.Fatalf("%d entries", len(got.Entries))
		}
		for i := range s.Entries {
			w, g := s.Entries[i], got.Entries[i]
			w.Value.Encoding, g.Value.Encoding = 0, 0
			if w.Value.Type == TypeZSet {
				sortZ(w.Value.ZSet)
				sortZ(g.Value.ZSet)
			}
			if !reflect.DeepEqual(w, g) {
				t.Fatalf("entry %d:\n got %+v\nwant %+v", i, g, w)
			}
		}
		if !reflect.DeepEqual(got.Functions, s.Functions) {
			t.Fatal("functions differ")
		}
		// Every truncation is refused cleanly.
		data := buf.Bytes()
		for n := 0; n < len(data); n += 1 + n/50 {
			if _, err := Decode(bytes.NewReader(data[:n]), nil); err == nil {
				t.Fatalf("truncated at %d accepted", n)
			}
		}
		if !opts.NoChecksum {
			bad := bytes.Clone(data)
			bad[len(bad)-20] ^= 1
			if _, err := Decode(bytes.NewReader(bad), nil); err == nil {
				t.Fatal("flipped bit accepted")
			}
		}
	}
}

func TestDumpRoundTrip(t *testing.T) {
	for _, e := range sampleSnapshot().Entries {
		p, err := EncodeDump(&e.Value, DumpOptions{})
		if err != nil {
			t.Fatal(err)
		}
		v, err := DecodeDump(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if v.Type != e.Value.Type {
			t.Fatal("type differs")
		}
		p[0] ^= 0x40
		if _, err := DecodeDump(p, nil); !errors.Is(err, ErrChecksum) {
			t.Fatalf("bad crc: %v", err)
		}
		p[0] ^= 0x40
		p[len(p)-10] = 11
		if _, err := DecodeDump(p, nil); !errors.Is(err, ErrVersion) {
			t.Fatalf("version 11: %v", err)
		}
	}
}

func TestReaderStopsAtEOF(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, &Snapshot{}, WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatal(err)
	}
	if len(r.Aux) != 5 || string(r.Aux[0].Key) != "redis-ver" || string(r.Aux[1].Value) != "64" {
		t.Fatalf("aux %q", r.Aux)
	}
}

func sortZ(z []ZMember) {
	for i := 1; i < len(z); i++ {
		for j := i; j > 0 && string(z[j].Member) < string(z[j-1].Member); j-- {
			z[j], z[j-1] = z[j-1], z[j]
		}
	}
}

func header() []byte { return []byte("REDIS0010") }

func TestCorruptInputsBounded(t *testing.T) {
	big := func(typ byte, rest ...byte) []byte {
		b := append(header(), typ, 1, 'k')
		return append(b, rest...)
	}
	cases := map[string][]byte{
		"string 4 GiB":            big(0, 0x80, 0xff, 0xff, 0xff, 0xf0, 'a'),
		"string 2^63":             big(0, 0x81, 0x7f, 0, 0, 0, 0, 0, 0, 0),
		"list 2^62 elements":      big(1, 0x81, 0x40, 0, 0, 0, 0, 0, 0, 0, 0x01, 'a'),
		"lzf 1 GB from 3":         big(0, 0xC3, 3, 0x80, 0x40, 0, 0, 0, 0, 1, 2),
		"bad length enc":          big(0, 0x82),
		"bad string enc":          big(0, 0xC5),
		"unknown type":            append(header(), 8, 1, 'k', 0),
		"stream":                  big(15, 0),
		"module":                  big(7, 0),
		"quicklist empty node":    big(18, 1, 2, 0),
		"quicklist bad container": big(18, 1, 3, 1, 'x'),
		"intset empty":            big(11, 8, 2, 0, 0, 0, 0, 0, 0, 0),
		"listpack bad":            big(16, 7, 7, 0, 0, 0, 0, 0, 0xff),
		"zset nan":                big(5, 1, 1, 'a', 0, 0, 0, 0, 0, 0, 0xf8, 0x7f),
		"dup set":                 big(2, 2, 1, 'a', 1, 'a'),
		"dup hash listpack":       append(big(16), lpString(EncodeListpack([][]byte{[]byte("a"), []byte("1"), []byte("a"), []byte("2")}))...),
		"odd hash listpack":       append(big(16), lpString(EncodeListpack([][]byte{[]byte("a")}))...),
		"selectdb 16":             append(header(), 254, 16),
		"bad magic":               []byte("REDIX0010"),
		"version 11":              []byte("REDIS0011"),
		"version 0":               []byte("REDIS0000"),
		"module aux bad when":     append(header(), 247, 1, 3, 0),
	}
	var before, after runtime.MemStats
	for name, data := range cases {
		runtime.ReadMemStats(&before)
		_, err := Decode(bytes.NewReader(data), &ReaderOptions{MaxStringLen: 1 << 40})
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrVersion) {
			t.Errorf("%s: error %v wraps none of the sentinels", name, err)
		}
		if d := after.TotalAlloc - before.TotalAlloc; d > 8<<20 {
			t.Errorf("%s: allocated %d bytes", name, d)
		}
	}
	// Over the default limit is refused before reading.
	if _, err := Decode(bytes.NewReader(cases["string 4 GiB"]), nil); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("4 GiB string: %v", err)
	}
}

func lpString(lp []byte) []byte {
	e := encoder{}
	e.str(lp)
	return e.buf
}

// TestMutationsNeverPanic flips bytes of real files (the committed seeds and
// our own output): every result is a value or an error.
func TestMutationsNeverPanic(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, sampleSnapshot(), WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	legacy, _ := legacyFile(9, true, true)
	seeds := [][]byte{buf.Bytes(), legacy}
	r := rand.New(rand.NewSource(7))
	opts := &ReaderOptions{SkipChecksum: true}
	for i := 0; i < 1500; i++ {
		d := bytes.Clone(seeds[i%len(seeds)])
		for k := 0; k < 1+r.Intn(3); k++ {
			d[r.Intn(len(d))] = byte(r.Intn(256))
		}
		if r.Intn(4) == 0 {
			d = d[:r.Intn(len(d))]
		}
		_, _ = Decode(bytes.NewReader(d), opts)
		_, _ = DecodeDump(d, opts)
	}
}

func newTestRand(seed int64) *rand.Rand { return rand.New(rand.NewSource(seed)) }

// A file put together from EntryEncoder records with WriteRaw is the file
// WriteEntry writes, checksum included.
func TestWriteRawEqualsWriteEntry(t *testing.T) {
	opts := WriterOptions{CTime: time.Unix(1700000000, 0), UsedMem: 123}
	ents := []Entry{
		{DB: 0, Key: []byte("s"), Value: Value{Type: TypeString, String: []byte(strings.Repeat("compress me ", 9))}},
		{DB: 0, Key: []byte("z"), Expire: 1234567, HasExpire: true, Value: Value{Type: TypeZSet, Encoding: EncodingListpack,
			ZSet: []ZMember{{Member: []byte("a"), Score: 1}, {Member: []byte("b"), Score: 2.5}}}},
		{DB: 3, Key: []byte("l"), Value: Value{Type: TypeList, Encoding: EncodingQuicklist, List: [][]byte{[]byte("x"), []byte("42")}}},
	}
	var want, got bytes.Buffer
	w, _ := NewWriter(&want, opts)
	for i := range ents {
		if i == 0 || ents[i].DB != ents[i-1].DB {
			w.SelectDB(ents[i].DB, 2, 1)
		}
		if err := w.WriteEntry(&ents[i]); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	enc := NewEntryEncoder(opts)
	w, _ = NewWriter(&got, opts)
	for i := range ents {
		if i == 0 || ents[i].DB != ents[i-1].DB {
			w.SelectDB(ents[i].DB, 2, 1)
		}
		b, err := enc.Append(nil, &ents[i])
		if err != nil {
			t.Fatal(err)
		}
		// Split the record to check the checksum runs across calls.
		w.WriteRaw(b[:len(b)/2])
		w.WriteRaw(b[len(b)/2:])
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("WriteRaw file differs:\n%q\n%q", got.Bytes(), want.Bytes())
	}
}
