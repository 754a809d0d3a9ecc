package zset

import (
	"encoding/binary"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// Expected values come from Redis 7.0.15; the commands are in comments.

func TestParseScoreRange(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		min, max string
		want     ScoreRange
		err      bool
	}{
		// ZADD k 0 z 1 a 2 b 1e300 big -1 neg; ZRANGEBYSCORE k <min> <max>
		{"", "+inf", ScoreRange{Min: 0, Max: inf}, false},               // z a b big
		{"(", "+inf", ScoreRange{Min: 0, Max: inf, MinEx: true}, false}, // a b big
		{"(((1", "+inf", ScoreRange{}, true},
		{"(inf", "+inf", ScoreRange{Min: inf, Max: inf, MinEx: true}, false},
		{" 1", "+inf", ScoreRange{Min: 1, Max: inf}, false},
		{"( 1", "+inf", ScoreRange{Min: 1, Max: inf, MinEx: true}, false},
		{"\t2", "+inf", ScoreRange{Min: 2, Max: inf}, false},
		{"1 ", "+inf", ScoreRange{}, true},
		{"   ", "1", ScoreRange{}, true},
		{"1e400", "+inf", ScoreRange{Min: inf, Max: inf}, false},
		{"1e-400", "+inf", ScoreRange{Min: 0, Max: inf}, false},
		{"(1e-400", "+inf", ScoreRange{Min: 0, Max: inf, MinEx: true}, false},
		{"0x10", "+inf", ScoreRange{Min: 16, Max: inf}, false},
		{"1_0", "+inf", ScoreRange{}, true},
		{"nan", "+inf", ScoreRange{}, true},
		{"(nan", "+inf", ScoreRange{}, true},
		{"-inf", "(-inf", ScoreRange{Min: -inf, Max: -inf, MaxEx: true}, false},
		{"infinity", "+inf", ScoreRange{Min: inf, Max: inf}, false},
		{"+1", "(+1", ScoreRange{Min: 1, Max: 1, MaxEx: true}, false},
		{".5", "+inf", ScoreRange{Min: 0.5, Max: inf}, false},
		{"1e", "+inf", ScoreRange{}, true},
		{"-", "1", ScoreRange{}, true},
		{"-inf", "1e", ScoreRange{}, true},
		// raw RESP: ZRANGEBYSCORE k "1\x00abc" +inf -> a b
		{"1\x00abc", "+inf", ScoreRange{Min: 1, Max: inf}, false},
		// raw RESP: ZRANGEBYSCORE k "(\x00abc" +inf -> a b
		{"(\x00abc", "+inf", ScoreRange{Min: 0, Max: inf, MinEx: true}, false},
	}
	for _, tt := range tests {
		got, err := ParseScoreRange([]byte(tt.min), []byte(tt.max))
		if tt.err {
			if err != ErrNotFloat {
				t.Errorf("ParseScoreRange(%q, %q) = %+v, %v; want ErrNotFloat", tt.min, tt.max, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseScoreRange(%q, %q) = %+v, %v; want %+v", tt.min, tt.max, got, err, tt.want)
		}
	}
}

func TestScoreRangeEmpty(t *testing.T) {
	tests := []struct {
		min, max string
		empty    bool
	}{
		// ZCOUNT k <min> <max> on k = {z:0 a:1 b:2}
		{"1", "(1", true},
		{"(1", "1", true},
		{"1", "1", false},
		{"2", "1", true},
		{"-inf", "+inf", false},
		{"+inf", "-inf", true},
		{"(-inf", "(-inf", true},
		{"-0", "0", false},
		{"(-0", "0", true},
	}
	for _, tt := range tests {
		r, err := ParseScoreRange([]byte(tt.min), []byte(tt.max))
		if err != nil || r.Empty() != tt.empty {
			t.Errorf("%q %q: Empty() = %v, %v; want %v", tt.min, tt.max, r.Empty(), err, tt.empty)
		}
	}
}

func TestParseLexRange(t *testing.T) {
	minus := LexBound{Kind: LexMinusInf, Ex: true}
	plus := LexBound{Kind: LexPlusInf, Ex: true}
	tests := []struct {
		min, max string
		want     LexRange
		err      bool
	}{
		// ZADD l 0 a 0 b 0 c 0 "b\x00z"; ZRANGEBYLEX l <min> <max>
		{"-", "+", LexRange{minus, plus}, false},
		{"+\x00x", "+", LexRange{plus, plus}, false},  // (empty)
		{"-", "+\x00x", LexRange{minus, plus}, false}, // a b b\0z c
		{"-\x00x", "+", LexRange{minus, plus}, false}, // a b b\0z c
		{"[b\x00", "+", LexRange{LexBound{Value: "b\x00"}, plus}, false},
		{"(b", "+", LexRange{LexBound{Value: "b", Ex: true}, plus}, false},
		{"", "+", LexRange{}, true},
		{"[", "+", LexRange{LexBound{Value: ""}, plus}, false},            // all
		{"(", "+", LexRange{LexBound{Value: "", Ex: true}, plus}, false},  // all
		{"-", "(", LexRange{minus, LexBound{Value: "", Ex: true}}, false}, // none
		{"+a", "+", LexRange{}, true},
		{"-a", "+", LexRange{}, true},
		{"a", "+", LexRange{}, true},
		{"-", "a", LexRange{}, true},
		{"\x00", "+", LexRange{}, true},
	}
	for _, tt := range tests {
		got, err := ParseLexRange([]byte(tt.min), []byte(tt.max))
		if tt.err {
			if err != ErrNotLexItem {
				t.Errorf("ParseLexRange(%q, %q) = %+v, %v; want ErrNotLexItem", tt.min, tt.max, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseLexRange(%q, %q) = %+v, %v; want %+v", tt.min, tt.max, got, err, tt.want)
		}
	}
}

func TestLexRangeEmpty(t *testing.T) {
	tests := []struct {
		min, max string
		empty    bool
	}{
		{"-", "-", true},
		{"+", "+", true},
		{"+", "-", true},
		{"-", "+", false},
		{"[a", "-", true},
		{"+", "[a", true},
		{"[a", "[a", false},
		{"(a", "[a", true},
		{"[a", "(a", true},
		{"[b", "[a", true},
		{"[", "[", false},
		{"-", "(", false}, // not empty by the bounds; no member is below ""
	}
	for _, tt := range tests {
		r, err := ParseLexRange([]byte(tt.min), []byte(tt.max))
		if err != nil || r.Empty() != tt.empty {
			t.Errorf("%q %q: Empty() = %v, %v; want %v", tt.min, tt.max, r.Empty(), err, tt.empty)
		}
	}
}

func members(s *Set) string {
	var parts []string
	s.RangeByRank(0, s.Len()-1, false, func(m []byte, _ float64) bool {
		parts = append(parts, string(m))
		return true
	})
	return strings.Join(parts, " ")
}

func TestLexWithUnequalScores(t *testing.T) {
	// ZADD k 0 a 1 b 0 c 2 a0 (listpack: a c b a0)
	s := New()
	s.Add("a", 0, DefaultLimits())
	s.Add("b", 1, DefaultLimits())
	s.Add("c", 0, DefaultLimits())
	s.Add("a0", 2, DefaultLimits())
	if got := members(s); got != "a c b a0" {
		t.Fatalf("order %q", got)
	}
	lex := func(min, max string, rev bool) string {
		r, err := ParseLexRange([]byte(min), []byte(max))
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		s.RangeByLex(r, rev, 0, -1, func(m []byte, _ float64) bool {
			parts = append(parts, string(m))
			return true
		})
		return strings.Join(parts, " ")
	}
	tests := []struct {
		cmd  string
		got  string
		want string
	}{
		{"ZRANGEBYLEX k [b +", lex("[b", "+", false), ""},
		{"ZREVRANGEBYLEX k [b -", lex("-", "[b", true), "a0 b c a"},
		{"ZRANGEBYLEX k - [b", lex("-", "[b", false), "a"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %q; want %q", tt.cmd, tt.got, tt.want)
		}
	}
	r, _ := ParseLexRange([]byte("[b"), []byte("+"))
	if n := s.CountByLex(r); n != 0 { // ZLEXCOUNT k [b + -> 0
		t.Errorf("ZLEXCOUNT = %d", n)
	}
	r, _ = ParseLexRange([]byte("[b"), []byte("[c"))
	if n := s.RemoveRangeByLex(r); n != 0 { // ZREMRANGEBYLEX k [b [c -> 0
		t.Errorf("ZREMRANGEBYLEX = %d", n)
	}
}

func TestEncodingConversion(t *testing.T) {
	// ZADD k 1 m1 ... 128 m128 -> listpack; ZADD k 129 m129 -> skiplist;
	// ZREMRANGEBYRANK k 0 -3 -> 127, still skiplist.
	s := New()
	for i := 1; i <= 128; i++ {
		s.Add("m"+strconv.Itoa(i), float64(i), DefaultLimits())
	}
	if s.Encoding() != "listpack" {
		t.Fatalf("128 members: %s", s.Encoding())
	}
	s.Add("m1", 1000, DefaultLimits()) // an update does not convert
	if s.Encoding() != "listpack" || s.Len() != 128 {
		t.Fatalf("after update: %s %d", s.Encoding(), s.Len())
	}
	s.Add("m129", 129, DefaultLimits())
	if s.Encoding() != "skiplist" || s.Len() != 129 {
		t.Fatalf("129 members: %s %d", s.Encoding(), s.Len())
	}
	if n := s.RemoveRangeByRank(0, s.Len()-3); n != 127 || s.Encoding() != "skiplist" {
		t.Fatalf("ZREMRANGEBYRANK: %d %s", n, s.Encoding())
	}

	// ZADD k 1 <64 x> -> listpack; ZADD k 1 <65 y> -> skiplist
	s = New()
	s.Add(strings.Repeat("x", 64), 1, DefaultLimits())
	if s.Encoding() != "listpack" {
		t.Fatalf("64-byte member: %s", s.Encoding())
	}
	s.Add(strings.Repeat("y", 65), 1, DefaultLimits())
	if s.Encoding() != "skiplist" {
		t.Fatalf("65-byte member: %s", s.Encoding())
	}
	// ZREM k <65 y> keeps skiplist.
	s.Remove(strings.Repeat("y", 65))
	if s.Encoding() != "skiplist" {
		t.Fatalf("after ZREM: %s", s.Encoding())
	}
	// A store result that fits becomes listpack:
	// ZADD k3 ... ; ZREM k3 <long>; ZUNIONSTORE-like conversion.
	s.ConvertToListpackIfNeeded(DefaultLimits())
	if s.Encoding() != "listpack" || members(s) != strings.Repeat("x", 64) {
		t.Fatalf("ConvertToListpackIfNeeded: %s %q", s.Encoding(), members(s))
	}

}

// TestLimits: the thresholds are the ones given to each call, so sets
// under different servers' settings convert independently.
func TestLimits(t *testing.T) {
	tests := []struct {
		name    string
		lim     Limits
		members []string
		want    string
	}{
		{"entries 0", Limits{Entries: 0, Value: 64}, []string{"a"}, "skiplist"},
		{"entries 1", Limits{Entries: 1, Value: 64}, []string{"a"}, "listpack"},
		{"entries 1, two", Limits{Entries: 1, Value: 64}, []string{"a", "b"}, "skiplist"},
		{"value 0, empty member", Limits{Entries: 128, Value: 0}, []string{""}, "listpack"},
		{"value 0", Limits{Entries: 128, Value: 0}, []string{"a"}, "skiplist"},
		{"value 3", Limits{Entries: 128, Value: 3}, []string{"abc"}, "listpack"},
		{"value 3, longer", Limits{Entries: 128, Value: 3}, []string{"abc", "abcd"}, "skiplist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, b := New(), New()
			for i, m := range tt.members {
				s.Add(m, float64(i), tt.lim)
				b.AddBytes([]byte(m), float64(i), tt.lim)
			}
			if s.Encoding() != tt.want || b.Encoding() != tt.want {
				t.Fatalf("Add: %s, AddBytes: %s; want %s", s.Encoding(), b.Encoding(), tt.want)
			}
			// The same members under the defaults stay small, and a large
			// set converts back only under limits it fits.
			d := New()
			for i, m := range tt.members {
				d.Add(m, float64(i), DefaultLimits())
			}
			if d.Encoding() != "listpack" {
				t.Fatalf("defaults: %s", d.Encoding())
			}
			s.ConvertToListpackIfNeeded(tt.lim)
			if s.Encoding() != tt.want {
				t.Fatalf("ConvertToListpackIfNeeded(%+v): %s", tt.lim, s.Encoding())
			}
			s.ConvertToListpackIfNeeded(DefaultLimits())
			if s.Encoding() != "listpack" || members(s) != members(d) {
				t.Fatalf("ConvertToListpackIfNeeded(defaults): %s %q", s.Encoding(), members(s))
			}
		})
	}
}

func TestNegativeZero(t *testing.T) {
	negz := math.Copysign(0, -1)
	// ZADD k -0 a; ZSCORE k a -> "0" (listpack stores the integer 0)
	s := New()
	s.Add("a", negz, DefaultLimits())
	if sc, _ := s.Score("a"); math.Signbit(sc) {
		t.Errorf("listpack keeps -0")
	}
	// CONFIG SET zset-max-listpack-entries 0; ZADD k -0 a; ZSCORE k a -> "-0"
	lim := Limits{Entries: 0, Value: 64}
	s = New()
	s.Add("a", negz, lim)
	if sc, _ := s.Score("a"); !math.Signbit(sc) {
		t.Errorf("skiplist loses -0")
	}
	// -0 and 0 are the same score: ZADD k 0 a is no change.
	if s.Add("a", 0, lim) {
		t.Errorf("re-add reported added")
	}
	s.Add("b", 0, lim)
	r, _ := ParseScoreRange([]byte("(0"), []byte("+inf"))
	if n := s.CountByScore(r); n != 0 {
		t.Errorf("ZCOUNT k (0 +inf = %d", n)
	}
}

func TestVisitorStops(t *testing.T) {
	for _, large := range []bool{false, true} {
		s := New()
		if large {
			s.toLarge(0)
		}
		for i := 0; i < 10; i++ {
			s.Add(strconv.Itoa(i), float64(i), DefaultLimits())
		}
		n := 0
		s.RangeByScore(AllScores, false, 0, -1, func([]byte, float64) bool { n++; return n < 3 })
		if n != 3 {
			t.Errorf("large %v: visited %d", large, n)
		}
		var got []string
		s.RangeByScore(AllScores, true, 2, 3, func(m []byte, _ float64) bool {
			got = append(got, string(m))
			return true
		})
		if strings.Join(got, " ") != "7 6 5" {
			t.Errorf("large %v: LIMIT 2 3 REV = %v", large, got)
		}
	}
}

// TestSmallEncodingSize measures the small encoding of 5-member limiter
// sets (the figures in small.go's comment; go test -v -run
// TestSmallEncodingSize prints them).
func TestSmallEncodingSize(t *testing.T) {
	hexAt := func(ts int64, i int) string { return strconv.FormatInt(ts, 10) + ":0a1b2c3" + strconv.Itoa(i) }
	hex := func(ts int64, i int) string { return hexAt(ts, i) }
	tests := []struct {
		name   string
		member func(ts int64, i int) string
		gaps   [4]int64 // ms between the timestamps
		off    float64  // score - timestamp
		bytes  int      // the whole buffer
		cap    int
	}{
		{"seed <ms>:<8 hex>, 1 ms apart", hex, [4]int64{1, 1, 1, 1}, 0, 36, 48},
		{"seed, 10 s apart", hex, [4]int64{10000, 10000, 10000, 10000}, 0, 40, 48},
		{"seed, a 60 s window", hex, [4]int64{19999, 19999, 19999, 1}, 0, 42, 48},
		{"seed, same ms", hex, [4]int64{}, 0, 36, 48},
		{"seed, score 3 ms off", hex, [4]int64{1, 1, 1, 1}, 3, 41, 48},
		{"seed, score 100 ms off", hex, [4]int64{1, 1, 1, 1}, -100, 46, 48},
		{"RL.CHECK <ms>-<seq>", func(ts int64, i int) string { return strconv.FormatInt(ts, 10) + "-" + strconv.Itoa(4194304+i) },
			[4]int64{1, 1, 1, 1}, 0, 36, 48},
		{"RL.CHECK cost 2 <ms>:<8 hex>#2", func(ts int64, i int) string { return hexAt(ts, i) + "#2" }, [4]int64{1, 1, 1, 1}, 0, 76, 96},
		{"raw 22 bytes", func(ts int64, i int) string { return "user:" + strconv.Itoa(1e15+i) + "x" }, [4]int64{1, 1, 1, 1}, 0, 126, 128},
	}
	for _, tt := range tests {
		s := New()
		ts := make([]int64, 5)
		ts[0] = 1764470000123
		for i := 1; i < 5; i++ {
			ts[i] = ts[i-1] + tt.gaps[i-1]
		}
		var want []string
		for i := 0; i < 5; i++ {
			want = append(want, tt.member(ts[i], i))
			s.Add(want[i], float64(ts[i])+tt.off, DefaultLimits())
		}
		t.Logf("%-32s %q: %.1f bytes/entry, %d bytes, buffer %d", tt.name, want[0], float64(len(s.lp())-1)/5, len(s.lp()), s.bufSize())
		if len(s.lp()) != tt.bytes || s.bufSize() != tt.cap || s.MemoryUsage() != s.bufSize()+int(unsafe.Sizeof(Set{})) {
			t.Errorf("%s: %d bytes, buffer %d, MemoryUsage %d; want %d, %d", tt.name, len(s.lp()), s.bufSize(), s.MemoryUsage(), tt.bytes, tt.cap)
		}
		// The encoding does not change what comes back.
		for i := 0; i < 5; i++ {
			if sc, ok := s.Score(want[i]); !ok || sc != float64(ts[i])+tt.off {
				t.Errorf("%s: Score(%q) = %v %v", tt.name, want[i], sc, ok)
			}
		}
		if got := members(s); got != strings.Join(want, " ") {
			t.Errorf("%s: members %q; want %q", tt.name, got, want)
		}
		// A sliding window at its limit keeps its buffer: remove the
		// oldest, add one more, as the limiters do, many times.
		c := cap(s.lp())
		next := ts[4]
		for i := 0; i < 50 && tt.gaps[0] > 0; i++ {
			if s.RemoveRangeByScore(ScoreRange{Min: math.Inf(-1), Max: float64(ts[i%5]) + tt.off}) != 1 {
				t.Fatalf("%s: window broken", tt.name)
			}
			next += tt.gaps[i%4]
			ts[i%5] = next
			s.Add(tt.member(next, i%5), float64(next)+tt.off, DefaultLimits())
			if cap(s.lp()) != c {
				t.Fatalf("%s: step %d: cap %d, was %d", tt.name, i, cap(s.lp()), c)
			}
			if err := checkCanonical(s); err != nil {
				t.Fatalf("%s: step %d: %v", tt.name, i, err)
			}
		}
	}
}

func TestScoreEncodings(t *testing.T) {
	scores := []float64{0, 1, -1, 63, 64, -64, -65, 1 << 53, -(1 << 53), 1<<53 + 2, 0.5, -0.5,
		math.Inf(1), math.Inf(-1), math.MaxFloat64, 5e-324, 1e300, 1700000000000.5}
	s := New()
	for i, sc := range scores {
		s.Add("m"+strconv.Itoa(i), sc, DefaultLimits())
	}
	for i, sc := range scores {
		if got, ok := s.Score("m" + strconv.Itoa(i)); !ok || got != sc {
			t.Errorf("score %v came back %v %v", sc, got, ok)
		}
	}
}

func TestUvarintAt(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 100000; i++ {
		v := r.Uint64() >> uint(r.Intn(64))
		buf := make([]byte, r.Intn(4))
		buf = binary.AppendUvarint(buf, v)
		buf = append(buf, make([]byte, r.Intn(10))...)
		for start := 0; start < len(buf); start++ {
			want, wn := binary.Uvarint(buf[start:])
			if wn <= 0 {
				continue
			}
			if got, n := uvarintAt(buf, start); got != want || n != wn {
				t.Fatalf("uvarintAt(%x, %d) = %d, %d; want %d, %d", buf, start, got, n, want, wn)
			}
		}
	}
}

func TestLimitOffsets(t *testing.T) {
	// ZADD k 1 a 2 b 3 c; ZRANGEBYSCORE k -inf +inf LIMIT -1 2 -> (empty);
	// ... LIMIT 1 -5 -> b c; ZRANGEBYLEX k - + LIMIT -1 1 -> (empty)
	for _, large := range []bool{false, true} {
		s := New()
		if large {
			s.toLarge(0)
		}
		s.Add("a", 1, DefaultLimits())
		s.Add("b", 2, DefaultLimits())
		s.Add("c", 3, DefaultLimits())
		got := func(f func(Visitor)) string { return itemsString(collect(f)) }
		if g := got(func(v Visitor) { s.RangeByScore(AllScores, false, -1, 2, v) }); g != "" {
			t.Errorf("LIMIT -1 2 = %q", g)
		}
		if g := got(func(v Visitor) { s.RangeByScore(AllScores, false, 1, -5, v) }); g != "b c" {
			t.Errorf("LIMIT 1 -5 = %q", g)
		}
		if g := got(func(v Visitor) { s.RangeByLex(AllLex, false, -1, 1, v) }); g != "" {
			t.Errorf("BYLEX LIMIT -1 1 = %q", g)
		}
	}
}

func itemsString(items []item) string {
	var parts []string
	for _, it := range items {
		parts = append(parts, it.member)
	}
	return strings.Join(parts, " ")
}

func TestLargeUpdateKeepsOneString(t *testing.T) {
	s := New()
	s.toLarge(0)
	s.Add(strings.Clone("member"), 1, DefaultLimits())
	s.Add(strings.Clone("member"), 2, DefaultLimits()) // a new copy from the network
	var key string
	for k := range s.lg().dict {
		key = k
	}
	it, _ := s.lg().tree.Min()
	if unsafe.StringData(key) != unsafe.StringData(it.member) || it.score != 2 {
		t.Errorf("tree and map hold different strings after an update")
	}
}

func TestMemoryUsageGrows(t *testing.T) {
	s := New()
	prev := s.MemoryUsage()
	for i := 0; i < 300; i++ {
		s.Add(strconv.Itoa(i), float64(i), DefaultLimits())
	}
	if s.MemoryUsage() <= prev || s.Encoding() != "skiplist" {
		t.Errorf("MemoryUsage %d -> %d (%s)", prev, s.MemoryUsage(), s.Encoding())
	}
}

// One Set is allocated per key: it must stay one pointer.
func TestSetSize(t *testing.T) {
	if n := unsafe.Sizeof(Set{}); n != 8 {
		t.Fatalf("Set is %d bytes, want 8", n)
	}
}

// A small buffer never grows past maxSmallBytes, whatever the thresholds:
// the set converts instead (Redis's listpack safety limit), and a stored
// result that would not fit stays large.
func TestMaxSmallBytes(t *testing.T) {
	defer func(old int) { maxSmallBytes = old }(maxSmallBytes)
	maxSmallBytes = 200
	lim := Limits{Entries: 1 << 20, Value: 1 << 20}
	for _, add := range []struct {
		name string
		fn   func(s *Set, m string, sc float64)
	}{
		{"Add", func(s *Set, m string, sc float64) { s.Add(m, sc, lim) }},
		{"AddBytes", func(s *Set, m string, sc float64) { s.AddBytes([]byte(m), sc, lim) }},
	} {
		s := New()
		for i := 0; i < 20; i++ {
			add.fn(s, "member-"+strconv.Itoa(i)+"-xxxxxxxxxx", float64(i)+0.5)
			if len(s.lp()) > maxSmallBytes {
				t.Fatalf("%s: small buffer of %d bytes", add.name, len(s.lp()))
			}
		}
		if s.Encoding() != "skiplist" || s.Len() != 20 {
			t.Fatalf("%s: %s with %d members, want skiplist with 20", add.name, s.Encoding(), s.Len())
		}
		s.ConvertToListpackIfNeeded(lim)
		if s.Encoding() != "skiplist" {
			t.Fatalf("%s: converted back to a small buffer over the limit", add.name)
		}
	}
}

// The small buffer's header (buf.go) round-trips its length through both
// forms and across the boundary between them, and a set that grows from
// short to long keeps its content.
func TestBufHeader(t *testing.T) {
	for _, n := range []int{0, 1, 6, 46, 200, 252, 253, 254, 255, 256, 300, 5000, 70000} {
		var s Set
		b := newBuf(n)
		if cap(b) < n {
			t.Fatalf("newBuf(%d): cap %d", n, cap(b))
		}
		for _, l := range []int{n, n / 2, 1} {
			if l > cap(b) || l == 0 {
				continue
			}
			s.setLP(b[:l])
			if got := s.lp(); len(got) != l || cap(got) != cap(b) || unsafe.SliceData(got) != unsafe.SliceData(b) {
				t.Fatalf("newBuf(%d)[:%d]: lp has len %d cap %d", n, l, len(got), cap(got))
			}
			if s.lg() != nil {
				t.Fatalf("newBuf(%d): taken for a large set", n)
			}
		}
		if want := cap(b) + shortHdr; cap(b) > maxShort-shortHdr {
			if s.bufSize() != cap(b)+longHdr && n > 0 {
				t.Errorf("newBuf(%d): bufSize %d, cap %d", n, s.bufSize(), cap(b))
			}
		} else if s.bufSize() != want && n > 0 {
			t.Errorf("newBuf(%d): bufSize %d, want %d", n, s.bufSize(), want)
		}
	}
	s := New()
	lim := Limits{Entries: 1000, Value: 64}
	for i := 0; i < 400; i++ {
		s.Add("member:"+strconv.Itoa(i), float64(i), lim)
		if s.Len() != i+1 || s.Encoding() != "listpack" {
			t.Fatalf("after %d adds: len %d, %s", i+1, s.Len(), s.Encoding())
		}
	}
	if s.bufSize() <= maxShort {
		t.Fatalf("400 members in %d bytes", s.bufSize())
	}
	for i := 0; i < 400; i++ {
		if sc, ok := s.Score("member:" + strconv.Itoa(i)); !ok || sc != float64(i) {
			t.Fatalf("Score(member:%d) = %v %v", i, sc, ok)
		}
	}
	for i := 0; i < 395; i++ {
		s.Remove("member:" + strconv.Itoa(i))
	}
	if s.Len() != 5 || s.bufSize() > maxShort {
		t.Fatalf("after removals: %d members in %d bytes", s.Len(), s.bufSize())
	}
}
