package zset

import (
	"fmt"
	"io"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/limitkv/limitkv/internal/num"
)

// TestAgainstRedis runs random sorted-set commands on a scratch Redis 7.0
// (LIMITKV_REDIS_SOCK, see fuzz_test.go) and on a Set, comparing every
// reply, including OBJECT ENCODING and the printed scores.

// reply reads one RESP2 reply, flattened to text: integers as "12", bulk
// strings as is, arrays joined by "|", nil as "(nil)", errors "ERR ...".
func (rc *redisConn) reply() string {
	line, err := rc.r.ReadString('\n')
	if err != nil {
		panic(err)
	}
	line = line[:len(line)-2]
	switch line[0] {
	case ':', '+':
		return line[1:]
	case '-':
		return line[1:]
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return "(nil)"
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(rc.r, b); err != nil {
			panic(err)
		}
		return string(b[:n])
	case '*':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return "(nil)"
		}
		parts := make([]string, n)
		for i := range parts {
			parts[i] = rc.reply()
		}
		return strings.Join(parts, "|")
	}
	panic("bad reply " + line)
}

func (rc *redisConn) cmd(args ...string) string {
	rc.mu.Lock()
	var b []byte
	b = fmt.Appendf(b, "*%d\r\n", len(args))
	for _, a := range args {
		b = fmt.Appendf(b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := rc.c.Write(b); err != nil {
		panic(err)
	}
	rc.mu.Unlock()
	return rc.reply()
}

// ours answers the same commands from a Set.
type ours struct{ s *Set }

func fmtScore(f float64) string { return string(num.AppendFloat(nil, f)) }

func (o *ours) items(f func(Visitor), withScores bool) string {
	var parts []string
	f(func(m []byte, sc float64) bool {
		parts = append(parts, string(m))
		if withScores {
			parts = append(parts, fmtScore(sc))
		}
		return true
	})
	return strings.Join(parts, "|")
}

// norm is Redis's index normalisation for ZRANGE/ZREMRANGEBYRANK.
func norm(start, stop, n int) (int, int, bool) {
	if start < 0 {
		start += n
	}
	if stop < 0 {
		stop += n
	}
	if start < 0 {
		start = 0
	}
	if start > stop || start >= n {
		return 0, 0, false
	}
	if stop >= n {
		stop = n - 1
	}
	return start, stop, true
}

func TestAgainstRedis(t *testing.T) {
	rc := getRedis()
	if rc == nil {
		t.Skip("set LIMITKV_REDIS_SOCK to compare with a real Redis")
	}
	for seed := int64(1); seed <= 8; seed++ {
		for _, lex := range []bool{false, true} {
			againstRedis(t, rc, seed, lex)
		}
	}
}

func againstRedis(t *testing.T, rc *redisConn, seed int64, lex bool) {
	r := rand.New(rand.NewSource(seed))
	key := scoreKey + ":diff"
	rc.cmd("DEL", key)
	o := &ours{New()}
	mr := newModelRun(t, seed, lex)
	scoreText := func() string {
		if lex {
			return "7"
		}
		texts := []string{"-inf", "+inf", "0", "-0", "1", "-1", "1.5", "2", "0.1", "1e300", "1700000000000",
			"9007199254740993", "5e-324", "-2.5", "3", "0x10", "(2", "(0",
			// Around the packed members' timestamps (see packMembers).
			"1764470000123", "1764470000124", "1764470000126", "(1764470000125", "1764469999123", "5", "7"}
		return texts[r.Intn(len(texts))]
	}
	scoreBound := func() string { return scoreText() }
	lexBound := func() string {
		switch r.Intn(6) {
		case 0:
			return "-"
		case 1:
			return "+"
		}
		p := "["
		if r.Intn(2) == 0 {
			p = "("
		}
		return p + mr.member()
	}
	n := func() int { return o.s.Len() }
	encodings := map[string]bool{}
	for step := 0; step < 1500; step++ {
		var args []string
		var want string
		op := r.Intn(20)
		if seed%2 == 0 && step < 250 {
			op = 0 // grow past the listpack limit first
		}
		switch {
		case op < 7:
			m, sc := mr.member(), scoreText()
			if sc[0] == '(' {
				sc = sc[1:]
			}
			args = []string{"ZADD", key, sc, m}
			f, _ := num.ParseFloat([]byte(sc))
			want = "0"
			if o.s.Add(m, f, DefaultLimits()) {
				want = "1"
			}
		case op < 9:
			m := mr.member()
			args = []string{"ZREM", key, m}
			want = "0"
			if o.s.Remove(m) {
				want = "1"
			}
		case op < 10:
			m := mr.member()
			args = []string{"ZSCORE", key, m}
			want = "(nil)"
			if sc, ok := o.s.Score(m); ok {
				want = fmtScore(sc)
			}
		case op < 11:
			m := mr.member()
			rev := r.Intn(2) == 0
			args = []string{"ZRANK", key, m}
			if rev {
				args[0] = "ZREVRANK"
			}
			want = "(nil)"
			if k, ok := o.s.Rank(m, rev); ok {
				want = strconv.Itoa(k)
			}
		case op < 12:
			a, b := r.Intn(12)-6, r.Intn(12)-6
			rev := r.Intn(2) == 0
			args = []string{"ZRANGE", key, strconv.Itoa(a), strconv.Itoa(b), "WITHSCORES"}
			if rev {
				args = append(args, "REV")
			}
			if s, e, ok := norm(a, b, n()); ok {
				want = o.items(func(v Visitor) { o.s.RangeByRank(s, e, rev, v) }, true)
			}
		case op < 14:
			min, max := scoreBound(), scoreBound()
			rev := r.Intn(2) == 0
			args = []string{"ZRANGEBYSCORE", key, min, max, "WITHSCORES"}
			if rev {
				args = []string{"ZREVRANGEBYSCORE", key, max, min, "WITHSCORES"}
			}
			offset, count := 0, -1
			if r.Intn(2) == 0 {
				offset, count = r.Intn(4)-1, r.Intn(5)-1
				args = append(args, "LIMIT", strconv.Itoa(offset), strconv.Itoa(count))
			}
			sr, err := ParseScoreRange([]byte(min), []byte(max))
			if err != nil {
				t.Fatal(err)
			}
			want = o.items(func(v Visitor) { o.s.RangeByScore(sr, rev, offset, count, v) }, true)
		case op < 15:
			min, max := scoreBound(), scoreBound()
			args = []string{"ZCOUNT", key, min, max}
			sr, _ := ParseScoreRange([]byte(min), []byte(max))
			want = strconv.Itoa(o.s.CountByScore(sr))
		case op < 16:
			min, max := scoreBound(), scoreBound()
			if r.Intn(2) == 0 {
				min = "-inf"
			}
			args = []string{"ZREMRANGEBYSCORE", key, min, max}
			sr, _ := ParseScoreRange([]byte(min), []byte(max))
			want = strconv.Itoa(o.s.RemoveRangeByScore(sr))
		case op < 17:
			a, b := r.Intn(8)-4, r.Intn(8)-4
			args = []string{"ZREMRANGEBYRANK", key, strconv.Itoa(a), strconv.Itoa(b)}
			want = "0"
			if s, e, ok := norm(a, b, n()); ok {
				want = strconv.Itoa(o.s.RemoveRangeByRank(s, e))
			}
		case op < 18 && lex:
			min, max := lexBound(), lexBound()
			rev := r.Intn(2) == 0
			args = []string{"ZRANGEBYLEX", key, min, max}
			if rev {
				args = []string{"ZREVRANGEBYLEX", key, max, min}
			}
			offset, count := 0, -1
			if r.Intn(2) == 0 {
				offset, count = r.Intn(4)-1, r.Intn(5)-1
				args = append(args, "LIMIT", strconv.Itoa(offset), strconv.Itoa(count))
			}
			lr, err := ParseLexRange([]byte(min), []byte(max))
			if err != nil {
				t.Fatal(err)
			}
			want = o.items(func(v Visitor) { o.s.RangeByLex(lr, rev, offset, count, v) }, false)
		case op < 19 && lex:
			min, max := lexBound(), lexBound()
			lr, _ := ParseLexRange([]byte(min), []byte(max))
			if r.Intn(2) == 0 {
				args = []string{"ZLEXCOUNT", key, min, max}
				want = strconv.Itoa(o.s.CountByLex(lr))
			} else {
				args = []string{"ZREMRANGEBYLEX", key, min, max}
				want = strconv.Itoa(o.s.RemoveRangeByLex(lr))
			}
		default:
			c := r.Intn(3)
			max := r.Intn(2) == 0
			args = []string{"ZPOPMIN", key, strconv.Itoa(c)}
			if max {
				args[0] = "ZPOPMAX"
			}
			var parts []string
			fn := func(m []byte, sc float64) { parts = append(parts, string(m), fmtScore(sc)) }
			if max {
				o.s.PopMax(c, fn)
			} else {
				o.s.PopMin(c, fn)
			}
			want = strings.Join(parts, "|")
		}
		if got := rc.cmd(args...); got != want {
			t.Fatalf("seed %d lex %v step %d: %q\nredis: %q\nours:  %q", seed, lex, step, args, got, want)
		}
		if got := rc.cmd("ZCARD", key); got != strconv.Itoa(n()) {
			t.Fatalf("seed %d step %d: ZCARD redis %s ours %d after %q", seed, step, got, n(), args)
		}
		if n() > 0 {
			encodings[o.s.Encoding()] = true
			if got := rc.cmd("OBJECT", "ENCODING", key); got != o.s.Encoding() {
				t.Fatalf("seed %d step %d: encoding redis %s ours %s after %q", seed, step, got, o.s.Encoding(), args)
			}
		} else {
			o.s = New() // Redis deleted the key; the next ZADD creates it anew
		}
	}
	rc.cmd("DEL", key)
	if seed%2 == 0 && !encodings["skiplist"] {
		t.Errorf("seed %d: never converted", seed)
	}
}
