package zset

import (
	"math"
	"math/bits"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

func TestParseMember(t *testing.T) {
	tests := []struct {
		member string
		kind   int
		d      int64
		t      uint64
		rest   string
	}{
		{"1764470000123:0a1b2c3d", kindHex, 1764470000123, 0x0a1b2c3d, ""},
		{"0:00000000", kindHex, 0, 0, ""},
		{"-1:ffffffff", kindHex, -1, 0xffffffff, ""},
		{"9223372036854775807:ffffffff", kindHex, math.MaxInt64, 0xffffffff, ""},
		{"-9223372036854775808:00000000", kindHex, math.MinInt64, 0, ""},
		{"1764470000123-42", kindSeq, 1764470000123, 42, ""},
		{"1-0", kindSeq, 1, 0, ""},
		{"1-18446744073709551615", kindSeq, 1, math.MaxUint64, ""},
		{"-5-5", kindSeq, -5, 5, ""},
		{"123", kindTail, 123, 0, ""},
		{"0", kindTail, 0, 0, ""},
		{"-9223372036854775808", kindTail, math.MinInt64, 0, ""},
		{"1764470000123:0A1B2C3D", kindTail, 1764470000123, 0, ":0A1B2C3D"},
		{"1764470000123:0a1b2c3", kindTail, 1764470000123, 0, ":0a1b2c3"},
		{"1764470000123:0a1b2c3d4", kindTail, 1764470000123, 0, ":0a1b2c3d4"},
		{"1764470000123:0a1b2c3g", kindTail, 1764470000123, 0, ":0a1b2c3g"},
		{"1764470000123:", kindTail, 1764470000123, 0, ":"},
		{"1764470000123:0a1b2c3d#2", kindTail, 1764470000123, 0, ":0a1b2c3d#2"},
		{"1-", kindTail, 1, 0, "-"},
		{"1-00", kindTail, 1, 0, "-00"},
		{"1-01", kindTail, 1, 0, "-01"},
		{"1-18446744073709551616", kindTail, 1, 0, "-18446744073709551616"},
		{"1-99999999999999999999", kindTail, 1, 0, "-99999999999999999999"},
		{"1-123456789012345678901", kindTail, 1, 0, "-123456789012345678901"},
		{"5--3", kindTail, 5, 0, "--3"},
		{"1-2x", kindTail, 1, 0, "-2x"},
		{"7\x00\xff", kindTail, 7, 0, "\x00\xff"},
		{"1.5", kindTail, 1, 0, ".5"},
		{"1:" + strings.Repeat("x", 62), kindTail, 1, 0, ":" + strings.Repeat("x", 62)},
		// No packed form.
		{"", kindRaw, 0, 0, ""},
		{"-", kindRaw, 0, 0, ""},
		{"--1", kindRaw, 0, 0, ""},
		{":", kindRaw, 0, 0, ""},
		{":0a1b2c3d", kindRaw, 0, 0, ""},
		{"0123:0a1b2c3d", kindRaw, 0, 0, ""},
		{"00", kindRaw, 0, 0, ""},
		{"-0", kindRaw, 0, 0, ""},
		{"-0:0a1b2c3d", kindRaw, 0, 0, ""},
		{"-01", kindRaw, 0, 0, ""},
		{"+5:0a1b2c3d", kindRaw, 0, 0, ""},
		{" 5", kindRaw, 0, 0, ""},
		{"99999999999999999999:0a1b2c3d", kindRaw, 0, 0, ""},
		{"9223372036854775808:00000000", kindRaw, 0, 0, ""},
		{"-9223372036854775809-1", kindRaw, 0, 0, ""},
		{"1:" + strings.Repeat("x", 63), kindRaw, 0, 0, ""}, // longer than maxPacked
		{"abc", kindRaw, 0, 0, ""},
	}
	for _, tt := range tests {
		p := parseMember(tt.member)
		if p.kind != tt.kind || (p.kind != kindRaw && (p.d != tt.d || p.t != tt.t || p.rest != tt.rest)) {
			t.Errorf("parseMember(%q) = %+v; want kind %d d %d t %d rest %q", tt.member, p, tt.kind, tt.d, tt.t, tt.rest)
		}
	}
}

func TestUvarintLen(t *testing.T) {
	for i := 0; i <= 64; i++ {
		for _, v := range []uint64{1<<uint(i) - 1, 1 << uint(i), 1<<uint(i) + 1} {
			if i == 64 && v != math.MaxUint64 {
				continue
			}
			var buf [10]byte
			if got, want := uvarintLen(v), len(appendUvarint(buf[:0], v)); got != want {
				t.Errorf("uvarintLen(%d) = %d; want %d (bits %d)", v, got, want, bits.Len64(v))
			}
		}
	}
}

func appendUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// TestEntrySizes pins what the packed forms cost and when a member stays
// raw.
func TestEntrySizes(t *testing.T) {
	ts := float64(limiterBase)
	const none = noBase
	tests := []struct {
		member string
		score  float64
		base   int64 // the previous entry's integer score, or none
		size   int
		packed bool
	}{
		{"1764470000123:0a1b2c3d", ts, none, 1 + 6 + 4, true},        // header (dd 0), 6-byte score, 4 bytes
		{"1764470000123:0a1b2c3d", ts, limiterBase, 1 + 1 + 4, true}, // delta 0
		{"1764470000123:0a1b2c3d", ts, limiterBase - 127, 6, true},   // delta 127: one byte
		{"1764470000123:0a1b2c3d", ts, limiterBase - 128, 7, true},   // delta 128: two
		{"1764470000123:0a1b2c3d", ts, limiterBase - 60000, 8, true}, // a minute: three
		{"1764470000123:0a1b2c3d", ts, -(1 << 53), 1 + 8 + 4, true},  // delta 2^53 + ts
		{"1764470000123:0a1b2c3d", ts + 64, none, 12, true},          // dd -64: zigzag 127, one byte
		{"1764470000123:0a1b2c3d", ts + 64, limiterBase, 1 + 1 + 1 + 4, true},
		{"1764470000123:0a1b2c3d", ts + 65, none, 13, true},             // dd -65 takes 2 bytes
		{"1764470000123:0a1b2c3d", ts + 0.5, none, 1 + 8 + 6 + 4, true}, // float score: D itself, 6 bytes
		{"1764470000123-4194304", ts, none, 1 + 6 + 4, true},
		{"1764470000123-4194304", ts, limiterBase - 3, 1 + 1 + 4, true},
		{"1764470000123-1", ts, none, 8, true},
		{"1764470000123:0a1b2c3d#2", ts, none, 6 + 2 + 11, true},
		{"1764470000123:0a1b2c3d#2", ts, limiterBase, 1 + 2 + 11, true},
		{"5:0a1b2c3d", ts, none, 1 + 6 + 6 + 4, false},                            // dd ~ -ts is longer than "5"
		{"5:0a1b2c3d", 5, none, 1 + 1 + 4, true},                                  // score 5, dd 0
		{"5:0a1b2c3d", 0.5, none, 8 + 1 + 1 + 4, true},                            // D itself
		{"0:0a1b2c3d", 0.5, none, 8 + 1 + 4, true},                                // D itself, 0
		{"123", 123, none, 1 + 2 + 1, true},                                       // digits and an empty rest
		{"1", 1, none, 1 + 1 + 1, false},                                          // packed would be 2 bytes, raw 2
		{"user:1", 1, none, 1 + 1 + 6, false},                                     // no leading integer
		{"user:1", 1, -5, 1 + 1 + 6, false},                                       // delta 6
		{strings.Repeat("x", 57), 1, none, 1 + 1 + 57, false},                     // the longest one-byte raw header
		{strings.Repeat("x", 58), 1, none, 2 + 1 + 58, false},                     // one byte more than before
		{"-9223372036854775808:00000000", 1 << 53, none, 1 + 8 + 29, false},       // dd overflows
		{"-9223372036854775808:00000000", 1 << 53, -(1 << 53), 1 + 8 + 29, false}, // delta 2^54
		{"9223372036854775807:ffffffff", -1, none, 1 + 1 + 28, false},             // dd overflows
		{"9223372036854775807:ffffffff", 1, none, 1 + 1 + 10 + 4, true},
		{"9223372036854775807:ffffffff", math.Inf(1), none, 1 + 8 + 10 + 4, true},
		{"9223372036854775807:ffffffff", math.Inf(1), 5, 1 + 8 + 10 + 4, true}, // no base for a float
	}
	for _, tt := range tests {
		p := parseMember(tt.member)
		size, dd, packed := layout(tt.member, &p, tt.score, tt.base)
		if size != tt.size || packed != tt.packed {
			t.Errorf("layout(%q, %v, %d) = %d bytes, packed %v; want %d, %v", tt.member, tt.score, tt.base, size, packed, tt.size, tt.packed)
		}
		lp := make([]byte, size)
		putEntry(lp, tt.member, &p, tt.score, dd, packed, tt.base)
		var e entry
		if e.read(lp, 0, tt.base); e.next != size || e.score != tt.score || string(e.appendMember(nil, lp)) != tt.member {
			t.Errorf("%q %v %d: %x read as %+v", tt.member, tt.score, tt.base, lp, e)
		}
		if tt.base != none {
			continue
		}
		s := New()
		s.Add(tt.member, tt.score, DefaultLimits())
		if len(s.lp()) != 1+tt.size {
			t.Errorf("%q %v: lp %x", tt.member, tt.score, s.lp())
		}
		if got := members(s); got != tt.member {
			t.Errorf("%q %v: came back %q", tt.member, tt.score, got)
		}
	}
}

// TestCountHeader crosses the lengths of the count's uvarint (128, 16384)
// both ways; the entries move with it.
func TestCountHeader(t *testing.T) {
	lim := Limits{Entries: 1 << 20, Value: 64}
	for _, n := range []int{127, 16383} {
		l := New()
		l.toLarge(0)
		for i := 0; i < n; i++ {
			ts := limiterBase + int64(i)
			l.Add(strconv.FormatInt(ts, 10)+"-"+strconv.Itoa(i), float64(ts), lim)
		}
		l.ConvertToListpackIfNeeded(lim)
		if l.Encoding() != "listpack" || l.Len() != n {
			t.Fatalf("%d: %s %d", n, l.Encoding(), l.Len())
		}
		check := func(what string, want int) {
			t.Helper()
			if l.Len() != want {
				t.Fatalf("%d %s: Len %d; want %d", n, what, l.Len(), want)
			}
			if err := checkCanonical(l); err != nil {
				t.Fatalf("%d %s: %v", n, what, err)
			}
		}
		check("converted", n)
		l.Add("a", 0, lim) // at the front: everything moves
		check("add first", n+1)
		l.Add("z", 1e300, lim)
		check("add last", n+2)
		if !l.Remove("a") || !l.Remove("z") {
			t.Fatalf("%d: remove", n)
		}
		check("removed", n)
		l.Add("z", 1e300, lim)
		if l.PopMax(1, nil) != 1 {
			t.Fatalf("pop")
		}
		check("popped", n)
		l.Add("a", 0, lim)
		l.Add("b", 0, lim)
		if got := l.RemoveRangeByScore(ScoreRange{Min: 0, Max: 0}); got != 2 {
			t.Fatalf("%d: RemoveRangeByScore %d", n, got)
		}
		check("range removed", n)
		if r, ok := l.Rank(strconv.FormatInt(limiterBase+int64(n-1), 10)+"-"+strconv.Itoa(n-1), false); !ok || r != n-1 {
			t.Fatalf("%d: Rank %d %v", n, r, ok)
		}
	}
}

// TestHotPathAllocs: the rate limiter's operations on packed members do
// not allocate.
func TestHotPathAllocs(t *testing.T) {
	s := New()
	r := rand.New(rand.NewSource(1))
	var ms []string
	for i := 0; i < 5; i++ {
		ms = append(ms, limiterMember(limiterBase+int64(i), r))
		s.Add(ms[i], float64(limiterBase+int64(i)), DefaultLimits())
	}
	next := int64(limiterBase + 5)
	pool := make([]string, 64)
	for i := range pool {
		pool[i] = limiterMember(next+int64(i), r)
	}
	total := 0
	visit := func(m []byte, _ float64) bool { total += len(m); return true }
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		ts := next + int64(i)
		s.Add(pool[i%len(pool)], float64(ts), DefaultLimits())
		s.RemoveRangeByScore(ScoreRange{Min: 0, Max: float64(ts - 5)})
		s.Score(pool[i%len(pool)])
		s.Rank(pool[i%len(pool)], false)
		s.Len()
		s.RangeByRank(s.Len()-1, s.Len()-1, false, visit)
		s.RangeByScore(ScoreRange{Min: float64(ts - 3), Max: math.Inf(1)}, false, 0, -1, visit)
		s.RangeAfter(float64(ts-2), "", visit)
		i++
	})
	if allocs != 0 || s.Len() != 5 {
		t.Errorf("%v allocations per run, %d members", allocs, s.Len())
	}
}

// TestVisitorMemberBytes: a Visitor sees each packed member exactly, in
// every iteration, also when the Visitor reads the same set again.
func TestVisitorMemberBytes(t *testing.T) {
	s := New()
	want := []string{"1764470000123-7", "1764470000123:0a1b2c3d", "1764470000123:0a1b2c3e", "raw", "5"}
	for _, m := range want {
		s.Add(m, limiterBase, DefaultLimits())
	}
	var got []string
	s.RangeByScore(AllScores, false, 0, -1, func(m []byte, sc float64) bool {
		// A nested read of the same set takes its own buffer.
		var inner []string
		s.RangeByRank(0, s.Len()-1, true, func(m []byte, _ float64) bool {
			inner = append(inner, string(m))
			return true
		})
		if len(inner) != len(want) {
			t.Errorf("nested: %q", inner)
		}
		got = append(got, string(m))
		return true
	})
	// Redis's order: score, then bytes ("5" > "1764...", "raw" last).
	if strings.Join(got, " ") != "1764470000123-7 1764470000123:0a1b2c3d 1764470000123:0a1b2c3e 5 raw" {
		t.Errorf("got %q", got)
	}
}

func TestAppendInt(t *testing.T) {
	vals := []int64{0, 1, -1, 9, 10, 99, 100, 101, limiterBase, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for i := 0; i < 19; i++ {
		p := int64(1)
		for j := 0; j < i; j++ {
			p *= 10
		}
		vals = append(vals, p, p-1, -p, 1-p)
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 10000; i++ {
		vals = append(vals, r.Int63()>>uint(r.Intn(63)), -r.Int63()>>uint(r.Intn(63)))
	}
	var buf [maxPacked]byte
	for _, v := range vals {
		want := strconv.FormatInt(v, 10)
		if got := string(appendInt(buf[:3], v)[3:]); got != want {
			t.Fatalf("appendInt(%d) = %q", v, got)
		}
		if got := string(appendInt(nil, v)); got != want {
			t.Fatalf("appendInt(nil, %d) = %q", v, got)
		}
	}
}
