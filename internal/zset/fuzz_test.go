package zset

import (
	"bufio"
	"fmt"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/limitkv/limitkv/internal/num"
)

// With LIMITKV_REDIS_SOCK=/path/to/redis.sock (a scratch Redis 7.0; it
// writes keys zsfuzz:*:<pid>), the fuzz targets also compare with real
// Redis.

type redisConn struct {
	mu sync.Mutex
	c  net.Conn
	r  *bufio.Reader
}

var (
	redisOnce sync.Once
	redis     *redisConn
	// Each fuzz worker process has its own keys.
	scoreKey = fmt.Sprintf("zsfuzz:score:%d", os.Getpid())
	lexKey   = fmt.Sprintf("zsfuzz:lex:%d", os.Getpid())
)

func getRedis() *redisConn {
	redisOnce.Do(func() {
		path := os.Getenv("LIMITKV_REDIS_SOCK")
		if path == "" {
			return
		}
		c, err := net.Dial("unix", path)
		if err != nil {
			return
		}
		redis = &redisConn{c: c, r: bufio.NewReader(c)}
		redis.do("DEL", scoreKey, lexKey)
		redis.do("ZADD", scoreKey, "-inf", "a", "-1", "b", "0", "c", "0.5", "d", "1", "e", "2", "f",
			"16", "g", "1e300", "h", "inf", "i")
		redis.do("ZADD", lexKey, "0", "", "0", "a", "0", "b", "0", "b\x00", "0", "ba", "0", "c", "0", "\xff")
	})
	return redis
}

// do sends a command and returns an integer reply, or the error text.
func (rc *redisConn) do(args ...string) (int64, string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var b []byte
	b = fmt.Appendf(b, "*%d\r\n", len(args))
	for _, a := range args {
		b = fmt.Appendf(b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := rc.c.Write(b); err != nil {
		panic(err)
	}
	line, err := rc.r.ReadString('\n')
	if err != nil {
		panic(err)
	}
	line = line[:len(line)-2]
	switch line[0] {
	case ':':
		n, _ := strconv.ParseInt(line[1:], 10, 64)
		return n, ""
	case '-':
		return 0, line[1:]
	}
	panic("unexpected reply " + line)
}

var fuzzScoreSet = func() *Set {
	s := New()
	for i, sc := range []float64{math.Inf(-1), -1, 0, 0.5, 1, 2, 16, 1e300, math.Inf(1)} {
		s.Add(string(rune('a'+i)), sc, DefaultLimits())
	}
	return s
}()

var fuzzLexSet = func() *Set {
	s := New()
	for _, m := range []string{"", "a", "b", "b\x00", "ba", "c", "\xff"} {
		s.Add(m, 0, DefaultLimits())
	}
	return s
}()

func FuzzParseScoreRange(f *testing.F) {
	for _, p := range [][2]string{
		{"-inf", "+inf"}, {"(1", "2"}, {"", ""}, {"(", "("}, {"(((1", "2"}, {"(inf", "+inf"},
		{" 1", "\t2"}, {"1 ", "2"}, {"1e400", "(1e-400"}, {"0x10", "0X1P4"}, {"1_0", "2"},
		{"nan", "1"}, {"(nan", "1"}, {"1\x00x", "(\x00"}, {"(-0", "0"}, {"+.5e1", "-.5E-1"},
	} {
		f.Add([]byte(p[0]), []byte(p[1]))
	}
	f.Fuzz(func(t *testing.T, min, max []byte) {
		r, err := ParseScoreRange(min, max)
		if err == nil {
			if math.IsNaN(r.Min) || math.IsNaN(r.Max) {
				t.Fatalf("NaN bound: %+v", r)
			}
			if r.Empty() && fuzzScoreSet.CountByScore(r) != 0 {
				t.Fatalf("empty range %+v counts members", r)
			}
		} else if err != ErrNotFloat {
			t.Fatalf("error %v", err)
		}
		// A bound strict string2d accepts means the same in a range.
		if v, ok := num.ParseFloat(min); ok && (len(min) == 0 || min[0] != '(') {
			if err == nil && (r.Min != v || r.MinEx) {
				t.Fatalf("min %q: %v vs ParseFloat %v", min, r.Min, v)
			}
		}
		if rc := getRedis(); rc != nil {
			n, e := rc.do("ZCOUNT", scoreKey, string(min), string(max))
			got := 0
			if err == nil {
				got = fuzzScoreSet.CountByScore(r)
			}
			if (e != "") != (err != nil) || (err == nil && int64(got) != n) {
				t.Fatalf("ZCOUNT %q %q: redis %d %q; we %d %v", min, max, n, e, got, err)
			}
		}
	})
}

func FuzzParseLexRange(f *testing.F) {
	for _, p := range [][2]string{
		{"-", "+"}, {"[a", "(b"}, {"", "+"}, {"[", "+"}, {"(", "+"}, {"-", "("}, {"+\x00x", "+"},
		{"-\x00", "+"}, {"+a", "+"}, {"a", "b"}, {"[b\x00", "[ba"}, {"(\xff", "+"}, {"+", "-"},
	} {
		f.Add([]byte(p[0]), []byte(p[1]))
	}
	f.Fuzz(func(t *testing.T, min, max []byte) {
		r, err := ParseLexRange(min, max)
		if err != nil && err != ErrNotLexItem {
			t.Fatalf("error %v", err)
		}
		got := 0
		if err == nil {
			got = fuzzLexSet.CountByLex(r)
			if r.Empty() && got != 0 {
				t.Fatalf("empty range %+v counts members", r)
			}
			// The count is the number of members in the range.
			want := 0
			fuzzLexSet.RangeByRank(0, fuzzLexSet.Len()-1, false, func(m []byte, _ float64) bool {
				if !r.Empty() && r.Contains(string(m)) {
					want++
				}
				return true
			})
			if got != want {
				t.Fatalf("CountByLex(%+v) = %d; want %d", r, got, want)
			}
		}
		if rc := getRedis(); rc != nil {
			n, e := rc.do("ZLEXCOUNT", lexKey, string(min), string(max))
			if (e != "") != (err != nil) || (err == nil && int64(got) != n) {
				t.Fatalf("ZLEXCOUNT %q %q: redis %d %q; we %d %v", min, max, n, e, got, err)
			}
		}
	})
}

// refParse is parseMember by way of strconv: the packed form's kind and
// fields, or kindRaw.
func refParse(m string) parsed {
	raw := parsed{kind: kindRaw}
	if len(m) > maxPacked {
		return raw
	}
	j := 0
	if strings.HasPrefix(m, "-") {
		j = 1
	}
	for j < len(m) && m[j] >= '0' && m[j] <= '9' {
		j++
	}
	d, err := strconv.ParseInt(m[:j], 10, 64)
	if err != nil || strconv.FormatInt(d, 10) != m[:j] {
		return raw // no digits, leading zeros, "-0", overflow
	}
	tail := m[j:]
	if len(tail) == 9 && tail[0] == ':' && strings.Trim(tail[1:], "0123456789abcdef") == "" {
		v, _ := strconv.ParseUint(tail[1:], 16, 64)
		return parsed{kind: kindHex, d: d, t: v}
	}
	if strings.HasPrefix(tail, "-") {
		if v, err := strconv.ParseUint(tail[1:], 10, 64); err == nil && strconv.FormatUint(v, 10) == tail[1:] {
			return parsed{kind: kindSeq, d: d, t: v}
		}
	}
	return parsed{kind: kindTail, d: d, rest: tail}
}

// FuzzMemberEncoding checks the small encoding of arbitrary (member,
// score) pairs: parsing against strconv, the entry's round trip, one
// representation per pair, and a two-member set against the large
// encoding (ties on the score compare packed and raw members by bytes).
func FuzzMemberEncoding(f *testing.F) {
	ts := float64(1764470000123)
	for _, c := range []struct {
		m, o   string
		sc, os float64
	}{
		{"1764470000123:0a1b2c3d", "1764470000123:0a1b2c3e", ts, ts},
		{"1764470000123:0a1b2c3d", "1764470000124:00000000", ts + 3, ts - 1},
		{"1764470000123-42", "1764470000123-5", ts, ts},
		{"1764470000123-42", "1764470000123:0a1b2c3d", ts, ts},
		{"0123:0a1b2c3d", "123:0a1b2c3d", 123, 123},
		{"-0:0a1b2c3d", "0:0a1b2c3d", 0, math.Copysign(0, -1)},
		{"+5:0a1b2c3d", "5:0a1b2c3d", 5, 5},
		{"1764470000123:0A1B2C3D", "1764470000123:0a1b2c3d", ts, ts},
		{"1764470000123:0a1b2c3", "1764470000123:0a1b2c3d4", ts, ts},
		{":", "", 0, 0},
		{"1764470000123:", "1764470000123", ts, ts},
		{"99999999999999999999:0a1b2c3d", "9223372036854775807:ffffffff", 1e300, -1},
		{"-9223372036854775808:00000000", "-9223372036854775808", 1 << 53, -(1 << 53)},
		{"9223372036854775807-18446744073709551615", "1-18446744073709551616", math.Inf(1), math.Inf(-1)},
		{"123", "1234", 123, 1e300},
		{"7abc", "7\x00\xff", 7, 7},
		{"1764470000123:0a1b2c3d#2", "1764470000123:0a1b2c3d", ts, ts},
		{"1-01", "1-1", 0.5, 0.5},
		{"5--3", "5-", -1e300, 5},
		{"\x00\xff\x80", "9007199254740993:00000000", 9007199254740992, 9007199254740992},
		{"1:" + strings.Repeat("x", 62), "1:" + strings.Repeat("x", 63), 1, 1},
	} {
		f.Add([]byte(c.m), []byte(c.o), c.sc, c.os)
	}
	f.Fuzz(func(t *testing.T, mb, ob []byte, score, oscore float64) {
		if math.IsNaN(score) || math.IsNaN(oscore) {
			return
		}
		m, o := string(mb), string(ob)
		p := parseMember(m)
		if want := refParse(m); p != want {
			t.Fatalf("parseMember(%q) = %+v; strconv says %+v", m, p, want)
		}
		sc := score
		if sc == 0 {
			sc = 0
		}
		// The entry alone, and after the bases the other score may give
		// it: an integer at or below score (a delta), or none.
		bases := []int64{noBase}
		if v, ok := intScore(sc); ok {
			if ob, ok := intScore(oscore); ok && ob <= v {
				bases = append(bases, ob)
			}
			bases = append(bases, v, -(1 << 53))
		}
		var packed0 bool
		for i, base := range bases {
			size, dd, packed := layout(m, &p, sc, base)
			if size2, dd2, packed2 := layout(m, &p, sc, base); size2 != size || dd2 != dd || packed2 != packed {
				t.Fatalf("layout(%q, %v) not deterministic", m, sc)
			}
			if packed && p.kind == kindRaw {
				t.Fatalf("%q packed without a packed form", m)
			}
			if i == 0 {
				packed0 = packed
			} else if packed != packed0 {
				t.Fatalf("(%q, %v): packed %v after base %d, %v alone", m, sc, packed, base, packed0)
			}
			lp := make([]byte, size+1)
			putEntry(lp[1:], m, &p, sc, dd, packed, base)
			var e entry
			e.read(lp, 1, base)
			s2, next, nb := entryScore(lp, 1, base)
			if e.next != len(lp) || next != len(lp) || nb != e.nb || nb != baseOf(sc) ||
				math.Float64bits(e.score) != math.Float64bits(sc) || s2 != e.score || (e.kind != kindRaw) != packed {
				t.Fatalf("(%q, %v, base %d): entry %x read as %+v, entryScore %v %d %d", m, sc, base, lp, e, s2, next, nb)
			}
			if got := string(e.appendMember(nil, lp)); got != m {
				t.Fatalf("(%q, %v): decoded %q", m, sc, got)
			}
			var buf [maxPacked]byte
			if got := string(e.memberIn(lp, &buf)); got != m {
				t.Fatalf("(%q, %v): memberIn %q", m, sc, got)
			}
		}

		// Both members in a small and a large set.
		small, lg := New(), New()
		lg.toLarge(0)
		var mod model
		lim := Limits{Entries: 128, Value: 1 << 20}
		for _, it := range []item{{o, oscore}, {m, score}, {o, oscore}} {
			a, b, w := small.Add(it.member, it.score, lim), lg.Add(it.member, it.score, lim), mod.add(it.member, it.score)
			if a != w || b != w {
				t.Fatalf("Add(%q, %v) = %v, %v (large); want %v", it.member, it.score, a, b, w)
			}
		}
		if small.Encoding() != "listpack" {
			t.Fatalf("encoding %s", small.Encoding())
		}
		if err := checkCanonical(small); err != nil {
			t.Fatal(err)
		}
		all := func(s *Set) []item { return collect(func(v Visitor) { s.RangeByRank(0, s.Len()-1, false, v) }) }
		if got, want := all(small), mod.items; !sameItems(got, want) || !sameItems(all(lg), want) {
			t.Fatalf("small %v, large %v; want %v", got, all(lg), want)
		}
		for i, it := range mod.items {
			if sc, ok := small.Score(it.member); !ok || sc != it.score {
				t.Fatalf("Score(%q) = %v %v", it.member, sc, ok)
			}
			if r, ok := small.Rank(it.member, false); !ok || r != i {
				t.Fatalf("Rank(%q) = %d %v; want %d", it.member, r, ok, i)
			}
			got := collect(func(v Visitor) { small.RangeAfter(it.score, it.member, v) })
			if !sameItems(got, mod.items[i+1:]) {
				t.Fatalf("RangeAfter(%v, %q) = %v", it.score, it.member, got)
			}
		}
		lg.ConvertToListpackIfNeeded(lim)
		if lg.Encoding() != "listpack" || string(lg.lp()) != string(small.lp()) {
			t.Fatalf("converted %x; built %x", lg.lp(), small.lp())
		}
		small.toLarge(0)
		if got := all(small); !sameItems(got, mod.items) {
			t.Fatalf("toLarge: %v", got)
		}
		if !lg.Remove(m) || lg.Remove(m) || lg.Len() != len(mod.items)-1 {
			t.Fatalf("Remove(%q)", m)
		}
	})
}

// Scores for FuzzSmallOps: runs of integers close together, far apart
// (deltas of 1 to 8 bytes), negative, at the 2^53 bounds of the integer
// form, and floats and infinities between and around them, which store
// the next integer score absolute.
var opScores = []float64{
	0, math.Copysign(0, -1), 1, -1, 2, 3, 0.5, -0.5,
	limiterBase, limiterBase + 1, limiterBase + 2, limiterBase + 127, limiterBase + 128,
	limiterBase + 16383, limiterBase + 16384, limiterBase + 60000, limiterBase + 0.5, limiterBase - 3,
	1 << 53, 1<<53 - 1, 1<<53 + 2, -(1 << 53), -(1 << 53) + 1, -(1<<53 + 2),
	1 << 40, -(1 << 40), 1<<53 - 1<<20, -1000, -127, -128,
	math.Inf(1), math.Inf(-1), 1e300, -1e300, 5e-324, -5e-324, math.MaxFloat64, 1e15 + 0.5,
}

// opMember is member i of FuzzSmallOps' pool: packed forms whose D is
// one of the integer scores (so dd is often 0), near misses, raw ones.
func opMember(i int) string {
	sc := opScores[i%len(opScores)]
	d := int64(sc)
	if math.IsInf(sc, 0) || math.Abs(sc) > 1<<62 {
		d = int64(i) - 20
	}
	ds := strconv.FormatInt(d, 10)
	switch i / len(opScores) % 6 {
	case 0:
		return ds + ":" + fmt.Sprintf("%08x", uint32(i)*0x9e3779b1)
	case 1:
		return ds + "-" + strconv.Itoa(i)
	case 2:
		return ds + ":" + fmt.Sprintf("%08x", i) + "#2"
	case 3:
		return ds
	case 4:
		return string(rune('a'+i%26)) + strconv.Itoa(i)
	}
	return strings.Repeat(string(rune('A'+i%26)), 50+i%15) // around the one-byte raw header limit
}

// FuzzSmallOps runs a program of set operations on a small set and a
// model, checking after each the content by every read path and that the
// bytes are the canonical encoding: deltas re-encoded as entries come and
// go at the front, middle and end.
func FuzzSmallOps(f *testing.F) {
	f.Add([]byte{0, 8, 8, 0, 9, 9, 0, 10, 10, 0, 11, 11, 5, 0, 8, 0, 12, 12, 5, 0, 9})         // a window
	f.Add([]byte{0, 8, 8, 0, 16, 16, 0, 9, 9, 4, 16, 0, 0, 0, 4, 0, 6, 1, 0, 7, 2})            // float between ints
	f.Add([]byte{0, 1, 30, 0, 2, 18, 0, 3, 19, 0, 4, 20, 0, 5, 21, 6, 1, 0, 7, 1, 0, 8, 1, 2}) // 2^53 bounds
	f.Add([]byte{0, 1, 24, 0, 2, 25, 0, 3, 26, 4, 1, 0, 4, 3, 0, 0, 4, 31, 5, 31, 24})         // huge gaps, -inf
	f.Add([]byte{0, 0, 1, 0, 40, 0, 0, 80, 2, 0, 120, 3, 4, 40, 0, 4, 0, 0, 10, 0, 0, 11, 0, 0})
	f.Add([]byte{0, 7, 16, 0, 8, 8, 0, 9, 9, 5, 16, 16, 9, 0, 0, 8, 1, 1, 0, 200, 33})
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 300 {
			return
		}
		s := New()
		var m model
		lim := Limits{Entries: 1 << 20, Value: 1 << 20}
		arg := func(i int) int {
			if i < len(prog) {
				return int(prog[i])
			}
			return 0
		}
		for pc := 0; pc < len(prog); pc += 3 {
			op, a, b := prog[pc]%12, arg(pc+1), arg(pc+2)
			sa, sb := opScores[a%len(opScores)], opScores[b%len(opScores)]
			switch op {
			case 0, 1, 2, 3:
				member, score := opMember(a), sb
				if op == 3 {
					// The member's own integer, so dd is 0, or one off.
					if p := parseMember(member); p.kind != kindRaw && p.d >= -(1<<53) && p.d <= 1<<53 {
						score = float64(p.d) + float64(b%3) - 1
					}
				}
				if got, want := s.Add(member, score, lim), m.add(member, score); got != want {
					t.Fatalf("Add(%q, %v) = %v; want %v", member, score, got, want)
				}
			case 4:
				if got, want := s.Remove(opMember(a)), m.remove(opMember(a)); got != want {
					t.Fatalf("Remove(%q) = %v; want %v", opMember(a), got, want)
				}
			case 5:
				r := ScoreRange{Min: sa, Max: sb, MinEx: b&64 != 0, MaxEx: b&128 != 0}
				if a&128 != 0 {
					r.Min = math.Inf(-1) // from the low end, as limiters do
				}
				if got, want := s.RemoveRangeByScore(r), m.removeWhere(func(_ int, it item) bool { return !r.Empty() && r.Contains(it.score) }); got != want {
					t.Fatalf("RemoveRangeByScore(%+v) = %d; want %d", r, got, want)
				}
			case 6, 7:
				n, max := len(m.items), op == 7
				count := a % 4
				var got []item
				k := s.pop(count, max, func(mb []byte, sc float64) { got = append(got, item{string(mb), sc}) })
				want := limit(m.filter(max, func(int, item) bool { return true }), 0, count)
				m.removeWhere(func(i int, _ item) bool {
					if max {
						return i >= n-len(want)
					}
					return i < len(want)
				})
				if k != len(want) || !sameItems(got, want) {
					t.Fatalf("pop(%d, max %v) = %d %v; want %v", count, max, k, got, want)
				}
			case 8:
				n := len(m.items)
				start, stop := a%(n+2)-1, b%(n+2)-1
				if got, want := s.RemoveRangeByRank(start, stop), m.removeWhere(func(i int, _ item) bool { return i >= start && i <= stop }); got != want {
					t.Fatalf("RemoveRangeByRank(%d, %d) = %d; want %d", start, stop, got, want)
				}
			case 9:
				// An update moves the member: removal and insertion.
				if len(m.items) > 0 {
					member := m.items[a%len(m.items)].member
					if got := s.Add(member, sb, lim); got != m.add(member, sb) {
						t.Fatalf("update Add(%q, %v) = %v", member, sb, got)
					}
				}
			case 10:
				lr := LexRange{Min: LexBound{Kind: LexMinusInf, Ex: true}, Max: LexBound{Value: opMember(b), Ex: a&1 != 0}}
				// The small encoding's answer for unequal scores: the
				// first run of members up to the bound, in set order.
				want := 0
				if s.lexInRange(lr) {
					for _, it := range m.items {
						if !lr.lteMax(it.member) {
							break
						}
						want++
					}
				}
				if got := s.RemoveRangeByLex(lr); got != want {
					t.Fatalf("RemoveRangeByLex(%+v) = %d; want %d", lr, got, want)
				}
				m.items = m.items[want:]
			case 11:
				if s.Len() > 0 && s.Len() < 1000 {
					// Round trip through the large encoding.
					c := s.Clone()
					c.toLarge(0)
					c.ConvertToListpackIfNeeded(lim)
					if string(c.lp()) != string(s.lp()) {
						t.Fatalf("converted back %x; was %x", c.lp(), s.lp())
					}
				}
			}
			if s.Encoding() != "listpack" {
				t.Fatalf("encoding %s", s.Encoding())
			}
			if err := checkCanonical(s); err != nil {
				t.Fatalf("after op %d (%d %d %d): %v", pc/3, op, a, b, err)
			}
			checkReads(t, s, &m)
		}
	})
}

// checkReads compares every read path of s with the model.
func checkReads(t *testing.T, s *Set, m *model) {
	t.Helper()
	n := len(m.items)
	all := func(rev bool) []item { return m.filter(rev, func(int, item) bool { return true }) }
	if s.Len() != n {
		t.Fatalf("Len %d; want %d", s.Len(), n)
	}
	for _, rev := range []bool{false, true} {
		if got := collect(func(v Visitor) { s.RangeByRank(0, n-1, rev, v) }); !sameItems(got, all(rev)) {
			t.Fatalf("RangeByRank(rev %v) = %v; want %v", rev, got, all(rev))
		}
		if got := collect(func(v Visitor) { s.RangeByScore(AllScores, rev, 0, -1, v) }); !sameItems(got, all(rev)) {
			t.Fatalf("RangeByScore(rev %v) = %v; want %v", rev, got, all(rev))
		}
		if got := collect(func(v Visitor) { s.RangeByLex(AllLex, rev, 0, -1, v) }); !sameItems(got, all(rev)) {
			t.Fatalf("RangeByLex(rev %v) = %v; want %v", rev, got, all(rev))
		}
	}
	for i, it := range m.items {
		if sc, ok := s.Score(it.member); !ok || sc != it.score {
			t.Fatalf("Score(%q) = %v %v; want %v", it.member, sc, ok, it.score)
		}
		if r, ok := s.Rank(it.member, false); !ok || r != i {
			t.Fatalf("Rank(%q) = %d %v; want %d", it.member, r, ok, i)
		}
		if r, ok := s.Rank(it.member, true); !ok || r != n-1-i {
			t.Fatalf("Rank(%q, rev) = %d %v; want %d", it.member, r, ok, n-1-i)
		}
		if mb, sc := s.At(i); mb != it.member || sc != it.score {
			t.Fatalf("At(%d) = %q %v; want %v", i, mb, sc, it)
		}
		if got := collect(func(v Visitor) { s.RangeByRank(i, n-1, true, v) }); !sameItems(got, all(true)[i:]) {
			t.Fatalf("RangeByRank(%d, %d, rev) = %v", i, n-1, got)
		}
		if got := collect(func(v Visitor) { s.RangeAfter(it.score, it.member, v) }); !sameItems(got, m.items[i+1:]) {
			t.Fatalf("RangeAfter(%v, %q) = %v", it.score, it.member, got)
		}
		// Windows starting and ending at each score, both directions.
		r := ScoreRange{Min: it.score, Max: math.Inf(1)}
		in := func(_ int, x item) bool { return r.Contains(x.score) }
		if got := collect(func(v Visitor) { s.RangeByScore(r, true, 0, -1, v) }); !sameItems(got, m.filter(true, in)) {
			t.Fatalf("RangeByScore(%+v, rev) = %v", r, got)
		}
		r = ScoreRange{Min: math.Inf(-1), Max: it.score, MaxEx: true}
		if got := collect(func(v Visitor) { s.RangeByScore(r, false, 0, -1, v) }); !sameItems(got, m.filter(false, in)) {
			t.Fatalf("RangeByScore(%+v) = %v", r, got)
		}
	}
	if n > 0 {
		ranks := []int{0, n / 2, n / 2, n - 1}
		var got []item
		s.Select(ranks, func(mb []byte, sc float64) { got = append(got, item{string(mb), sc}) })
		want := []item{m.items[0], m.items[n/2], m.items[n/2], m.items[n-1]}
		if !sameItems(got, want) {
			t.Fatalf("Select(%v) = %v; want %v", ranks, got, want)
		}
	}
}
