package zset

import (
	"bufio"
	"fmt"
	"math"
	"net"
	"os"
	"strconv"
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
		s.Add(string(rune('a'+i)), sc)
	}
	return s
}()

var fuzzLexSet = func() *Set {
	s := New()
	for _, m := range []string{"", "a", "b", "b\x00", "ba", "c", "\xff"} {
		s.Add(m, 0)
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
