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
		size, dd, packed := layout(m, &p, sc)
		if size2, dd2, packed2 := layout(m, &p, sc); size2 != size || dd2 != dd || packed2 != packed {
			t.Fatalf("layout(%q, %v) not deterministic", m, sc)
		}
		if packed && p.kind == kindRaw {
			t.Fatalf("%q packed without a packed form", m)
		}
		lp := make([]byte, size+1)
		putEntry(lp[1:], m, &p, sc, dd, packed)
		var e entry
		e.read(lp, 1)
		s2, next := entryScore(lp, 1)
		if e.next != len(lp) || next != len(lp) || entryNext(lp, 1) != len(lp) ||
			math.Float64bits(e.score) != math.Float64bits(sc) || s2 != e.score || (e.kind != kindRaw) != packed {
			t.Fatalf("(%q, %v): entry %x read as %+v, entryScore %v %d", m, sc, lp, e, s2, next)
		}
		if got := string(e.appendMember(nil, lp)); got != m {
			t.Fatalf("(%q, %v): decoded %q", m, sc, got)
		}
		var buf [maxPacked]byte
		if got := string(e.memberIn(lp, &buf)); got != m {
			t.Fatalf("(%q, %v): memberIn %q", m, sc, got)
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
