package listpack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/limitkv/limitkv/internal/num"
)

// refStringToInt64 is listpack.c's lpStringToInt64, transcribed loop for
// loop, the oracle StringToInt64 must agree with.
func refStringToInt64(s []byte) (int64, bool) {
	slen := len(s)
	if slen == 0 || slen >= 21 {
		return 0, false
	}
	if slen == 1 && s[0] == '0' {
		return 0, true
	}
	p, negative := 0, false
	if s[0] == '-' {
		negative = true
		p++
		if p == slen {
			return 0, false
		}
	}
	var v uint64
	if s[p] >= '1' && s[p] <= '9' {
		v = uint64(s[p] - '0')
		p++
	} else {
		return 0, false
	}
	for p < slen && s[p] >= '0' && s[p] <= '9' {
		if v > math.MaxUint64/10 {
			return 0, false
		}
		v *= 10
		if v > math.MaxUint64-uint64(s[p]-'0') {
			return 0, false
		}
		v += uint64(s[p] - '0')
		p++
	}
	if p < slen {
		return 0, false
	}
	if negative {
		if v > uint64(-(math.MinInt64+1))+1 {
			return 0, false
		}
		return int64(-v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

func TestStringToInt64(t *testing.T) {
	cases := []struct {
		s  string
		v  int64
		ok bool
	}{
		{"0", 0, true},
		{"-0", 0, false},
		{"007", 0, false},
		{"00", 0, false},
		{"+1", 0, false},
		{"-", 0, false},
		{"", 0, false},
		{" 1", 0, false},
		{"1 ", 0, false},
		{"1a", 0, false},
		{"12", 12, true},
		{"-12", -12, true},
		{"99999999999999999999", 0, false},    // 20 digits, past int64
		{"-9999999999999999999", 0, false},    // 20 characters, past int64
		{"-1000000000000000000", -1e18, true}, // 20 characters, fits
		{"100000000000000000000", 0, false},   // 21 characters
		{"-10000000000000000000", 0, false},   // 21 characters
		{"9223372036854775807", math.MaxInt64, true},
		{"9223372036854775808", 0, false},
		{"-9223372036854775808", math.MinInt64, true},
		{"-9223372036854775809", 0, false},
		{"18446744073709551615", 0, false}, // uint64 max
		{"18446744073709551616", 0, false}, // past uint64: overflow check
		{"-18446744073709551616", 0, false},
	}
	for _, c := range cases {
		v, ok := StringToInt64([]byte(c.s))
		if v != c.v && ok || ok != c.ok {
			t.Errorf("StringToInt64(%q) = %d, %v; want %d, %v", c.s, v, ok, c.v, c.ok)
		}
		rv, rok := refStringToInt64([]byte(c.s))
		nv, nok := num.ParseInt([]byte(c.s))
		if rok != ok || rv != v && ok || nok != ok || nv != v && ok {
			t.Errorf("%q: StringToInt64 %d %v, lpStringToInt64 %d %v, string2ll %d %v", c.s, v, ok, rv, rok, nv, nok)
		}
	}
	// Random texts near the grammar: digits, signs, zeros, every length.
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "0123456789-+ 09"
	for range 200000 {
		b := make([]byte, rng.IntN(23))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		v, ok := StringToInt64(b)
		rv, rok := refStringToInt64(b)
		if ok != rok || ok && v != rv {
			t.Fatalf("%q: StringToInt64 %d %v, lpStringToInt64 %d %v", b, v, ok, rv, rok)
		}
	}
}

// TestEncodings pins entries to the bytes listpack.c writes for them.
func TestEncodings(t *testing.T) {
	cases := []struct {
		elem string
		want []byte
	}{
		{"0", []byte{0x00, 0x01}},
		{"127", []byte{0x7f, 0x01}},
		{"128", []byte{0xC0, 0x80, 0x02}},
		{"-1", []byte{0xDF, 0xFF, 0x02}},
		{"-4096", []byte{0xD0, 0x00, 0x02}},
		{"4095", []byte{0xCF, 0xFF, 0x02}},
		{"4096", []byte{0xF1, 0x00, 0x10, 0x03}},
		{"-32768", []byte{0xF1, 0x00, 0x80, 0x03}},
		{"32768", []byte{0xF2, 0x00, 0x80, 0x00, 0x04}},
		{"-8388608", []byte{0xF2, 0x00, 0x00, 0x80, 0x04}},
		{"8388608", []byte{0xF3, 0x00, 0x00, 0x80, 0x00, 0x05}},
		{"-2147483648", []byte{0xF3, 0x00, 0x00, 0x00, 0x80, 0x05}},
		{"2147483648", []byte{0xF4, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x09}},
		{"-9223372036854775808", []byte{0xF4, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x09}},
		{"", []byte{0x80, 0x01}},
		{"ab", []byte{0x82, 'a', 'b', 0x03}},
		{"-0", []byte{0x82, '-', '0', 0x03}},
	}
	for _, c := range cases {
		if got := AppendString(nil, []byte(c.elem)); !bytes.Equal(got, c.want) {
			t.Errorf("AppendString(%q) = % x, want % x", c.elem, got, c.want)
		}
	}
	// String headers and backlens at their width boundaries: 63/64 and
	// 4095/4096 bytes of data, and entries of 127/128 and 16382/16383
	// bytes (lpEncodeBacklen's bounds).
	for _, n := range []int{63, 64, 125, 126, 4095, 4096, 16377, 16378} {
		e := AppendString(nil, bytes.Repeat([]byte{'x'}, n))
		hdr := map[bool]int{true: 1, false: 2}[n < 64]
		if n >= 4096 {
			hdr = 5
		}
		entry := hdr + n
		if len(e) != entry+BacklenSize(entry) || len(e) != StringSize(bytes.Repeat([]byte{'x'}, n)) {
			t.Errorf("%d bytes: entry of %d, StringSize %d", n, len(e), StringSize(bytes.Repeat([]byte{'x'}, n)))
		}
	}
	for l, want := range map[int]int{127: 1, 128: 2, 16382: 2, 16383: 3, 2097150: 3, 2097151: 4, 268435454: 4, 268435455: 5} {
		if got := BacklenSize(l); got != want {
			t.Errorf("BacklenSize(%d) = %d, want %d", l, got, want)
		}
		b := appendBacklen(nil, l)
		if len(b) != want {
			t.Errorf("appendBacklen(%d) wrote %d bytes, want %d", l, len(b), want)
		}
		// Read back from its last byte, as lpDecodeBacklen does.
		var got uint64
		for i, shift := len(b)-1, uint(0); i >= 0; i, shift = i-1, shift+7 {
			got |= uint64(b[i]&127) << shift
			if b[i]&128 == 0 && i != 0 {
				t.Errorf("backlen %d: byte %d ends it early", l, i)
			}
		}
		if got != uint64(l) {
			t.Errorf("backlen %d reads back as %d", l, got)
		}
	}
}

// intBoundaries are the edges of every integer width, each side.
func intBoundaries() []int64 {
	var out []int64
	for _, v := range []int64{0, 127, 4095, 32767, 8388607, 2147483647, math.MaxInt64} {
		out = append(out, v-1, v, v+1, -v-1, -v, -v+1)
	}
	return append(out, math.MinInt64, math.MinInt64+1, -4096, -4097, -32768, -32769, -8388608, -8388609, -2147483648, -2147483649)
}

// randomElems are elements of every kind: integers at every width
// boundary, as ints and as strings, random integers, integer-looking
// strings listpack keeps as strings, and strings of every header width.
func randomElems(rng *rand.Rand) (elems [][]byte, asInt []bool) {
	add := func(s []byte, isInt bool) {
		elems, asInt = append(elems, s), append(asInt, isInt)
	}
	for _, v := range intBoundaries() {
		s := []byte(strconv.FormatInt(v, 10))
		add(s, true)
		add(s, false)
	}
	for range 200 {
		switch rng.IntN(6) {
		case 0:
			add([]byte(strconv.FormatInt(rng.Int64()>>rng.IntN(64), 10)), rng.IntN(2) == 0)
		case 1:
			add([]byte(strconv.FormatInt(-rng.Int64()>>rng.IntN(64), 10)), false)
		case 2:
			bad := []string{"-0", "007", "+1", "1.5", " 1", "9223372036854775808", "-9223372036854775809", "00"}
			add([]byte(bad[rng.IntN(len(bad))]), false)
		case 3:
			b := make([]byte, rng.IntN(64))
			for i := range b {
				b[i] = byte(rng.IntN(256))
			}
			add(b, false)
		case 4:
			add(bytes.Repeat([]byte{byte('a' + rng.IntN(26))}, 64+rng.IntN(4096-64)), false)
		default:
			add([]byte(strings.Repeat("z", 4096+rng.IntN(13000))), false)
		}
	}
	rng.Shuffle(len(elems), func(i, j int) {
		elems[i], elems[j] = elems[j], elems[i]
		asInt[i], asInt[j] = asInt[j], asInt[i]
	})
	return elems, asInt
}

// TestRoundTrip builds listpacks of random elements with Builder and
// Encode and reads them back with Walk and Decode: the same elements, the
// sizes IntSize and StringSize promised, the integers stored as integers.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 20 {
		elems, asInt := randomElems(rng)
		var b Builder // the zero value, as the RDB writer keeps one
		if round%2 == 1 {
			b = *NewBuilder()
		}
		want := 0
		for i, e := range elems {
			if asInt[i] {
				v, err := strconv.ParseInt(string(e), 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				b.AppendInt(v)
				want += IntSize(v)
			} else {
				b.AppendString(e)
				want += StringSize(e)
			}
		}
		lp := b.Bytes()
		if len(lp) != HeaderSize+want+1 || b.Size() != len(lp) || b.Len() != len(elems) {
			t.Fatalf("round %d: %d bytes, Size %d, sizes add up to %d", round, len(lp), b.Size(), HeaderSize+want+1)
		}
		// Appending strings only, Encode gives the same bytes: an int
		// appended is its canonical text appended.
		if enc := Encode(elems); !bytes.Equal(enc, lp) {
			t.Fatalf("round %d: Encode differs from the Builder", round)
		}
		got, err := Decode(lp)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if len(got) != len(elems) {
			t.Fatalf("round %d: %d elements back, want %d", round, len(got), len(elems))
		}
		i := 0
		err = Walk(lp, func(s []byte, v int64, isInt bool) error {
			_, canon := StringToInt64(elems[i])
			if isInt != canon {
				t.Errorf("element %d (%q): isInt %v", i, elems[i], isInt)
			}
			if isInt && strconv.FormatInt(v, 10) != string(elems[i]) || !isInt && !bytes.Equal(s, elems[i]) {
				t.Errorf("element %d: %q %d back, want %q", i, s, v, elems[i])
			}
			if !bytes.Equal(got[i], elems[i]) {
				t.Errorf("Decode element %d: %q, want %q", i, got[i], elems[i])
			}
			i++
			return nil
		})
		if err != nil || i != len(elems) {
			t.Fatalf("round %d: Walk %v after %d elements", round, err, i)
		}
	}
}

// TestManyElements: past 65534 elements the header's count says "unknown"
// and the walk counts them.
func TestManyElements(t *testing.T) {
	for _, n := range []int{0, 65534, 65535, 70000} {
		var b Builder
		for i := range n {
			b.AppendInt(int64(i % 100))
		}
		lp := b.Bytes()
		if c := binary.LittleEndian.Uint16(lp[4:6]); int(c) != min(n, NumeleUnknown) {
			t.Errorf("%d elements: header count %d", n, c)
		}
		got, err := Decode(lp)
		if err != nil || len(got) != n {
			t.Errorf("%d elements: %d back, %v", n, len(got), err)
		}
	}
}

// TestWalkRefuses: what lpValidateIntegrity refuses, Walk refuses.
func TestWalkRefuses(t *testing.T) {
	good := Encode([][]byte{[]byte("a"), []byte("12345"), []byte(strings.Repeat("b", 200))})
	patch := func(f func(lp []byte) []byte) []byte {
		return f(append([]byte(nil), good...))
	}
	cases := map[string][]byte{
		"short":           {7, 0, 0, 0, 0, 0},
		"size":            patch(func(lp []byte) []byte { lp[0]++; return lp }),
		"no EOF":          patch(func(lp []byte) []byte { lp[len(lp)-1] = 0; return lp }),
		"count":           patch(func(lp []byte) []byte { lp[4] = 4; return lp }),
		"backlen":         patch(func(lp []byte) []byte { lp[HeaderSize+2]++; return lp }),
		"unused encoding": patch(func(lp []byte) []byte { lp[HeaderSize] = 0xF5; return lp }),
		"EOF early": patch(func(lp []byte) []byte {
			lp[HeaderSize+3] = EOF
			return lp
		}),
		"string past the end": patch(func(lp []byte) []byte { lp[HeaderSize] = 0xBF; return lp }),
	}
	for name, lp := range cases {
		if err := Walk(lp, func([]byte, int64, bool) error { return nil }); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
	stop := errors.New("stop")
	if err := Walk(good, func([]byte, int64, bool) error { return stop }); err != stop {
		t.Errorf("fn's error: %v", err)
	}
}
