package commands

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/internal/engine"
	"github.com/limitkv/limitkv/internal/family/zsetcmd"

	"github.com/limitkv/limitkv/internal/resp"
	"github.com/limitkv/limitkv/internal/zset"
)

// Unit tests of the sorted-set family. Byte-for-byte parity with Redis is
// proven in conformance/zset_test.go and zset_random_test.go; these pin the
// logic without a Redis at hand.

func bulks(items ...string) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = bulk(s)
	}
	return array(out...)
}

var (
	zWrongType = errReply(engine.ErrWrongType)
	zSyntax    = errReply(engine.ErrSyntax)
	zNotFloat  = errReply(engine.ErrNotFloat)
	zNotInt    = errReply(engine.ErrNotInt)
)

func TestZsetZAdd(t *testing.T) {
	runCases(t, []cmdCase{
		{"add update", []step{cmd(integer(2), "ZADD", "k", "1", "a", "2", "b"), cmd(integer(1), "ZADD", "k", "3", "a", "4", "c"),
			cmd(bulks("b", "2", "a", "3", "c", "4"), "ZRANGE", "k", "0", "-1", "WITHSCORES")}},
		{"ch", []step{cmd(integer(1), "ZADD", "k", "1", "a"), cmd(integer(2), "ZADD", "k", "CH", "2", "a", "1", "b"), cmd(integer(0), "ZADD", "k", "ch", "2", "a")}},
		{"nx xx", []step{cmd(integer(0), "ZADD", "k", "XX", "1", "a"), cmd(integer(0), "EXISTS", "k"), cmd(integer(1), "ZADD", "k", "NX", "1", "a"),
			cmd(integer(0), "ZADD", "k", "NX", "5", "a"), cmd(bulk("1"), "ZSCORE", "k", "a"), cmd(integer(0), "ZADD", "k", "XX", "5", "a", "1", "b"),
			cmd(bulks("a", "5"), "ZRANGE", "k", "0", "-1", "WITHSCORES")}},
		{"gt lt", []step{cmd(integer(1), "ZADD", "k", "5", "a"), cmd(integer(0), "ZADD", "k", "GT", "CH", "4", "a"), cmd(integer(1), "ZADD", "k", "GT", "CH", "6", "a"),
			cmd(integer(0), "ZADD", "k", "LT", "CH", "7", "a"), cmd(integer(1), "ZADD", "k", "LT", "CH", "1", "a"), cmd(integer(1), "ZADD", "k", "GT", "1", "new")}},
		{"incr", []step{cmd(bulk("1.5"), "ZADD", "k", "INCR", "1.5", "a"), cmd(bulk("3"), "ZADD", "k", "INCR", "1.5", "a"),
			cmd(nilReply, "ZADD", "k", "INCR", "NX", "1", "a"), cmd(nilReply, "ZADD", "k", "INCR", "XX", "1", "b"), cmd(nilReply, "ZADD", "k", "INCR", "GT", "-1", "a"),
			cmd(bulk("2"), "ZADD", "k", "INCR", "LT", "-1", "a"), cmd(nilReply, "ZADD", "nokey", "XX", "INCR", "1", "a"), cmd(bulk("inf"), "ZINCRBY", "k", "inf", "a"),
			cmd(errReply(engine.ErrZAddNaN), "ZINCRBY", "k", "-inf", "a"), cmd(bulk("inf"), "ZSCORE", "k", "a")}},
		{"errors", []step{cmd(zSyntax, "ZADD", "k", "1", "a", "2"), cmd(zSyntax, "ZADD", "k", "NX", "1"), cmd(errReply(engine.ErrZAddNXXX), "ZADD", "k", "NX", "XX", "1", "a"),
			cmd(errReply(engine.ErrZAddGTLTNX), "ZADD", "k", "GT", "LT", "1", "a"), cmd(errReply(engine.ErrZAddGTLTNX), "ZADD", "k", "NX", "LT", "1", "a"),
			cmd(errReply(engine.ErrZAddIncrPair), "ZADD", "k", "INCR", "1", "a", "2", "b"), cmd(zNotFloat, "ZADD", "k", "1", "a", "nan", "b"),
			cmd(zNotFloat, "ZADD", "k", "1e400", "a"), cmd(zNotFloat, "ZADD", "k", "", "a"), cmd(integer(0), "EXISTS", "k"),
			cmd(errReply("ERR wrong number of arguments for 'zadd' command"), "ZADD", "k", "1")}},
		{"wrong type", []step{cmd(okReply, "SET", "s", "v"), cmd(zWrongType, "ZADD", "s", "1", "a"), cmd(zNotFloat, "ZADD", "s", "x", "a"), cmd(zWrongType, "ZINCRBY", "s", "1", "a")}},
		{"formatting", []step{cmd(integer(5), "ZADD", "k", "0.1", "a", "1e17", "b", "-0", "c", "0x10", "d", "3.0000000000000004", "e"),
			cmd(bulks("c", "0", "a", "0.10000000000000001", "e", "3.0000000000000004", "d", "16", "b", "1e+17"), "ZRANGE", "k", "0", "-1", "WITHSCORES")}},
	})
}

func TestZsetReads(t *testing.T) {
	k := cmd(integer(5), "ZADD", "k", "1", "a", "2", "b", "3", "c", "4", "d", "4", "e")
	runCases(t, []cmdCase{
		{"card score rank", []step{k, cmd(integer(5), "ZCARD", "k"), cmd(integer(0), "ZCARD", "nokey"), cmd(bulk("2"), "ZSCORE", "k", "b"), cmd(nilReply, "ZSCORE", "k", "x"),
			cmd(array(bulk("1"), nilReply, bulk("4")), "ZMSCORE", "k", "a", "x", "e"), cmd(array(nilReply), "ZMSCORE", "nokey", "a"),
			cmd(integer(3), "ZRANK", "k", "d"), cmd(integer(1), "ZREVRANK", "k", "d"), cmd(nilReply, "ZRANK", "k", "x"), cmd(nilReply, "ZRANK", "nokey", "x")}},
		{"count", []step{k, cmd(integer(5), "ZCOUNT", "k", "-inf", "+inf"), cmd(integer(2), "ZCOUNT", "k", "(1", "(4"), cmd(integer(0), "ZCOUNT", "k", "4", "1"),
			cmd(errReply(engine.ErrMinMaxFloat), "ZCOUNT", "k", "x", "1"), cmd(errReply(engine.ErrMinMaxFloat), "ZCOUNT", "nokey", "x", "1"),
			cmd(integer(5), "ZLEXCOUNT", "k", "-", "+"), cmd(errReply(engine.ErrMinMaxLex), "ZLEXCOUNT", "k", "a", "+")}},
		{"range", []step{k, cmd(bulks("b", "c"), "ZRANGE", "k", "1", "2"), cmd(bulks("e", "d"), "ZRANGE", "k", "0", "1", "REV"),
			cmd(bulks("b", "2", "c", "3"), "ZRANGE", "k", "(1", "3", "BYSCORE", "WITHSCORES"), cmd(bulks("c", "b"), "ZRANGE", "k", "(4", "2", "BYSCORE", "REV"),
			cmd(bulks("c", "d"), "ZRANGEBYSCORE", "k", "-inf", "+inf", "LIMIT", "2", "2"), cmd(bulks("c", "b"), "ZREVRANGEBYSCORE", "k", "+inf", "-inf", "LIMIT", "2", "2"),
			cmd(emptyList, "ZRANGE", "k", "-inf", "+inf", "BYSCORE", "LIMIT", "5", "1"), cmd(emptyList, "ZRANGE", "k", "-inf", "+inf", "BYSCORE", "LIMIT", "-1", "1"),
			cmd(bulks("a", "b", "c", "d", "e"), "ZRANGE", "k", "0", "-1", "LIMIT", "3", "-1"), cmd(emptyList, "ZRANGE", "nokey", "0", "-1")}},
		{"range errors", []step{k, cmd(errReply(engine.ErrZRangeLimit), "ZRANGE", "k", "0", "-1", "LIMIT", "0", "1"),
			cmd(errReply(engine.ErrZRangeLexScores), "ZRANGE", "k", "-", "+", "BYLEX", "WITHSCORES"), cmd(zSyntax, "ZRANGEBYSCORE", "k", "0", "1", "REV"),
			cmd(zSyntax, "ZRANGE", "k", "0", "1", "REV", "REV"), cmd(zNotInt, "ZRANGE", "k", "0", "1", "BYSCORE", "LIMIT", "x", "1"),
			cmd(errReply(engine.ErrMinMaxFloat), "ZRANGE", "k", "x", "1", "BYSCORE"), cmd(errReply(engine.ErrMinMaxLex), "ZRANGE", "k", "x", "1", "BYLEX"),
			cmd(zSyntax, "ZRANGESTORE", "d", "k", "0", "1", "WITHSCORES"), cmd(okReply, "SET", "s", "v"), cmd(zWrongType, "ZRANGE", "s", "0", "1"),
			cmd(zNotInt, "ZRANGE", "s", "x", "1")}},
		{"lex", []step{cmd(integer(4), "ZADD", "l", "0", "a", "0", "b", "0", "c", "0", "d"), cmd(bulks("b", "c"), "ZRANGEBYLEX", "l", "(a", "[c"),
			cmd(bulks("c", "b"), "ZREVRANGEBYLEX", "l", "[c", "(a"), cmd(bulks("b"), "ZRANGE", "l", "-", "+", "BYLEX", "LIMIT", "1", "1"),
			cmd(integer(2), "ZREMRANGEBYLEX", "l", "[b", "[c"), cmd(bulks("a", "d"), "ZRANGE", "l", "0", "-1")}},
	})
}

func TestZsetRemovals(t *testing.T) {
	k := cmd(integer(5), "ZADD", "k", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e")
	runCases(t, []cmdCase{
		{"zrem", []step{k, cmd(integer(2), "ZREM", "k", "a", "b", "x", "a"), cmd(integer(3), "ZREM", "k", "c", "d", "e"), cmd(integer(0), "EXISTS", "k"),
			cmd(integer(0), "ZREM", "k", "a")}},
		{"remrange", []step{k, cmd(integer(2), "ZREMRANGEBYRANK", "k", "-2", "-1"), cmd(integer(0), "ZREMRANGEBYRANK", "k", "5", "9"),
			cmd(integer(1), "ZREMRANGEBYSCORE", "k", "(1", "2"), cmd(integer(0), "ZREMRANGEBYSCORE", "k", "3", "1"), cmd(zNotInt, "ZREMRANGEBYRANK", "k", "x", "1"),
			cmd(integer(2), "ZREMRANGEBYSCORE", "k", "-inf", "+inf"), cmd(integer(0), "EXISTS", "k")}},
		{"pops", []step{k, cmd(bulks("a", "1"), "ZPOPMIN", "k"), cmd(bulks("e", "5", "d", "4"), "ZPOPMAX", "k", "2"), cmd(emptyList, "ZPOPMIN", "k", "0"),
			cmd(errReply(engine.ErrValueMustPositive), "ZPOPMIN", "k", "-1"), cmd(zSyntax, "ZPOPMIN", "k", "1", "2"), cmd(bulks("b", "2", "c", "3"), "ZPOPMIN", "k", "10"),
			cmd(integer(0), "EXISTS", "k"), cmd(emptyList, "ZPOPMIN", "k")}},
		{"zmpop", []step{k, cmd(array(bulk("k"), array(bulks("e", "5"), bulks("d", "4"))), "ZMPOP", "2", "nokey", "k", "MAX", "COUNT", "2"),
			cmd(nilArray, "ZMPOP", "1", "nokey", "MIN"), cmd(errReply(engine.ErrZNumKeysPositive), "ZMPOP", "0", "k", "MIN"), cmd(zSyntax, "ZMPOP", "2", "k", "MIN"),
			cmd(zSyntax, "ZMPOP", "9223372036854775807", "k", "MIN"), cmd(errReply(engine.ErrZCountPositive), "ZMPOP", "1", "k", "MIN", "COUNT", "0"),
			cmd(zSyntax, "ZMPOP", "1", "k", "MIN", "COUNT", "1", "COUNT", "1")}},
	})
}

func TestZsetSetOps(t *testing.T) {
	ab := []step{cmd(integer(3), "ZADD", "a", "1", "x", "2", "y", "3", "z"), cmd(integer(3), "ZADD", "b", "10", "y", "20", "z", "30", "w")}
	runCases(t, []cmdCase{
		{"union", append(ab, cmd(bulks("x", "1", "y", "12", "z", "23", "w", "30"), "ZUNION", "2", "a", "b", "WITHSCORES"),
			cmd(bulks("x", "2", "y", "14", "z", "26", "w", "30"), "ZUNION", "2", "a", "b", "WEIGHTS", "2", "1", "WITHSCORES"),
			cmd(bulks("x", "1", "y", "2", "z", "3", "w", "30"), "ZUNION", "2", "a", "b", "AGGREGATE", "MIN", "WITHSCORES"))},
		{"inter diff card", append(ab, cmd(bulks("y", "10", "z", "20"), "ZINTER", "2", "a", "b", "AGGREGATE", "MAX", "WITHSCORES"),
			cmd(bulks("x"), "ZDIFF", "2", "a", "b"), cmd(integer(2), "ZINTERCARD", "2", "a", "b"), cmd(integer(1), "ZINTERCARD", "2", "a", "b", "LIMIT", "1"))},
		{"inf sums", []step{cmd(integer(1), "ZADD", "p", "inf", "m"), cmd(integer(1), "ZADD", "n", "-inf", "m"),
			cmd(bulks("m", "0"), "ZUNION", "2", "p", "n", "WITHSCORES"), cmd(bulks("m", "0"), "ZUNION", "1", "p", "WEIGHTS", "0", "WITHSCORES"),
			cmd(bulks("m", "inf"), "ZINTER", "2", "p", "p", "WEIGHTS", "1", "0", "AGGREGATE", "MAX", "WITHSCORES")}},
		{"negative zero", []step{cmd(integer(1), "ZADD", "k", "0", "a"), cmd(bulks("a", "-0"), "ZUNION", "1", "k", "WEIGHTS", "-1", "WITHSCORES"),
			cmd(integer(1), "ZUNIONSTORE", "d", "1", "k", "WEIGHTS", "-1"), cmd(bulk("0"), "ZSCORE", "d", "a")}},
		{"stores", append(ab, cmd(okReply, "SET", "d", "v"), cmd(integer(4), "ZUNIONSTORE", "d", "2", "a", "b"), cmd(integer(-1), "TTL", "d"),
			cmd(integer(0), "ZINTERSTORE", "d", "2", "a", "nokey"), cmd(integer(0), "EXISTS", "d"), cmd(integer(1), "ZDIFFSTORE", "a", "2", "a", "b"),
			cmd(bulks("x", "1"), "ZRANGE", "a", "0", "-1", "WITHSCORES"))},
		{"errors", append(ab, cmd(errReply(engine.ErrZAtLeastOneKeyPfx+"zunion' command"), "ZUNION", "0", "a"), cmd(zSyntax, "ZUNION", "3", "a", "b"),
			cmd(zNotInt, "ZUNION", "x", "a"), cmd(errReply(engine.ErrZWeightNotFloat), "ZUNION", "2", "a", "b", "WEIGHTS", "1", "x"),
			cmd(zSyntax, "ZDIFF", "2", "a", "b", "WEIGHTS", "1", "1"), cmd(errReply(engine.ErrZLimitNegative), "ZINTERCARD", "1", "a", "LIMIT", "-1"),
			cmd(errReply(engine.ErrZAtLeastOneKeyPfx+"zinterstore' command"), "ZINTERSTORE", "d", "0", "a"), cmd(okReply, "SET", "s", "v"),
			cmd(zWrongType, "ZUNION", "2", "a", "s", "WEIGHTS", "x", "y"))},
	})
}

func TestZsetRandMemberShapes(t *testing.T) {
	tt := newTester(t)
	for _, n := range []int{5, 300} {
		tt.Do("DEL", "k")
		args := []string{"ZADD", "k"}
		for i := range n {
			args = append(args, strconv.Itoa(i), "m"+strconv.Itoa(i))
		}
		tt.Do(args...)
		for _, c := range []int{1, 2, n / 4, n / 2, n - 1, n, n + 10, -1, -3, -n, -2 * n} {
			for _, ws := range []bool{false, true} {
				cmd := []string{"ZRANDMEMBER", "k", strconv.Itoa(c)}
				if ws {
					cmd = append(cmd, "WITHSCORES")
				}
				items := parseFlat(t, tt.Do(cmd...))
				want := min(c, n)
				if c < 0 {
					want = -c
				}
				per := 1
				if ws {
					per = 2
				}
				if len(items) != want*per {
					t.Fatalf("%v: %d items, want %d", cmd, len(items), want*per)
				}
				seen := map[string]bool{}
				for i := 0; i < len(items); i += per {
					m := items[i]
					if !strings.HasPrefix(m, "m") {
						t.Fatalf("%v: %q is not a member", cmd, m)
					}
					if ws && "m"+items[i+1] != m {
						t.Fatalf("%v: %q scored %q", cmd, m, items[i+1])
					}
					if c > 0 && seen[m] {
						t.Fatalf("%v: %q repeated", cmd, m)
					}
					seen[m] = true
				}
				if c >= n && items[0] != "m"+strconv.Itoa(n-1) {
					t.Fatalf("%v: the whole set must come highest first, got %q first", cmd, items[0])
				}
			}
		}
	}
	tt.Expect(errReply(engine.ErrValueOutOfRange), "ZRANDMEMBER", "k", "4611686018427387904", "WITHSCORES")
	tt.Expect(errReply(engine.ErrZRandCountRange), "ZRANDMEMBER", "k", "-9223372036854775808")
	tt.Expect(errReply(engine.ErrValueOutOfRange), "ZRANDMEMBER", "k", "-100000000")
}

// parseFlat reads a flat array of bulk strings.
func parseFlat(t *testing.T, reply string) []string {
	t.Helper()
	if !strings.HasPrefix(reply, "*") {
		t.Fatalf("not an array: %q", reply)
	}
	lines := strings.Split(reply, "\r\n")
	var out []string
	for i := 1; i+1 < len(lines); i += 2 {
		out = append(out, lines[i+1])
	}
	return out
}

func TestZsetScanCursor(t *testing.T) {
	scores := []float64{math.Inf(-1), -1e300, -1, -math.SmallestNonzeroFloat64, math.Copysign(0, -1), 0, math.SmallestNonzeroFloat64, 0.5, 1, 1e300, math.Inf(1)}
	prev := uint64(0)
	for i, sc := range scores {
		c := zsetcmd.ZscanCursor(sc)
		if c == 0 {
			t.Fatalf("score %v maps to cursor 0", sc)
		}
		if back := zsetcmd.ZscanScore(c); back != sc || math.Signbit(back) != math.Signbit(sc) {
			t.Fatalf("score %v round-trips to %v", sc, back)
		}
		if i > 0 && c <= prev {
			t.Fatalf("cursor of %v (%d) is not above the previous one (%d)", sc, c, prev)
		}
		prev = c
	}
	if !math.IsNaN(zsetcmd.ZscanScore(math.MaxUint64)) && zsetcmd.ZscanScore(math.MaxUint64) <= math.MaxFloat64 {
		t.Fatalf("cursor 2^64-1 should decode beyond +inf")
	}
}

func TestZsetScanLarge(t *testing.T) {
	tt := newTester(t)
	args := []string{"ZADD", "k"}
	for i := range 1000 {
		args = append(args, strconv.Itoa(i%37), "m"+strconv.Itoa(i)) // runs of equal scores
	}
	tt.Do(args...)
	seen := map[string]int{}
	cursor, calls := "0", 0
	for {
		raw := tt.Do("ZSCAN", "k", cursor, "COUNT", "7")
		lines := strings.Split(raw, "\r\n")
		cursor = lines[2]
		for i := 4; i+3 < len(lines); i += 4 {
			seen[lines[i+1]]++
		}
		calls++
		if cursor == "0" || calls > 10000 {
			break
		}
	}
	if len(seen) != 1000 {
		t.Fatalf("ZSCAN returned %d distinct members, want 1000", len(seen))
	}
	for m, n := range seen {
		if n != 1 {
			t.Fatalf("%s returned %d times", m, n)
		}
	}
	if calls < 30 {
		t.Fatalf("only %d calls: COUNT is not honoured", calls)
	}
	tt.Expect(array(bulk("0"), array()), "ZSCAN", "k", strconv.FormatUint(math.MaxUint64, 10))
}

func TestZsetBlockTimeout(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"0", 0, ""}, {"1", time.Second, ""}, {"0.5", 500 * time.Millisecond, ""}, {"0.0001", time.Millisecond, ""},
		{"0.0015", 2 * time.Millisecond, ""}, {"-0.0001", 0, ""}, {"-0", 0, ""}, {"0x10", 16 * time.Second, ""}, {"1e-400", time.Millisecond, ""},
		{"9223372036854775", 0, ""}, {"-1", 0, engine.ErrTimeoutNegative}, {"inf", 0, engine.ErrTimeoutNegative}, {"1e400", 0, engine.ErrTimeoutNegative},
		{"9223372036854776", 0, engine.ErrTimeoutNegative}, {"x", 0, engine.ErrTimeoutNotFloat}, {"nan", 0, engine.ErrTimeoutNotFloat}, {" 1", 0, engine.ErrTimeoutNotFloat},
		{"", 0, engine.ErrTimeoutNotFloat}, {"1e5000", 0, engine.ErrTimeoutNotFloat},
	} {
		got, err := engine.ParseBlockTimeout([]byte(tc.in))
		if got != tc.want || err != tc.err {
			t.Errorf("timeout %q: got %v %q, want %v %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestZsetBlocking(t *testing.T) {
	tt := newTester(t)
	block := func(args ...string) (*engine.Client, *resp.Writer) {
		c := tt.E.NewClient("127.0.0.1:2", "127.0.0.1:6379")
		bargs := make([][]byte, len(args))
		for i, a := range args {
			bargs[i] = []byte(a)
		}
		w := &resp.Writer{}
		tt.E.Lock()
		out := tt.E.Exec(c, bargs, w)
		tt.E.Unlock()
		if out != engine.Blocked {
			t.Fatalf("%v did not block: %q", args, w.Bytes())
		}
		return c, w
	}
	c1, w1 := block("BZPOPMIN", "k", "k2", "0")
	_, w2 := block("BZMPOP", "0", "1", "k2", "MAX", "COUNT", "5")
	tt.Expect(okReply, "SET", "k", "x") // another type: both stay blocked
	tt.Expect(integer(2), "ZADD", "k2", "1", "a", "2", "b")
	if got, want := string(w1.Bytes()), bulks("k2", "a", "1"); got != want {
		t.Fatalf("first waiter: %q, want %q", got, want)
	}
	if got, want := string(w2.Bytes()), array(bulk("k2"), array(bulks("b", "2"))); got != want {
		t.Fatalf("second waiter: %q, want %q", got, want)
	}
	if c1.Blocked != nil {
		t.Fatal("served client still blocked")
	}
	tt.Expect(integer(0), "EXISTS", "k2")

	// A store that overwrites a key of another type does not wake anyone,
	// as in Redis, whose dbAdd alone signals.
	_, w3 := block("BZPOPMIN", "s", "0")
	tt.Expect(okReply, "SET", "s", "v")
	tt.Expect(integer(1), "ZADD", "src", "1", "m")
	tt.Expect(integer(1), "ZUNIONSTORE", "s", "1", "src")
	if len(w3.Bytes()) != 0 {
		t.Fatalf("overwrite woke the client: %q", w3.Bytes())
	}
	// Inside MULTI nothing blocks.
	tt.Expect(okReply, "MULTI")
	tt.Expect("+QUEUED\r\n", "BZPOPMIN", "nokey", "0")
	tt.Expect(array(nilArray), "EXEC")
}

// TestZsetHotPathAllocs keeps the rate limiter's commands free of
// allocations beyond the engine's own per-command cost (measured on ZCARD
// of a missing key).
func TestZsetHotPathAllocs(t *testing.T) {
	tt := newTester(t)
	for i := range 100 {
		tt.Do("ZADD", "k", strconv.Itoa(1_700_000_000_000+i), "req-"+strconv.Itoa(i))
	}
	for i := range 300 {
		tt.Do("ZADD", "big", strconv.Itoa(1_700_000_000_000+i), "req-"+strconv.Itoa(i))
	}
	allocs := func(args ...string) float64 {
		bargs := make([][]byte, len(args))
		for i, a := range args {
			bargs[i] = []byte(a)
		}
		var w resp.Writer
		return testing.AllocsPerRun(100, func() {
			w.Reset(1 << 20)
			tt.E.Lock()
			tt.E.Exec(tt.C, bargs, &w)
			tt.E.Unlock()
		})
	}
	base := allocs("ZCARD", "nokey")
	for _, args := range [][]string{
		{"ZADD", "k", "1700000000050", "req-50"},
		{"ZADD", "k", "1700000000999", "req-new"}, // added once, then an update
		{"ZREMRANGEBYSCORE", "k", "-inf", "1600000000000"},
		{"ZCARD", "k"},
		{"ZRANGE", "k", "0", "-1", "WITHSCORES"},
		{"ZRANGE", "big", "0", "-1", "WITHSCORES"},
		{"ZRANGEBYSCORE", "big", "1700000000100", "+inf", "WITHSCORES", "LIMIT", "0", "10"},
		{"ZSCORE", "big", "req-7"},
		{"ZCOUNT", "big", "-inf", "+inf"},
	} {
		if got := allocs(args...); got > base {
			t.Errorf("%v: %v allocations, the engine alone makes %v", args, got, base)
		}
	}
}

func TestZsetMemberViewSafety(t *testing.T) {
	// Members handed to a large set must be copies: reusing the argument
	// buffer must not change the stored member.
	tt := newTester(t)
	args := [][]byte{[]byte("ZADD"), []byte("k"), []byte("1"), []byte(strings.Repeat("a", 70))}
	var w resp.Writer
	tt.E.Lock()
	tt.E.Exec(tt.C, args, &w)
	tt.E.Unlock()
	copy(args[3], strings.Repeat("b", 70))
	tt.Expect(bulks(strings.Repeat("a", 70)), "ZRANGE", "k", "0", "-1")
	// A union stores fresh strings, never views of its sources: here the
	// result is large (it keeps its strings) while t is small (its members
	// live in a buffer that a removal rewrites in place).
	s1, t1, big := []string{"ZADD", "s"}, []string{"ZADD", "t"}, []string{"ZADD", "big"}
	for i := range 100 {
		m := "shared" + strconv.Itoa(i)
		s1 = append(s1, strconv.Itoa(i), m)
		t1 = append(t1, "1", m)
		big = append(big, "1000", "other"+strconv.Itoa(i))
	}
	tt.Do(s1...)
	tt.Do(t1...)
	tt.Do(big...)
	tt.Expect(integer(200), "ZUNIONSTORE", "u", "3", "s", "t", "big")
	before := tt.Do("ZRANGE", "u", "0", "-1", "WITHSCORES")
	tt.Expect(integer(1), "ZREM", "t", "shared0")
	if after := tt.Do("ZRANGE", "u", "0", "-1", "WITHSCORES"); after != before {
		t.Fatalf("the union changed when a source did")
	}
	if enc := tt.E.DB(0).Peek([]byte("u")).Val.(*zset.Set).Encoding(); enc != "skiplist" {
		t.Fatalf("union of 132 members is %s", enc)
	}
}

// TestZsetLimitsPerEngine: zset-max-listpack-* belong to the engine, so two
// servers in one process (embedded ones, parallel tests) convert their sets
// under their own settings, whichever changed them last.
func TestZsetLimitsPerEngine(t *testing.T) {
	now := itoa(time.Unix(1_700_000_000, 0).UnixMilli()) // newTester's clock
	tests := []struct {
		name  string
		steps [][]string // run on both engines
	}{
		{"zadd entries", [][]string{{"ZADD", "k", "1", "a", "2", "b"}}},
		{"zadd value", [][]string{{"ZADD", "k", "1", "abcd"}}},
		{"zincrby", [][]string{{"ZINCRBY", "k", "1", "a"}, {"ZINCRBY", "k", "1", "b"}}},
		{"rl.check", [][]string{{"RL.CHECK", "k", now, "60000", "5", "m1"}, {"RL.CHECK", "k", now, "60000", "5", "m2"}}},
		{"zrangestore", [][]string{{"ZADD", "src", "1", "a", "2", "b"}, {"ZRANGESTORE", "k", "src", "0", "-1"}}},
		{"zunionstore", [][]string{{"ZADD", "src", "1", "a", "2", "b"}, {"ZUNIONSTORE", "k", "1", "src"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tiny, dflt := newTester(t), newTester(t)
			tiny.Expect(okReply, "CONFIG", "SET", "zset-max-listpack-entries", "1", "zset-max-listpack-value", "3")
			for _, args := range tc.steps {
				for _, tt := range []*tester{tiny, dflt} {
					if r := tt.Do(args...); strings.HasPrefix(r, "-") {
						t.Fatalf("%v: %q", args, r)
					}
				}
			}
			tiny.Expect(bulk("skiplist"), "OBJECT", "ENCODING", "k")
			dflt.Expect(bulk("listpack"), "OBJECT", "ENCODING", "k")
			dflt.Expect(array(bulk("zset-max-listpack-entries"), bulk("128")), "CONFIG", "GET", "zset-max-listpack-entries")
			dflt.Expect(array(bulk("zset-max-ziplist-value"), bulk("64")), "CONFIG", "GET", "zset-max-ziplist-value")
		})
	}
}

// ZADD's plain form (nobody watching, tracking or listening) still tells
// an update from a no-op: a changed score is a change, propagated and
// counted, an unchanged one is neither.
func TestZAddPlainUpdatePropagates(t *testing.T) {
	runStreamSteps(t, []step{
		ss([]string{"ZADD", "z", "1", "a"}, integer(1), "0: ZADD z 1 a"),
		ss([]string{"ZADD", "z", "5", "a"}, integer(0), "0: ZADD z 5 a"),
		ss([]string{"ZADD", "z", "5", "a"}, integer(0), ""),
		ss([]string{"ZADD", "z", "5", "a", "6", "b"}, integer(1), "0: ZADD z 5 a 6 b"),
	})
}
