package conformance

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Conformance of the sorted-set family: every command and option, every
// error path, both encodings (listpack up to 128 members of at most 64
// bytes, skiplist beyond), TTL interplay, WATCH no-ops and the blocking
// pops. The randomized differential test is in zset_random_test.go.

// zsBig builds a ZADD of n members "<prefix><i>" scored by score(i).
func zsBig(key, prefix string, n int, score func(i int) string) Cmd {
	args := []string{"ZADD", key}
	for i := range n {
		args = append(args, score(i), prefix+strconv.Itoa(i))
	}
	c := C(args...)
	c.where = caller()
	return c
}

func zsInt(i int) string { return strconv.Itoa(i) }

// zsHalf scores i/2 - 3: negative, fractional and integer scores mixed.
func zsHalf(i int) string { return strconv.FormatFloat(float64(i)/2-3, 'g', -1, 64) }

func zsZero(int) string { return "0" }

// zsAll is a ZRANGE of the whole set with scores, the usual state check.
func zsAll(key string) Cmd {
	c := C("ZRANGE", key, "0", "-1", "WITHSCORES")
	c.where = caller()
	return c
}

// zsWatchCase is a WATCH scenario: setup, WATCH k (and d), the commands in
// between from a second connection, then MULTI/PING/EXEC, whose reply tells
// whether the write invalidated the watch.
func zsWatchCase(name string, setup []Cmd, between ...Cmd) Case {
	cmds := append([]Cmd{}, setup...)
	cmds = append(cmds, C("WATCH", "k", "d"))
	for _, b := range between {
		cmds = append(cmds, b.On(1))
	}
	cmds = append(cmds, C("MULTI"), C("PING"), C("EXEC"))
	return Case{Name: name, Cmds: cmds}
}

func TestZsetZAdd(t *testing.T) {
	runCases(t, []Case{
		{Name: "add and update", Cmds: []Cmd{C("ZADD", "k", "1", "a", "2", "b"), C("ZADD", "k", "3", "a", "4", "c"), zsAll("k"), C("ZCARD", "k")}},
		{Name: "same member twice", Cmds: []Cmd{C("ZADD", "k", "1", "a", "2", "a"), zsAll("k"), C("ZADD", "k", "CH", "5", "a", "5", "a"), zsAll("k")}},
		{Name: "equal scores order by member", Cmds: []Cmd{C("ZADD", "k", "1", "b", "1", "a", "1", "c", "1", "", "1", "a\x00"), zsAll("k")}},
		{Name: "binary members", Cmds: []Cmd{C("ZADD", "k", "1", "\x00\xff\r\n", "2", "\xfe"), zsAll("k"), C("ZSCORE", "k", "\x00\xff\r\n")}},
		{Name: "score formats", Cmds: []Cmd{
			C("ZADD", "k", "0x10", "hex", "1e3", "exp", "-0", "negzero", "+5", "plus", "1.5", "frac", "0.1", "tenth",
				"1e16", "big", "123456789012345678", "bigger", "-1e-300", "tiny", "inf", "pinf", "-inf", "ninf", "+inf", "pinf2",
				"-INFINITY", "ninf2", "3.0000000000000004", "ulp", "1E2", "upper", "0x1p-3", "hexp"),
			zsAll("k")}},
		{Name: "bad scores", Cmds: []Cmd{C("ZADD", "k", "x", "a"), C("ZADD", "k", "1", "a", "x", "b"), C("EXISTS", "k"),
			C("ZADD", "k", "nan", "a"), C("ZADD", "k", "NaN", "a"), C("ZADD", "k", "", "a"), C("ZADD", "k", " 1", "a"), C("ZADD", "k", "1 ", "a"),
			C("ZADD", "k", "1e400", "a"), C("ZADD", "k", "-1e400", "a"), C("ZADD", "k", "1e-400", "a"), C("ZADD", "k", "1\x00", "a"),
			C("ZADD", "k", "0x", "a"), C("ZADD", "k", "1_000", "a"), C("ZADD", "k", "--1", "a"), C("ZADD", "k", "1e", "a"), C("EXISTS", "k")}},
		{Name: "bad score after good pairs changes nothing", Cmds: []Cmd{C("ZADD", "k", "1", "a"), C("ZADD", "k", "2", "a", "3", "b", "x", "c"), zsAll("k")}},
		{Name: "arity and syntax", Cmds: []Cmd{C("ZADD"), C("ZADD", "k"), C("ZADD", "k", "1"), C("ZADD", "k", "nx"), C("ZADD", "k", "nx", "1"),
			C("ZADD", "k", "1", "a", "2"), C("ZADD", "k", "NX", "XX", "CH"), C("ZADD", "k", "incr", "1", "a", "2"), C("EXISTS", "k")}},
		{Name: "option errors", Cmds: []Cmd{
			C("ZADD", "k", "NX", "XX", "1", "a"), C("ZADD", "k", "xx", "nx", "1", "a"), C("ZADD", "k", "NX", "GT", "1", "a"),
			C("ZADD", "k", "LT", "NX", "1", "a"), C("ZADD", "k", "GT", "LT", "1", "a"), C("ZADD", "k", "NX", "XX", "GT", "1", "a"),
			C("ZADD", "k", "INCR", "1", "a", "2", "b"), C("ZADD", "k", "NX", "XX", "INCR", "1", "a", "2", "b"),
			C("ZADD", "k", "GT", "LT", "INCR", "1", "a", "2", "b"), C("ZADD", "k", "INCR", "x", "a"), C("ZADD", "k", "INCR", "1", "a", "x", "b"),
			C("ZADD", "k", "NX", "x", "a"), C("EXISTS", "k")}},
		{Name: "options are case insensitive and repeatable", Cmds: []Cmd{C("ZADD", "k", "nX", "Ch", "ch", "1", "a"), C("ZADD", "k", "xX", "CH", "gT", "2", "a"),
			C("ZADD", "k", "Lt", "lT", "0", "a"), zsAll("k"), C("ZADD", "k", "incr", "INCR", "1", "a")}},
		{Name: "option names as members need the flag order", Cmds: []Cmd{C("ZADD", "k", "1", "nx", "2", "ch"), zsAll("k"), C("ZADD", "k", "CH", "nx", "1")}},
		{Name: "option with nul byte is not an option", Cmds: []Cmd{C("ZADD", "k", "NX\x00", "1", "a"), C("ZADD", "k", "NX\x00y", "1")}},
		{Name: "xx on missing key", Cmds: []Cmd{C("ZADD", "k", "XX", "1", "a"), C("EXISTS", "k"), C("ZADD", "k", "XX", "INCR", "1", "a"),
			C("ZADD", "k", "XX", "CH", "1", "a"), C("EXISTS", "k")}},
		{Name: "incr", Cmds: []Cmd{C("ZADD", "k", "INCR", "1.5", "a"), C("ZADD", "k", "INCR", "1", "a"), C("ZADD", "k", "incr", "-2.5", "a"),
			C("ZADD", "k", "INCR", "inf", "a"), C("ZADD", "k", "INCR", "-inf", "a"), C("ZADD", "k", "INCR", "inf", "a"), zsAll("k"),
			C("ZADD", "k", "INCR", "0.1", "b"), C("ZADD", "k", "INCR", "0.2", "b"), zsAll("k")}},
		{Name: "incr nan", Cmds: []Cmd{C("ZADD", "k", "inf", "a"), C("ZADD", "k", "INCR", "-inf", "a"), C("ZADD", "k", "CH", "INCR", "-inf", "a"),
			C("ZINCRBY", "k", "-inf", "a"), zsAll("k"), C("ZADD", "k", "-inf", "b"), C("ZINCRBY", "k", "+inf", "b"), zsAll("k")}},
		{Name: "ch", Cmds: []Cmd{C("ZADD", "k", "1", "a", "2", "b"), C("ZADD", "k", "CH", "1", "a", "3", "b", "4", "c"), C("ZADD", "k", "CH", "1", "a"),
			C("ZADD", "k", "1", "a", "5", "b", "6", "d")}},
		{Name: "large set updates", Cmds: []Cmd{zsBig("k", "m", 200, zsInt), C("ZADD", "k", "CH", "1000", "m5", "5", "m6", "7", "new"),
			C("ZADD", "k", "GT", "CH", "0", "m10", "500", "m11"), C("ZADD", "k", "LT", "CH", "0", "m10", "500", "m12"),
			C("ZADD", "k", "XX", "INCR", "1", "m13"), C("ZADD", "k", "NX", "INCR", "1", "m13"), C("ZRANGE", "k", "0", "5", "WITHSCORES"),
			C("ZRANGE", "k", "-5", "-1", "WITHSCORES"), C("ZCARD", "k")}},
		{Name: "negative zero", Cmds: []Cmd{C("ZADD", "k", "-0", "a"), C("ZSCORE", "k", "a"), C("ZADD", "k", "INCR", "-0", "a"), C("ZSCORE", "k", "a"),
			zsBig("big", "m", 130, zsInt), C("ZADD", "big", "-0", "z"), C("ZSCORE", "big", "z"), C("ZADD", "big", "CH", "0", "z"), C("ZSCORE", "big", "z"),
			C("ZINCRBY", "big", "-0", "z"), C("ZINCRBY", "big", "0", "z"), C("ZRANGEBYSCORE", "big", "0", "0", "WITHSCORES"),
			C("ZADD", "k", "1", "b"), C("ZUNIONSTORE", "u", "2", "big", "k", "WEIGHTS", "1", "-1"), C("ZSCORE", "u", "z"), C("OBJECT", "ENCODING", "u")}},
		{Name: "wrong type", Cmds: []Cmd{C("SET", "s", "v"), C("ZADD", "s", "1", "a"), C("ZADD", "s", "x", "a"), C("ZADD", "s", "NX", "XX", "1", "a"),
			C("ZADD", "s", "XX", "1", "a"), C("ZINCRBY", "s", "1", "a"), C("GET", "s")}},
		{Name: "keeps ttl", Cmds: []Cmd{C("ZADD", "k", "1", "a"), C("EXPIRE", "k", "100"), C("ZADD", "k", "2", "b"), C("TTL", "k").TTLApprox(1),
			C("ZINCRBY", "k", "1", "a"), C("TTL", "k").TTLApprox(1)}},
	})
}

// TestZsetZAddFlagMatrix runs every combination of NX, XX, GT, LT, CH and
// INCR against a new member, a lower, an equal and a higher score, and a
// missing key.
func TestZsetZAddFlagMatrix(t *testing.T) {
	names := []string{"NX", "XX", "GT", "LT", "CH", "INCR"}
	var cases []Case
	for mask := 0; mask < 1<<len(names); mask++ {
		var flags []string
		for i, n := range names {
			if mask&(1<<i) != 0 {
				flags = append(flags, n)
			}
		}
		zadd := func(key string, pairs ...string) Cmd {
			args := append(append([]string{"ZADD", key}, flags...), pairs...)
			c := C(args...)
			c.where = caller()
			return c
		}
		cmds := []Cmd{C("ZADD", "k", "5", "a", "5", "b", "5", "c")}
		for _, sc := range []string{"1", "5", "9", "-inf", "inf"} {
			cmds = append(cmds, zadd("k", sc, "a"), zadd("k", sc, "new"+sc), zsAll("k"))
		}
		cmds = append(cmds, zadd("k", "3", "b", "7", "c"), zsAll("k"), zadd("missing", "1", "a"), C("ZRANGE", "missing", "0", "-1", "WITHSCORES"))
		name := strings.Join(flags, "+")
		if name == "" {
			name = "none"
		}
		cases = append(cases, Case{Name: name, Cmds: cmds})
	}
	runCases(t, cases)
}

func TestZsetZIncrBy(t *testing.T) {
	runCases(t, []Case{
		{Name: "incrby", Cmds: []Cmd{C("ZINCRBY", "k", "1", "a"), C("ZINCRBY", "k", "2.5", "a"), C("ZINCRBY", "k", "-10", "a"), C("ZINCRBY", "k", "0x10", "b"),
			C("ZINCRBY", "k", "1e-5", "a"), zsAll("k")}},
		{Name: "inf", Cmds: []Cmd{C("ZINCRBY", "k", "inf", "a"), C("ZINCRBY", "k", "1", "a"), C("ZINCRBY", "k", "-inf", "a"), zsAll("k")}},
		{Name: "options are parsed as in ZADD", Cmds: []Cmd{C("ZINCRBY", "k", "NX", "a"), C("ZINCRBY", "k", "ch", "a"), C("ZINCRBY", "k", "INCR", "a"),
			C("ZINCRBY", "k", "1", "nx"), C("ZINCRBY", "k", "NX\x00", "a"), zsAll("k")}},
		{Name: "errors", Cmds: []Cmd{C("ZINCRBY"), C("ZINCRBY", "k", "1"), C("ZINCRBY", "k", "1", "a", "b"), C("ZINCRBY", "k", "x", "a"),
			C("ZINCRBY", "k", "nan", "a"), C("ZINCRBY", "k", "", "a"), C("SET", "s", "v"), C("ZINCRBY", "s", "1", "a"), C("ZINCRBY", "s", "x", "a"), C("EXISTS", "k")}},
		{Name: "precision", Cmds: []Cmd{C("ZINCRBY", "k", "0.1", "a"), C("ZINCRBY", "k", "0.2", "a"), C("ZINCRBY", "k", "1e16", "b"), C("ZINCRBY", "k", "1", "b"),
			C("ZINCRBY", "k", "1", "b"), zsAll("k")}},
	})
}

func TestZsetRemCardScore(t *testing.T) {
	runCases(t, []Case{
		{Name: "zrem", Cmds: []Cmd{C("ZADD", "k", "1", "a", "2", "b", "3", "c"), C("ZREM", "k", "a", "x", "a"), C("ZREM", "k", "x"), zsAll("k"),
			C("ZREM", "k", "b", "c", "d"), C("EXISTS", "k"), C("ZREM", "k", "a"), C("ZREM", "nokey", "a")}},
		{Name: "zrem large", Cmds: []Cmd{zsBig("k", "m", 150, zsInt), C("ZREM", "k", "m1", "m2", "m149", "nope"), C("ZCARD", "k"), C("OBJECT", "ENCODING", "k")}},
		{Name: "zrem errors", Cmds: []Cmd{C("ZREM"), C("ZREM", "k"), C("SET", "s", "v"), C("ZREM", "s", "a")}},
		{Name: "zcard", Cmds: []Cmd{C("ZCARD", "k"), C("ZADD", "k", "1", "a"), C("ZCARD", "k"), C("ZCARD"), C("ZCARD", "k", "x"), C("SET", "s", "v"), C("ZCARD", "s")}},
		{Name: "zscore", Cmds: []Cmd{C("ZADD", "k", "1.5", "a", "-inf", "b"), C("ZSCORE", "k", "a"), C("ZSCORE", "k", "b"), C("ZSCORE", "k", "x"),
			C("ZSCORE", "nokey", "a"), C("ZSCORE", "k"), C("ZSCORE", "k", "a", "b"), C("SET", "s", "v"), C("ZSCORE", "s", "a")}},
		{Name: "zmscore", Cmds: []Cmd{C("ZADD", "k", "1.5", "a", "2", "b"), C("ZMSCORE", "k", "a", "x", "b", "a"), C("ZMSCORE", "nokey", "a", "b"),
			C("ZMSCORE", "k"), C("SET", "s", "v"), C("ZMSCORE", "s", "a")}},
		{Name: "zscore large", Cmds: []Cmd{zsBig("k", "m", 300, zsHalf), C("ZSCORE", "k", "m7"), C("ZMSCORE", "k", "m0", "m299", "zz")}},
	})
}

func TestZsetCount(t *testing.T) {
	small := C("ZADD", "k", "1", "a", "2", "b", "3", "c", "4", "d", "4", "e", "-inf", "n", "inf", "p")
	lex := C("ZADD", "l", "0", "a", "0", "b", "0", "c", "0", "d", "0", "", "0", "e\x00")
	var cases []Case
	for _, enc := range []struct {
		name string
		big  []Cmd
	}{{"listpack", nil}, {"skiplist", []Cmd{zsBig("k", "zz", 200, func(i int) string { return "100" }), zsBig("l", "zz", 200, zsZero)}}} {
		setup := append([]Cmd{small, lex}, enc.big...)
		cases = append(cases,
			Case{Name: "zcount " + enc.name, Cmds: append(setup, C("ZCOUNT", "k", "-inf", "+inf"), C("ZCOUNT", "k", "2", "4"), C("ZCOUNT", "k", "(2", "(4"),
				C("ZCOUNT", "k", "4", "2"), C("ZCOUNT", "k", "(4", "4"), C("ZCOUNT", "k", "4", "(4"), C("ZCOUNT", "k", "(-inf", "(inf"),
				C("ZCOUNT", "k", "inf", "inf"), C("ZCOUNT", "k", "5", "10"), C("ZCOUNT", "k", "-10", "0"), C("ZCOUNT", "k", "", "("),
				C("ZCOUNT", "k", " 1", "2\x00x"), C("ZCOUNT", "k", "1e400", "-1e400"))},
			Case{Name: "zlexcount " + enc.name, Cmds: append(setup, C("ZLEXCOUNT", "l", "-", "+"), C("ZLEXCOUNT", "l", "[b", "[d"), C("ZLEXCOUNT", "l", "(b", "(d"),
				C("ZLEXCOUNT", "l", "[", "(b"), C("ZLEXCOUNT", "l", "(", "+"), C("ZLEXCOUNT", "l", "+", "-"), C("ZLEXCOUNT", "l", "[e", "[e\x00"),
				C("ZLEXCOUNT", "l", "[d", "[b"), C("ZLEXCOUNT", "l", "-", "-"), C("ZLEXCOUNT", "l", "+", "+"), C("ZLEXCOUNT", "l", "(z", "+"))},
		)
	}
	cases = append(cases,
		Case{Name: "zcount errors", Cmds: []Cmd{C("ZCOUNT", "k", "x", "1"), C("ZCOUNT", "k", "1", "x"), C("ZCOUNT", "k", "((1", "2"), C("ZCOUNT", "k", "nan", "1"),
			C("ZCOUNT", "k", "(nan", "1"), C("ZCOUNT", "k", "1 ", "2"), C("ZCOUNT", "k", "1"), C("ZCOUNT", "k", "1", "2", "3"),
			C("SET", "s", "v"), C("ZCOUNT", "s", "0", "1"), C("ZCOUNT", "s", "x", "1"), C("ZCOUNT", "nokey", "0", "1")}},
		Case{Name: "zlexcount errors", Cmds: []Cmd{C("ZLEXCOUNT", "k", "a", "+"), C("ZLEXCOUNT", "k", "-", "b"), C("ZLEXCOUNT", "k", "", "+"),
			C("ZLEXCOUNT", "k", "+x", "+"), C("ZLEXCOUNT", "k", "-\x00x", "+"), C("ZLEXCOUNT", "k", "-"), C("SET", "s", "v"),
			C("ZLEXCOUNT", "s", "-", "+"), C("ZLEXCOUNT", "s", "x", "+"), C("ZLEXCOUNT", "nokey", "-", "+")}},
		Case{Name: "zlexcount unequal scores listpack", Cmds: []Cmd{C("ZADD", "k", "1", "b", "2", "a", "3", "d", "4", "c"), C("ZLEXCOUNT", "k", "[a", "[c"),
			C("ZLEXCOUNT", "k", "[b", "+"), C("ZLEXCOUNT", "k", "-", "[b"), C("ZLEXCOUNT", "k", "[c", "[d")}},
	)
	runCases(t, cases)
}

func TestZsetRange(t *testing.T) {
	k := C("ZADD", "k", "1", "a", "2", "b", "3", "c", "4", "d", "4", "e", "-inf", "n", "inf", "p", "1.5", "f")
	l := C("ZADD", "l", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e", "0", "", "0", "bb")
	var cases []Case
	for _, enc := range []struct {
		name string
		big  []Cmd
	}{{"listpack", nil}, {"skiplist", []Cmd{zsBig("k", "zz", 200, zsHalf), zsBig("l", "zz", 200, zsZero)}}} {
		setup := append([]Cmd{k, l}, enc.big...)
		rank := []Cmd{}
		for _, r := range [][2]string{{"0", "-1"}, {"0", "0"}, {"2", "4"}, {"-3", "-1"}, {"-100", "100"}, {"5", "2"}, {"300", "400"},
			{"-1000", "-900"}, {"1", "-1"}, {"-1", "0"}, {"0", "9223372036854775807"}, {"-9223372036854775808", "2"}} {
			rank = append(rank, C("ZRANGE", "k", r[0], r[1]), C("ZRANGE", "k", r[0], r[1], "WITHSCORES"), C("ZRANGE", "k", r[0], r[1], "REV"),
				C("ZREVRANGE", "k", r[0], r[1], "WITHSCORES"), C("ZRANGE", "k", r[0], r[1], "rev", "withscores"))
		}
		score := []Cmd{}
		for _, r := range [][2]string{{"-inf", "+inf"}, {"1", "4"}, {"(1", "(4"}, {"4", "1"}, {"(4", "4"}, {"-inf", "-inf"}, {"inf", "inf"},
			{"(-inf", "(inf"}, {"1.5", "1.5"}, {"5", "100"}, {"", "("}, {"0x1", "3"}, {"1e400", "-1e400"}, {"-1e400", "1e400"}} {
			score = append(score, C("ZRANGE", "k", r[0], r[1], "BYSCORE"), C("ZRANGE", "k", r[0], r[1], "BYSCORE", "WITHSCORES"),
				C("ZRANGE", "k", r[1], r[0], "BYSCORE", "REV", "WITHSCORES"), C("ZRANGEBYSCORE", "k", r[0], r[1], "WITHSCORES"),
				C("ZREVRANGEBYSCORE", "k", r[1], r[0], "WITHSCORES"))
			for _, lim := range [][2]string{{"0", "1"}, {"1", "2"}, {"2", "-1"}, {"-1", "2"}, {"0", "0"}, {"7", "5"}, {"8", "1"}, {"100", "5"}, {"1", "9223372036854775807"}} {
				score = append(score, C("ZRANGE", "k", r[0], r[1], "BYSCORE", "LIMIT", lim[0], lim[1]),
					C("ZREVRANGEBYSCORE", "k", r[1], r[0], "LIMIT", lim[0], lim[1], "WITHSCORES"))
			}
		}
		lexc := []Cmd{}
		for _, r := range [][2]string{{"-", "+"}, {"[a", "[c"}, {"(a", "(c"}, {"[b", "(c"}, {"[", "[a"}, {"(", "+"}, {"[c", "[a"}, {"+", "-"},
			{"-", "-"}, {"[bb", "[bb"}, {"(bb", "[bb"}, {"[z", "+"}, {"-", "[\x00"}} {
			lexc = append(lexc, C("ZRANGE", "l", r[0], r[1], "BYLEX"), C("ZRANGE", "l", r[1], r[0], "BYLEX", "REV"),
				C("ZRANGEBYLEX", "l", r[0], r[1]), C("ZREVRANGEBYLEX", "l", r[1], r[0]))
			for _, lim := range [][2]string{{"0", "2"}, {"1", "-1"}, {"-1", "1"}, {"3", "0"}} {
				lexc = append(lexc, C("ZRANGE", "l", r[0], r[1], "BYLEX", "LIMIT", lim[0], lim[1]), C("ZREVRANGEBYLEX", "l", r[1], r[0], "LIMIT", lim[0], lim[1]))
			}
		}
		cases = append(cases, Case{Name: "by rank " + enc.name, Cmds: append(setup, rank...)},
			Case{Name: "by score " + enc.name, Cmds: append(setup, score...)},
			Case{Name: "by lex " + enc.name, Cmds: append(setup, lexc...)})
	}
	cases = append(cases,
		Case{Name: "errors", Cmds: []Cmd{k,
			C("ZRANGE", "k", "0", "-1", "LIMIT", "0", "1"), C("ZRANGE", "k", "0", "-1", "LIMIT", "0", "-1"), C("ZRANGE", "k", "0", "-1", "LIMIT", "5", "-1", "WITHSCORES"),
			C("ZRANGE", "k", "-", "+", "BYLEX", "WITHSCORES"), C("ZRANGE", "k", "-", "+", "WITHSCORES", "BYLEX"), C("ZRANGE", "k", "0", "1", "LIMIT", "0", "1", "BYLEX", "WITHSCORES"),
			C("ZRANGE", "k", "x", "1", "BYSCORE"), C("ZRANGE", "k", "1", "x", "BYSCORE"), C("ZRANGE", "k", "a", "b", "BYLEX"), C("ZRANGE", "k", "0", "1", "BYLEX"),
			C("ZRANGE", "k", "x", "1"), C("ZRANGE", "k", "0", "1.5"), C("ZRANGE", "k", "9223372036854775808", "1"),
			C("ZRANGE", "k", "0", "1", "LIMIT"), C("ZRANGE", "k", "0", "1", "LIMIT", "1"), C("ZRANGE", "k", "0", "1", "BYSCORE", "LIMIT", "x", "1"),
			C("ZRANGE", "k", "0", "1", "BYSCORE", "LIMIT", "1", "x"), C("ZRANGE", "k", "0", "1", "LIMIT", "x", "1"),
			C("ZRANGE", "k", "0", "1", "BYSCORE", "BYSCORE"), C("ZRANGE", "k", "0", "1", "BYSCORE", "BYLEX"), C("ZRANGE", "k", "0", "1", "REV", "REV"),
			C("ZRANGE", "k", "0", "1", "foo"), C("ZRANGE", "k", "0", "1", "WITHSCORES", "WITHSCORES"), C("ZRANGE", "k", "0"),
			C("ZRANGE", "k", "0", "1", "BYSCORE", "LIMIT", "0", "1", "LIMIT", "1", "1", "WITHSCORES"),
			C("ZRANGEBYSCORE", "k", "-inf", "+inf", "BYLEX"), C("ZRANGEBYSCORE", "k", "-inf", "+inf", "REV"), C("ZRANGEBYSCORE", "k", "-inf", "+inf", "BYSCORE"),
			C("ZRANGEBYSCORE", "k", "0"), C("ZRANGEBYSCORE", "k", "0", "1", "LIMIT", "1"),
			C("ZRANGEBYLEX", "k", "-", "+", "WITHSCORES"), C("ZRANGEBYLEX", "k", "-", "+", "BYSCORE"), C("ZREVRANGEBYLEX", "k", "a", "+"),
			C("ZREVRANGE", "k", "0", "1", "LIMIT", "0", "1"), C("ZREVRANGE", "k", "0", "1", "BYSCORE"), C("ZREVRANGE", "k", "0", "1", "REV"),
			C("ZREVRANGE", "k", "0"), C("ZREVRANGEBYSCORE", "k", "x", "0")}},
		Case{Name: "missing key and wrong type", Cmds: []Cmd{C("ZRANGE", "nokey", "0", "-1"), C("ZRANGE", "nokey", "0", "-1", "foo"), C("ZRANGE", "nokey", "x", "y"),
			C("ZRANGEBYSCORE", "nokey", "x", "1"), C("ZRANGEBYLEX", "nokey", "-", "+"), C("SET", "s", "v"), C("ZRANGE", "s", "0", "-1"),
			C("ZRANGE", "s", "x", "-1"), C("ZRANGE", "s", "0", "-1", "LIMIT", "0", "1"), C("ZRANGE", "s", "0", "-1", "BYSCORE", "LIMIT", "0", "1"),
			C("ZREVRANGE", "s", "0", "1"), C("ZRANGEBYLEX", "s", "-", "+"), C("ZRANGEBYLEX", "s", "x", "+"), C("ZREVRANGEBYSCORE", "s", "1", "0")}},
		Case{Name: "lex on unequal scores listpack", Cmds: []Cmd{C("ZADD", "k", "1", "b", "2", "a", "3", "d", "4", "c"),
			C("ZRANGEBYLEX", "k", "[a", "[c"), C("ZRANGEBYLEX", "k", "[b", "+"), C("ZRANGEBYLEX", "k", "-", "[b"), C("ZREVRANGEBYLEX", "k", "[c", "[a"),
			C("ZREVRANGEBYLEX", "k", "+", "[b"), C("ZRANGEBYLEX", "k", "[c", "[d"), C("ZRANGEBYLEX", "k", "(a", "+", "LIMIT", "1", "1")}},
		Case{Name: "options case insensitive", Cmds: []Cmd{k, C("zrange", "k", "(1", "4", "byScore", "Rev", "wIthscores", "LiMiT", "0", "2"),
			C("zrangebyscore", "k", "1", "4", "withSCORES", "limit", "1", "1")}},
		Case{Name: "large counts", Cmds: []Cmd{zsBig("k", "m", 1000, zsHalf), C("ZRANGE", "k", "0", "-1", "WITHSCORES"), C("ZRANGE", "k", "100", "899", "REV"),
			C("ZRANGEBYSCORE", "k", "(10", "200", "LIMIT", "50", "300", "WITHSCORES"), C("ZREVRANGEBYSCORE", "k", "200", "(10", "LIMIT", "50", "300")}},
	)
	runCases(t, cases)
}

func TestZsetRangeStore(t *testing.T) {
	k := C("ZADD", "k", "1", "a", "2", "b", "3", "c", "4", "d")
	runCases(t, []Case{
		{Name: "forms", Cmds: []Cmd{k, C("ZRANGESTORE", "d", "k", "0", "-1"), zsAll("d"), C("ZRANGESTORE", "d", "k", "1", "2", "REV"), zsAll("d"),
			C("ZRANGESTORE", "d", "k", "(1", "3", "BYSCORE"), zsAll("d"), C("ZRANGESTORE", "d", "k", "4", "1", "BYSCORE", "REV", "LIMIT", "1", "2"), zsAll("d"),
			C("ZADD", "l", "0", "a", "0", "b", "0", "c"), C("ZRANGESTORE", "d", "l", "[b", "+", "BYLEX"), zsAll("d"),
			C("ZRANGESTORE", "d", "l", "+", "-", "BYLEX", "REV", "LIMIT", "0", "2"), zsAll("d")}},
		{Name: "empty result deletes destination", Cmds: []Cmd{k, C("SET", "d", "v"), C("ZRANGESTORE", "d", "k", "5", "6"), C("EXISTS", "d"),
			C("ZADD", "d", "1", "x"), C("ZRANGESTORE", "d", "k", "10", "20", "BYSCORE"), C("EXISTS", "d"), C("ZRANGESTORE", "d", "nokey", "0", "-1"),
			C("SET", "d", "v"), C("ZRANGESTORE", "d", "nokey", "0", "-1"), C("EXISTS", "d")}},
		{Name: "overwrites and drops ttl", Cmds: []Cmd{k, C("SET", "d", "v", "EX", "100"), C("ZRANGESTORE", "d", "k", "0", "0"), C("TYPE", "d"), C("TTL", "d"),
			C("EXPIRE", "d", "100"), C("ZRANGESTORE", "d", "k", "0", "1"), C("TTL", "d"), zsAll("d")}},
		{Name: "source is destination", Cmds: []Cmd{k, C("ZRANGESTORE", "k", "k", "1", "2"), zsAll("k"), C("ZRANGESTORE", "k", "k", "5", "6"), C("EXISTS", "k")}},
		{Name: "errors", Cmds: []Cmd{k, C("ZRANGESTORE"), C("ZRANGESTORE", "d", "k", "0"), C("ZRANGESTORE", "d", "k", "0", "-1", "WITHSCORES"),
			C("ZRANGESTORE", "d", "k", "0", "-1", "LIMIT", "0", "1"), C("ZRANGESTORE", "d", "k", "x", "1", "BYSCORE"), C("ZRANGESTORE", "d", "k", "a", "b", "BYLEX"),
			C("ZRANGESTORE", "d", "k", "0", "x"), C("ZRANGESTORE", "d", "k", "0", "1", "foo"), C("SET", "s", "v"), C("ZRANGESTORE", "d", "s", "0", "1"),
			C("ZRANGESTORE", "s", "k", "0", "1"), C("TYPE", "s"), C("EXISTS", "d")}},
		{Name: "encodings", Cmds: []Cmd{zsBig("big", "m", 300, zsHalf), C("ZRANGESTORE", "d", "big", "0", "127"), C("OBJECT", "ENCODING", "d"),
			C("ZRANGESTORE", "d", "big", "0", "128"), C("OBJECT", "ENCODING", "d"), C("ZRANGESTORE", "d", "big", "-inf", "+inf", "BYSCORE", "LIMIT", "0", "128"),
			C("OBJECT", "ENCODING", "d"), C("ZADD", "long", "1", strings.Repeat("x", 65), "2", "y"), C("ZRANGESTORE", "d", "long", "0", "-1"), C("OBJECT", "ENCODING", "d"),
			C("ZRANGESTORE", "d", "long", "1", "1"), C("OBJECT", "ENCODING", "d")}},
	})
}

func TestZsetRank(t *testing.T) {
	runCases(t, []Case{
		{Name: "rank", Cmds: []Cmd{C("ZADD", "k", "1", "a", "2", "b", "2", "c", "3", "d"), C("ZRANK", "k", "a"), C("ZRANK", "k", "c"), C("ZREVRANK", "k", "a"),
			C("ZREVRANK", "k", "c"), C("ZRANK", "k", "x"), C("ZREVRANK", "k", "x"), C("ZRANK", "nokey", "a"), C("ZREVRANK", "nokey", "a")}},
		{Name: "rank large", Cmds: []Cmd{zsBig("k", "m", 500, zsHalf), C("ZRANK", "k", "m0"), C("ZRANK", "k", "m250"), C("ZRANK", "k", "m499"),
			C("ZREVRANK", "k", "m0"), C("ZREVRANK", "k", "m250"), C("ZREVRANK", "k", "m499"), C("ZRANK", "k", "m500")}},
		{Name: "errors", Cmds: []Cmd{C("ZRANK", "k"), C("ZRANK", "k", "a", "WITHSCORE"), C("ZREVRANK", "k", "a", "WITHSCORE"), C("ZREVRANK"),
			C("SET", "s", "v"), C("ZRANK", "s", "a"), C("ZREVRANK", "s", "a")}},
	})
}

func TestZsetRemRange(t *testing.T) {
	k := C("ZADD", "k", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e")
	l := C("ZADD", "l", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e")
	var cases []Case
	for _, enc := range []struct {
		name string
		big  []Cmd
	}{{"listpack", nil}, {"skiplist", []Cmd{zsBig("k", "zz", 200, func(int) string { return "10" }), zsBig("l", "zz", 200, zsZero)}}} {
		setup := append([]Cmd{k, l}, enc.big...)
		for _, r := range [][2]string{{"0", "0"}, {"1", "2"}, {"-2", "-1"}, {"-100", "1"}, {"3", "1"}, {"10", "20"}, {"0", "-1"}, {"300", "400"}, {"-1000", "-999"}} {
			cases = append(cases, Case{Name: "byrank " + r[0] + " " + r[1] + " " + enc.name, Cmds: append(setup, C("ZREMRANGEBYRANK", "k", r[0], r[1]), zsAll("k"), C("EXISTS", "k"))})
		}
		for _, r := range [][2]string{{"1", "2"}, {"(1", "(3"}, {"-inf", "+inf"}, {"3", "1"}, {"(2", "2"}, {"6", "9"}, {"-inf", "(1"}, {"4", "inf"}} {
			cases = append(cases, Case{Name: "byscore " + r[0] + " " + r[1] + " " + enc.name, Cmds: append(setup, C("ZREMRANGEBYSCORE", "k", r[0], r[1]), zsAll("k"), C("EXISTS", "k"))})
		}
		for _, r := range [][2]string{{"[a", "[b"}, {"(a", "(d"}, {"-", "+"}, {"[d", "[a"}, {"(b", "[b"}, {"[x", "+"}, {"-", "(a"}, {"[c", "+"}} {
			cases = append(cases, Case{Name: "bylex " + r[0] + " " + r[1] + " " + enc.name, Cmds: append(setup, C("ZREMRANGEBYLEX", "l", r[0], r[1]), zsAll("l"), C("EXISTS", "l"))})
		}
	}
	cases = append(cases,
		Case{Name: "empties the key", Cmds: []Cmd{k, C("ZREMRANGEBYRANK", "k", "0", "-1"), C("EXISTS", "k"), k, C("ZREMRANGEBYSCORE", "k", "-inf", "+inf"), C("EXISTS", "k"),
			l, C("ZREMRANGEBYLEX", "l", "-", "+"), C("EXISTS", "l")}},
		Case{Name: "keeps encoding", Cmds: []Cmd{zsBig("k", "m", 200, zsInt), C("ZREMRANGEBYRANK", "k", "0", "-3"), C("OBJECT", "ENCODING", "k"), zsAll("k")}},
		Case{Name: "errors", Cmds: []Cmd{k, C("ZREMRANGEBYRANK", "k", "x", "1"), C("ZREMRANGEBYRANK", "k", "0", "1.5"), C("ZREMRANGEBYRANK", "k", "0"),
			C("ZREMRANGEBYSCORE", "k", "x", "1"), C("ZREMRANGEBYSCORE", "k", "(", "(("), C("ZREMRANGEBYLEX", "k", "a", "b"), C("ZREMRANGEBYLEX", "k", "-", "b"),
			C("SET", "s", "v"), C("ZREMRANGEBYRANK", "s", "0", "1"), C("ZREMRANGEBYRANK", "s", "x", "1"), C("ZREMRANGEBYSCORE", "s", "0", "1"),
			C("ZREMRANGEBYSCORE", "s", "x", "1"), C("ZREMRANGEBYLEX", "s", "-", "+"), C("ZREMRANGEBYLEX", "s", "x", "+"),
			C("ZREMRANGEBYRANK", "nokey", "0", "1"), C("ZREMRANGEBYRANK", "nokey", "x", "1"), C("ZREMRANGEBYSCORE", "nokey", "0", "1"), C("ZREMRANGEBYLEX", "nokey", "-", "+"),
			C("ZREMRANGEBYRANK", "k", "9223372036854775807", "-9223372036854775808"), zsAll("k")}},
	)
	runCases(t, cases)
}

func TestZsetPop(t *testing.T) {
	k := C("ZADD", "k", "1", "a", "2", "b", "3", "c", "4", "d")
	runCases(t, []Case{
		{Name: "zpopmin zpopmax", Cmds: []Cmd{k, C("ZPOPMIN", "k"), C("ZPOPMAX", "k"), C("ZPOPMIN", "k", "1"), C("ZPOPMIN", "k", "5"), C("EXISTS", "k"),
			C("ZPOPMIN", "k"), C("ZPOPMAX", "k", "3")}},
		{Name: "counts", Cmds: []Cmd{k, C("ZPOPMIN", "k", "0"), C("ZPOPMAX", "k", "2"), C("ZPOPMIN", "k", "9223372036854775807"), C("EXISTS", "k"),
			C("ZPOPMIN", "nokey", "0"), C("ZPOPMIN", "nokey", "3")}},
		{Name: "errors", Cmds: []Cmd{k, C("ZPOPMIN"), C("ZPOPMIN", "k", "-1"), C("ZPOPMAX", "k", "x"), C("ZPOPMIN", "k", "1.5"), C("ZPOPMIN", "k", "1", "2"),
			C("ZPOPMIN", "nokey", "-1"), C("SET", "s", "v"), C("ZPOPMIN", "s"), C("ZPOPMAX", "s", "0"), C("ZPOPMIN", "s", "-1"), C("ZPOPMIN", "s", "1", "2"), zsAll("k")}},
		{Name: "large", Cmds: []Cmd{zsBig("k", "m", 300, zsHalf), C("ZPOPMIN", "k", "3"), C("ZPOPMAX", "k", "3"), C("ZPOPMAX", "k", "200"), C("OBJECT", "ENCODING", "k"),
			C("ZCARD", "k"), C("ZPOPMIN", "k", "1000"), C("EXISTS", "k")}},
		{Name: "zmpop", Cmds: []Cmd{k, C("ZADD", "k2", "5", "x", "6", "y"), C("ZMPOP", "1", "k", "MIN"), C("ZMPOP", "2", "nokey", "k2", "MAX", "COUNT", "1"),
			C("ZMPOP", "3", "nokey", "k", "k2", "min", "count", "10"), C("EXISTS", "k"), C("ZMPOP", "2", "nokey", "k2", "max", "COUNT", "10"),
			C("ZMPOP", "2", "nokey", "k2", "max"), C("ZMPOP", "1", "nokey", "MIN", "COUNT", "9223372036854775807")}},
		{Name: "zmpop errors", Cmds: []Cmd{k, C("ZMPOP"), C("ZMPOP", "1"), C("ZMPOP", "1", "k"), C("ZMPOP", "0", "k", "MIN"), C("ZMPOP", "-1", "k", "MIN"),
			C("ZMPOP", "x", "k", "MIN"), C("ZMPOP", "2", "k", "MIN"), C("ZMPOP", "3", "k", "MIN"), C("ZMPOP", "9223372036854775807", "k", "MIN"),
			C("ZMPOP", "9223372036854775808", "k", "MIN"), C("ZMPOP", "1", "k", "foo"), C("ZMPOP", "1", "k", "MIN", "COUNT"), C("ZMPOP", "1", "k", "MIN", "COUNT", "0"),
			C("ZMPOP", "1", "k", "MIN", "COUNT", "-1"), C("ZMPOP", "1", "k", "MIN", "COUNT", "x"), C("ZMPOP", "1", "k", "MIN", "COUNT", "1", "COUNT", "1"),
			C("ZMPOP", "1", "k", "MIN", "foo"), C("ZMPOP", "1", "k", "MIN\x00"), C("SET", "s", "v"), C("ZMPOP", "2", "nokey", "s", "MIN"),
			C("ZMPOP", "2", "k", "s", "MIN"), C("ZMPOP", "2", "s", "k", "MIN"), C("ZMPOP", "1", "s", "MIN", "COUNT", "0"), zsAll("k")}},
	})
}

// zsRandCheck compares ZRANDMEMBER replies by shape: the same type and
// length as Redis's, every member (and score) from the set given as
// member, score pairs, distinct members when distinct, and when the
// count covers the set, Redis's exact reply (the whole set, highest score
// first).
func zsRandCheck(set []string, distinct, withScores bool) func(rds, lkv *Reply) error {
	scores := map[string]string{}
	for i := 0; i+1 < len(set); i += 2 {
		scores[set[i]] = set[i+1]
	}
	return func(rds, lkv *Reply) error {
		if rds.Type != lkv.Type || rds.Null != lkv.Null {
			return fmt.Errorf("type %q null %v vs %q null %v", rds.Type, rds.Null, lkv.Type, lkv.Null)
		}
		if lkv.Type == '$' {
			if _, ok := scores[lkv.Str]; !ok && !lkv.Null {
				return fmt.Errorf("%q is not a member", lkv.Str)
			}
			return nil
		}
		if len(rds.Elems) != len(lkv.Elems) {
			return fmt.Errorf("%d elements vs %d", len(rds.Elems), len(lkv.Elems))
		}
		step := 1
		if withScores {
			step = 2
		}
		elems := flatPairs(lkv)
		if withScores && len(elems) != len(lkv.Elems) && rds.Type == '*' && len(flatPairs(rds)) == len(rds.Elems) {
			return errors.New("limitkv nests pairs where Redis does not")
		}
		seen := map[string]bool{}
		for i := 0; i+step <= len(elems); i += step {
			m := elems[i].Str
			sc, ok := scores[m]
			if !ok {
				return fmt.Errorf("%q is not a member", m)
			}
			if withScores && elems[i+1].Str != sc {
				return fmt.Errorf("%q has score %q, not %q", m, elems[i+1].Str, sc)
			}
			if distinct && seen[m] {
				return fmt.Errorf("%q repeated", m)
			}
			seen[m] = true
		}
		return nil
	}
}

func TestZsetRandMember(t *testing.T) {
	small := []string{"a", "1", "b", "2", "c", "3.5", "d", "-inf"}
	var big []string
	for i := range 200 {
		big = append(big, "m"+strconv.Itoa(i), zsHalf(i))
	}
	add := func(key string, set []string) Cmd {
		args := []string{"ZADD", key}
		for i := 0; i < len(set); i += 2 {
			args = append(args, set[i+1], set[i])
		}
		return C(args...)
	}
	var cases []Case
	for _, s := range []struct {
		name string
		set  []string
	}{{"listpack", small}, {"skiplist", big}} {
		n := len(s.set) / 2
		cmds := []Cmd{add("k", s.set), C("ZRANDMEMBER", "k").Check("member", zsRandCheck(s.set, true, false))}
		for _, c := range []int{1, 2, 3, n - 1, n, n + 1, 1000, n / 2, n / 4, -1, -2, -n, -3 * n, -1500} {
			cs := strconv.Itoa(c)
			cmds = append(cmds,
				C("ZRANDMEMBER", "k", cs).Check("shape", zsRandCheck(s.set, c > 0, false)),
				C("ZRANDMEMBER", "k", cs, "WITHSCORES").Check("shape", zsRandCheck(s.set, c > 0, true)),
				C("ZRANDMEMBER", "k", cs, "withscores").Check("shape", zsRandCheck(s.set, c > 0, true)))
		}
		cases = append(cases, Case{Name: "shapes " + s.name, Cmds: cmds})
	}
	cases = append(cases,
		Case{Name: "whole set order", Cmds: []Cmd{add("k", small), C("ZRANDMEMBER", "k", "4"), C("ZRANDMEMBER", "k", "5", "WITHSCORES"),
			add("b", big), C("ZRANDMEMBER", "b", "200", "WITHSCORES"), C("ZRANDMEMBER", "b", "9223372036854775807")}},
		Case{Name: "errors and limits", Cmds: []Cmd{add("k", small), C("ZRANDMEMBER"), C("ZRANDMEMBER", "k", "x"), C("ZRANDMEMBER", "k", "1", "x"),
			C("ZRANDMEMBER", "k", "1", "WITHSCORES", "x"), C("ZRANDMEMBER", "k", "1.5"), C("ZRANDMEMBER", "k", "0"), C("ZRANDMEMBER", "k", "0", "WITHSCORES"),
			C("ZRANDMEMBER", "k", "9223372036854775807", "WITHSCORES"), C("ZRANDMEMBER", "k", "4611686018427387904", "WITHSCORES"),
			C("ZRANDMEMBER", "k", "4611686018427387903", "WITHSCORES"), C("ZRANDMEMBER", "k", "-4611686018427387904", "WITHSCORES"),
			C("ZRANDMEMBER", "k", "-9223372036854775808", "WITHSCORES"), C("ZRANDMEMBER", "k", "-9223372036854775808"),
			C("ZRANDMEMBER", "nokey", "-9223372036854775808"), C("ZRANDMEMBER", "nokey", "-9223372036854775807", "WITHSCORES"), C("ZRANDMEMBER", "nokey"), C("ZRANDMEMBER", "nokey", "5"),
			C("ZRANDMEMBER", "nokey", "-5", "WITHSCORES"), C("ZRANDMEMBER", "nokey", "x"), C("ZRANDMEMBER", "nokey", "1", "x"),
			C("ZRANDMEMBER", "nokey", "-4611686018427387904", "WITHSCORES"), C("SET", "s", "v"), C("ZRANDMEMBER", "s"), C("ZRANDMEMBER", "s", "1"),
			C("ZRANDMEMBER", "s", "x"), C("ZRANDMEMBER", "s", "0")}},
		Case{Name: "single member", Cmds: []Cmd{C("ZADD", "k", "1", "a"), C("ZRANDMEMBER", "k"), C("ZRANDMEMBER", "k", "-3", "WITHSCORES"), C("ZRANDMEMBER", "k", "1")}},
	)
	runCases(t, cases)
}

func TestZsetScan(t *testing.T) {
	runCases(t, []Case{
		{Name: "listpack whole", Cmds: []Cmd{C("ZADD", "k", "1", "a", "2", "b", "3.5", "c", "-0", "d", "inf", "e"), C("ZSCAN", "k", "0"), C("ZSCAN", "k", "0", "COUNT", "1"),
			C("ZSCAN", "k", "12345"), C("ZSCAN", "k", "-1"), C("ZSCAN", "k", "18446744073709551615"), C("ZSCAN", "k", ""), C("ZSCAN", "k", "+0"), C("ZSCAN", "k", "007"),
			C("ZSCAN", "k", "0", "MATCH", "[ab]"), C("ZSCAN", "k", "0", "MATCH", "*", "COUNT", "100"), C("ZSCAN", "k", "0", "match", "x*", "count", "2"),
			C("ZSCAN", "k", "0", "COUNT", "9223372036854775807")}},
		{Name: "errors", Cmds: []Cmd{C("ZADD", "k", "1", "a"), C("ZSCAN", "k"), C("ZSCAN", "k", "x"), C("ZSCAN", "k", " 0"), C("ZSCAN", "k", "0 "),
			C("ZSCAN", "k", "18446744073709551616"), C("ZSCAN", "k", "0", "COUNT"), C("ZSCAN", "k", "0", "COUNT", "0"), C("ZSCAN", "k", "0", "COUNT", "-1"),
			C("ZSCAN", "k", "0", "COUNT", "x"), C("ZSCAN", "k", "0", "COUNT", "9223372036854775808"), C("ZSCAN", "k", "0", "MATCH"), C("ZSCAN", "k", "0", "TYPE", "zset"),
			C("ZSCAN", "k", "0", "NOVALUES"), C("ZSCAN", "k", "0", "foo", "bar"), C("ZSCAN", "nokey", "0"), C("ZSCAN", "nokey", "x"), C("ZSCAN", "nokey", "0", "COUNT", "0"),
			C("ZSCAN", "nokey", "0", "foo"), C("SET", "s", "v"), C("ZSCAN", "s", "0"), C("ZSCAN", "s", "x"), C("ZSCAN", "s", "0", "COUNT", "0")}},
	})
	// A skiplist set is scanned in several calls with cursors that differ
	// from Redis's; the members and scores gathered must be the same.
	rds, lkv := dialPair(t)
	scanAll := func(c *RawConn, key string, extra ...string) ([]string, int) {
		var got []string
		cursor, calls := "0", 0
		for {
			r := c.MustDo(t, append([]string{"ZSCAN", key, cursor}, extra...)...)
			calls++
			if r.IsError() || len(r.Elems) != 2 {
				t.Fatalf("%s: ZSCAN %s %s: %q", c.Name, key, cursor, r.Raw)
			}
			cursor = r.Elems[0].Str
			for i := 0; i+1 < len(r.Elems[1].Elems); i += 2 {
				got = append(got, r.Elems[1].Elems[i].Str+"="+r.Elems[1].Elems[i+1].Str)
			}
			if cursor == "0" || calls > 100000 {
				return got, calls
			}
		}
	}
	for _, c := range []*RawConn{rds, lkv} {
		c.MustDo(t, "FLUSHALL")
		args := []string{"ZADD", "big"}
		for i := range 1000 {
			args = append(args, zsHalf(i%300), "m"+strconv.Itoa(i))
		}
		args = append(args, "-0", "negz", "inf", "pinf", "-inf", "ninf", "0.1", "tenth")
		c.MustDo(t, args...)
		c.MustDo(t, zsBig("lex", "w", 500, zsZero).Args...)
	}
	for _, tc := range []struct {
		key   string
		extra []string
	}{{"big", nil}, {"big", []string{"COUNT", "1"}}, {"big", []string{"COUNT", "77"}}, {"big", []string{"MATCH", "m1*"}},
		{"big", []string{"MATCH", "*z", "COUNT", "5"}}, {"lex", nil}, {"lex", []string{"MATCH", "w4?"}}} {
		want, _ := scanAll(rds, tc.key, tc.extra...)
		got, calls := scanAll(lkv, tc.key, tc.extra...)
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(want, ",") != strings.Join(got, ",") {
			t.Errorf("ZSCAN %s %v: redis gathered %d pairs, limitkv %d (in %d calls); they differ", tc.key, tc.extra, len(want), len(got), calls)
		}
	}
	// Members present throughout are returned even when the set changes
	// between calls.
	cursor, seen := "0", map[string]bool{}
	for i := 0; ; i++ {
		r := lkv.MustDo(t, "ZSCAN", "big", cursor, "COUNT", "20")
		cursor = r.Elems[0].Str
		for j := 0; j < len(r.Elems[1].Elems); j += 2 {
			seen[r.Elems[1].Elems[j].Str] = true
		}
		lkv.MustDo(t, "ZADD", "big", zsHalf(i%300), "new"+strconv.Itoa(i))
		lkv.MustDo(t, "ZREM", "big", "new"+strconv.Itoa(i-3))
		if cursor == "0" {
			break
		}
	}
	for i := range 1000 {
		if !seen["m"+strconv.Itoa(i)] {
			t.Errorf("ZSCAN under writes missed m%d", i)
		}
	}
}

func TestZsetSetOps(t *testing.T) {
	ab := []Cmd{C("ZADD", "a", "1", "x", "2", "y", "3", "z"), C("ZADD", "b", "10", "y", "20", "z", "30", "w")}
	infs := []Cmd{C("ZADD", "i", "1", "x", "-1", "y"), C("ZADD", "j", "inf", "x", "inf", "y"), C("ZADD", "n", "-inf", "x", "-inf", "y")}
	var ops []Cmd
	for _, op := range []string{"ZUNION", "ZINTER"} {
		for _, opt := range [][]string{{}, {"AGGREGATE", "MIN"}, {"AGGREGATE", "MAX"}, {"AGGREGATE", "sum"}, {"WEIGHTS", "2", "-1"},
			{"WEIGHTS", "0", "inf"}, {"WEIGHTS", "inf", "-inf", "AGGREGATE", "MAX"}, {"WEIGHTS", "0.5", "0x10"}} {
			ops = append(ops, C(append(append([]string{op, "2", "a", "b"}, opt...), "WITHSCORES")...), C(append([]string{op, "2", "a", "b"}, opt...)...),
				C(append([]string{op + "STORE", "d", "2", "a", "b"}, opt...)...), zsAll("d"))
		}
	}
	runCases(t, []Case{
		{Name: "union inter options", Cmds: append(ab, ops...)},
		{Name: "infinities", Cmds: append(infs, C("ZUNION", "3", "i", "j", "n", "WITHSCORES"), C("ZINTER", "3", "i", "j", "n", "WITHSCORES"),
			C("ZINTER", "2", "j", "n", "WITHSCORES"), C("ZUNION", "2", "j", "n", "WEIGHTS", "-1", "1", "WITHSCORES"), C("ZUNION", "2", "j", "j", "WITHSCORES"),
			C("ZINTER", "2", "j", "j", "WEIGHTS", "1", "-1", "WITHSCORES"), C("ZINTER", "2", "j", "j", "WEIGHTS", "1", "0", "WITHSCORES"),
			C("ZINTER", "2", "j", "j", "WEIGHTS", "1", "0", "AGGREGATE", "MIN", "WITHSCORES"), C("ZINTER", "2", "j", "j", "WEIGHTS", "0", "1", "AGGREGATE", "MAX", "WITHSCORES"),
			C("ZINTER", "2", "j", "n", "WEIGHTS", "1", "0", "AGGREGATE", "MAX", "WITHSCORES"), C("ZUNION", "2", "j", "n", "WEIGHTS", "0", "0", "WITHSCORES"))},
		{Name: "summation order follows sizes", Cmds: []Cmd{C("ZADD", "A", "1e16", "m"), C("ZADD", "B", "1", "m"), C("ZADD", "C", "1", "m"),
			C("ZUNION", "3", "A", "B", "C", "WITHSCORES"), C("ZUNION", "3", "B", "C", "A", "WITHSCORES"), C("ZINTER", "3", "A", "B", "C", "WITHSCORES"),
			C("ZINTER", "3", "C", "A", "B", "WITHSCORES"), C("ZADD", "A", "0", "f1", "0", "f2"), C("ZUNION", "3", "A", "B", "C", "WITHSCORES"),
			C("ZINTER", "3", "A", "B", "C", "WITHSCORES"), C("ZADD", "B", "0", "g1", "0", "g2", "0", "g3"), C("ZUNION", "3", "A", "B", "C", "WITHSCORES"),
			C("ZINTER", "3", "A", "C", "B", "WITHSCORES"), C("ZUNIONSTORE", "d", "3", "C", "B", "A"), zsAll("d")}},
		{Name: "negative zero results", Cmds: []Cmd{C("ZADD", "k", "0", "a", "1", "b"), C("ZUNION", "1", "k", "WEIGHTS", "-1", "WITHSCORES"),
			C("ZINTER", "2", "k", "k", "WEIGHTS", "-1", "-1", "WITHSCORES"), C("ZINTER", "2", "k", "k", "WEIGHTS", "-1", "1", "WITHSCORES"),
			C("ZUNIONSTORE", "d", "1", "k", "WEIGHTS", "-1"), zsAll("d"), zsBig("big", "m", 200, zsInt), C("ZUNIONSTORE", "d", "2", "big", "k", "WEIGHTS", "-1", "-1"),
			C("ZRANGE", "d", "-3", "-1", "WITHSCORES"), C("ZINTERSTORE", "d", "1", "big", "WEIGHTS", "-1"), C("ZRANGE", "d", "-2", "-1", "WITHSCORES"),
			C("ZUNIONSTORE", "n", "1", "big", "WEIGHTS", "-1"), C("ZRANGESTORE", "d", "n", "0", "-1"), C("ZRANGE", "d", "-2", "-1", "WITHSCORES"),
			C("ZRANGESTORE", "d", "n", "-inf", "+inf", "BYSCORE"), C("ZRANGE", "d", "-2", "-1", "WITHSCORES"), C("ZRANGESTORE", "d", "n", "100", "-1"),
			C("ZRANGE", "d", "-2", "-1", "WITHSCORES"), C("ZRANGESTORE", "d", "n", "0", "-1", "REV"), C("ZRANGE", "d", "0", "1", "WITHSCORES"),
			C("ZRANGESTORE", "d", "n", "+inf", "-inf", "BYSCORE", "REV"), C("ZRANGE", "d", "0", "1", "WITHSCORES"), C("ZDIFF", "1", "n", "WITHSCORES")}},
		{Name: "same key twice", Cmds: append(ab, C("ZINTER", "2", "a", "a", "WITHSCORES"), C("ZINTER", "2", "a", "a", "WEIGHTS", "1", "2", "WITHSCORES"),
			C("ZUNION", "2", "a", "a", "WITHSCORES"), C("ZDIFF", "2", "a", "a"), C("ZDIFF", "3", "a", "b", "a"), C("ZINTERCARD", "2", "a", "a"))},
		{Name: "diff", Cmds: append(ab, C("ZDIFF", "2", "a", "b", "WITHSCORES"), C("ZDIFF", "1", "a", "WITHSCORES"), C("ZDIFF", "2", "b", "a"),
			C("ZDIFF", "3", "a", "nokey", "b", "WITHSCORES"), C("ZDIFF", "2", "nokey", "a"), C("ZDIFFSTORE", "d", "2", "a", "b"), zsAll("d"),
			C("ZDIFFSTORE", "d", "2", "a", "a"), C("EXISTS", "d"))},
		{Name: "missing keys", Cmds: append(ab, C("ZUNION", "2", "a", "nokey", "WITHSCORES"), C("ZINTER", "2", "a", "nokey"), C("ZUNION", "2", "nokey", "nokey2"),
			C("ZINTERCARD", "2", "a", "nokey"), C("ZUNIONSTORE", "d", "2", "nokey", "nokey2"), C("EXISTS", "d"))},
		{Name: "intercard", Cmds: append(ab, C("ZINTERCARD", "2", "a", "b"), C("ZINTERCARD", "2", "a", "b", "LIMIT", "1"), C("ZINTERCARD", "2", "a", "b", "LIMIT", "0"),
			C("ZINTERCARD", "2", "a", "b", "limit", "5"), C("ZINTERCARD", "1", "a"), C("ZINTERCARD", "2", "a", "b", "LIMIT", "1", "LIMIT", "2"))},
		{Name: "stores", Cmds: append(ab, C("SET", "d", "v", "EX", "100"), C("ZUNIONSTORE", "d", "2", "a", "b"), C("TYPE", "d"), C("TTL", "d"), zsAll("d"),
			C("EXPIRE", "d", "100"), C("ZINTERSTORE", "d", "2", "a", "b", "AGGREGATE", "MAX"), C("TTL", "d"), zsAll("d"),
			C("ZINTERSTORE", "d", "2", "a", "nokey"), C("EXISTS", "d"), C("SET", "d", "v"), C("ZDIFFSTORE", "d", "2", "a", "a"), C("EXISTS", "d"),
			C("ZUNIONSTORE", "a", "2", "a", "b", "WEIGHTS", "2", "1"), zsAll("a"))},
		{Name: "encodings", Cmds: []Cmd{zsBig("big", "m", 200, zsInt), C("ZADD", "s", "1", "m1", "2", "m2"), C("ZUNIONSTORE", "d", "1", "big"), C("OBJECT", "ENCODING", "d"),
			C("ZINTERSTORE", "d", "2", "big", "s"), C("OBJECT", "ENCODING", "d"), C("ZDIFFSTORE", "d", "2", "big", "s"), C("OBJECT", "ENCODING", "d"),
			C("ZREMRANGEBYRANK", "big", "0", "-129"), C("OBJECT", "ENCODING", "big"), C("ZUNIONSTORE", "d", "1", "big"), C("OBJECT", "ENCODING", "d"),
			C("ZADD", "long", "1", strings.Repeat("x", 65)), C("ZUNIONSTORE", "d", "2", "s", "long"), C("OBJECT", "ENCODING", "d"),
			C("ZINTERSTORE", "d", "2", "s", "long"), C("EXISTS", "d"), C("ZUNIONSTORE", "d", "1", "s"), C("OBJECT", "ENCODING", "d")}},
		{Name: "large", Cmds: []Cmd{zsBig("p", "m", 500, zsHalf), zsBig("q", "m", 700, zsInt), C("ZUNION", "2", "p", "q", "WITHSCORES"),
			C("ZINTER", "2", "p", "q", "WEIGHTS", "3", "0.25", "WITHSCORES"), C("ZDIFF", "2", "q", "p", "WITHSCORES"), C("ZINTERCARD", "2", "p", "q", "LIMIT", "123"),
			C("ZUNIONSTORE", "d", "2", "p", "q", "AGGREGATE", "MIN"), C("ZCARD", "d"), C("ZRANGE", "d", "0", "10", "WITHSCORES")}},
		{Name: "errors", Cmds: append(ab, C("ZUNION"), C("ZUNION", "1"), C("ZUNION", "0", "a"), C("ZUNION", "-1", "a"), C("ZUNION", "x", "a"), C("ZUNION", "2", "a"),
			C("ZUNION", "9223372036854775807", "a"), C("ZUNION", "9223372036854775808", "a"), C("ZUNION", "2", "a", "b", "WEIGHTS", "1"),
			C("ZUNION", "2", "a", "b", "WEIGHTS", "1", "x"), C("ZUNION", "2", "a", "b", "WEIGHTS", "1", "nan"), C("ZUNION", "2", "a", "b", "WEIGHTS", "1", " 2"),
			C("ZUNION", "2", "a", "b", "WEIGHTS", "1", "2", "3"), C("ZUNION", "2", "a", "b", "AGGREGATE"), C("ZUNION", "2", "a", "b", "AGGREGATE", "avg"),
			C("ZUNION", "2", "a", "b", "foo"), C("ZUNION", "2", "a", "b", "WITHSCORES", "WITHSCORES"), C("ZINTER", "0", "a"), C("ZINTER", "3", "a", "b"),
			C("ZDIFF", "0", "a"), C("ZDIFF", "2", "a", "b", "WEIGHTS", "1", "1"), C("ZDIFF", "2", "a", "b", "AGGREGATE", "SUM"), C("ZUNIONSTORE"),
			C("ZUNIONSTORE", "d", "0", "a"), C("ZUNIONSTORE", "d", "2", "a", "b", "WITHSCORES"), C("ZINTERSTORE", "d", "0", "a"), C("ZDIFFSTORE", "d", "0", "a"),
			C("ZDIFFSTORE", "d", "2", "a", "b", "WITHSCORES"), C("ZUNIONSTORE", "d", "1", "a", "WEIGHTS", "1e400"), C("ZINTERCARD", "0", "a"),
			C("ZINTERCARD", "-1", "a"), C("ZINTERCARD", "x", "a"), C("ZINTERCARD", "3", "a", "b"), C("ZINTERCARD", "2", "a", "b", "LIMIT", "-1"),
			C("ZINTERCARD", "2", "a", "b", "LIMIT", "x"), C("ZINTERCARD", "2", "a", "b", "LIMIT"), C("ZINTERCARD", "2", "a", "b", "WITHSCORES"),
			C("ZINTERCARD", "2", "a", "b", "WEIGHTS", "1", "1"), C("ZINTERCARD", "2", "a", "b", "AGGREGATE", "MIN"), C("EXISTS", "d"))},
		{Name: "wrong type", Cmds: append(ab, C("SET", "s", "v"), C("ZUNION", "2", "a", "s"), C("ZUNION", "2", "s", "a", "foo"), C("ZINTER", "2", "nokey", "s"),
			C("ZDIFF", "2", "a", "s"), C("ZINTERCARD", "2", "a", "s", "LIMIT", "x"), C("ZUNIONSTORE", "d", "2", "a", "s"), C("ZUNIONSTORE", "s", "1", "a"),
			C("TYPE", "s"), C("SET", "s", "v"), C("ZINTERSTORE", "s", "2", "a", "nokey"), C("EXISTS", "s"), C("ZUNION", "2", "a", "b", "WEIGHTS", "x", "y"))},
	})
}

// TestZsetBlocking covers the blocking pops: timeouts, clients woken by a
// write from another connection, served in the order they blocked.
func TestZsetBlocking(t *testing.T) {
	wait := Sleep(25 * time.Millisecond) // lets both servers register a blocked client
	read := func(conn int) Cmd { return Raw("").On(conn) }
	runCases(t, []Case{
		{Name: "served at once", Cmds: []Cmd{C("ZADD", "k", "1", "a", "2", "b"), C("BZPOPMIN", "nokey", "k", "0"), C("BZPOPMAX", "k", "1"), C("EXISTS", "k"),
			C("ZADD", "k", "1", "a", "2", "b", "3", "c"), C("BZMPOP", "0", "2", "nokey", "k", "MAX", "COUNT", "2"), C("BZMPOP", "0", "1", "k", "MIN", "COUNT", "5"),
			C("EXISTS", "k")}},
		// Redis notices timeouts on its 100 ms cron, so each step costs that.
		{Name: "timeouts", Cmds: []Cmd{C("BZPOPMAX", "k", "k2", "0.05"), C("BZMPOP", "0.05", "2", "k", "k2", "MAX", "COUNT", "3"),
			C("BZPOPMIN", "k", "0.0001"), C("BZPOPMIN", "k", "1e-400")}},
		{Name: "timeout errors", Cmds: []Cmd{C("BZPOPMIN", "k"), C("BZPOPMIN", "k", "x"), C("BZPOPMIN", "k", "-1"), C("BZPOPMIN", "k", "-0.5"),
			C("BZPOPMIN", "k", "nan"), C("BZPOPMIN", "k", "inf"), C("BZPOPMIN", "k", "-inf"), C("BZPOPMIN", "k", "1e400"), C("BZPOPMIN", "k", "1e4000"),
			C("BZPOPMIN", "k", "1e5000"), C("BZPOPMIN", "k", " 1"), C("BZPOPMIN", "k", "1 "), C("BZPOPMIN", "k", ""), C("BZPOPMIN", "k", "9223372036854776"),
			C("BZPOPMIN", "k", "1e20"), C("BZPOPMIN", "k", "-1e20"), C("BZPOPMAX", "k", "x"), C("BZMPOP", "x", "1", "k", "MIN"), C("BZMPOP", "-1", "1", "k", "MIN")}},
		{Name: "argument errors", Cmds: []Cmd{C("SET", "s", "v"), C("BZPOPMIN", "s", "0"), C("BZPOPMIN", "nokey", "s", "0"), C("BZPOPMIN", "s", "x"),
			C("BZPOPMAX", "s", "0"), C("ZADD", "k", "1", "a"), C("BZPOPMIN", "s", "k", "0"), C("BZPOPMIN", "k", "s", "0"), C("BZMPOP"), C("BZMPOP", "0"),
			C("BZMPOP", "0", "1", "k"), C("BZMPOP", "0", "0", "k", "MIN"), C("BZMPOP", "x", "0", "k", "MIN"), C("BZMPOP", "x", "1", "k", "foo"),
			C("BZMPOP", "x", "1", "k", "MIN", "COUNT", "0"), C("BZMPOP", "x", "2", "k", "MIN"), C("BZMPOP", "x", "1", "s", "MIN"), C("BZMPOP", "0", "1", "s", "MIN"),
			C("BZMPOP", "0.01", "2", "nokey", "s", "MIN"), C("BZMPOP", "0", "1", "k", "MIN", "COUNT", "1", "COUNT", "1")}},
		{Name: "woken by zadd", Cmds: []Cmd{C("BZPOPMIN", "k", "k2", "5").NoReply(), wait, C("ZADD", "k2", "2", "b", "1", "a").On(1), read(0),
			C("ZRANGE", "k2", "0", "-1", "WITHSCORES").On(1)}},
		{Name: "woken bzpopmax", Cmds: []Cmd{C("BZPOPMAX", "k", "0").NoReply(), wait, C("ZADD", "k", "2", "b", "1", "a").On(1), read(0), zsAll("k").On(1)}},
		{Name: "woken bzmpop", Cmds: []Cmd{C("BZMPOP", "5", "2", "k", "k2", "MAX", "COUNT", "2").NoReply(), wait, C("ZADD", "k2", "3", "c", "2", "b", "1", "a").On(1),
			read(0), zsAll("k2").On(1)}},
		{Name: "two clients served in order", Cmds: []Cmd{C("BZPOPMAX", "q", "5").NoReply(), wait, C("BZMPOP", "5", "1", "q", "MAX", "COUNT", "2").On(1).NoReply(), wait,
			C("BZPOPMIN", "q", "5").On(2).NoReply(), wait, C("ZADD", "q", "1", "a", "2", "b", "3", "c", "4", "d").On(3), read(0), read(1), read(2), C("EXISTS", "q").On(3)}},
		{Name: "second client waits for the next add", Cmds: []Cmd{C("BZPOPMIN", "r", "5").NoReply(), wait, C("BZPOPMIN", "r", "5").On(1).NoReply(), wait,
			C("ZADD", "r", "1", "a").On(2), read(0), C("EXISTS", "r").On(2), C("ZADD", "r", "2", "b").On(2), read(1)}},
		{Name: "waiter outlives its timeout sibling", Cmds: []Cmd{C("BZPOPMIN", "r", "0.1").NoReply(), C("BZPOPMIN", "r", "5").On(1).NoReply(),
			Sleep(200 * time.Millisecond), read(0), C("ZADD", "r", "1", "a").On(2), read(1)}},
		{Name: "wrong type key then zadd", Cmds: []Cmd{C("BZPOPMIN", "s", "t", "5").NoReply(), wait, C("SET", "s", "x").On(1), C("ZADD", "t", "1", "a").On(1), read(0)}},
		{Name: "overwrite with store does not wake", Cmds: []Cmd{C("ZADD", "src", "1", "m"), C("BZPOPMIN", "s", "0.2").NoReply(), wait, C("SET", "s", "x").On(1),
			C("ZUNIONSTORE", "s", "1", "src").On(1), read(0), C("TYPE", "s").On(1)}},
		{Name: "woken by stores and zincrby", Cmds: []Cmd{C("ZADD", "src", "1", "m", "2", "n"), C("BZPOPMIN", "s", "5").NoReply(), wait,
			C("ZUNIONSTORE", "s", "1", "src").On(1), read(0), C("BZPOPMAX", "t", "5").NoReply(), wait, C("ZRANGESTORE", "t", "src", "0", "-1").On(1), read(0),
			C("BZMPOP", "5", "1", "u", "MIN").NoReply(), wait, C("ZINCRBY", "u", "5", "x").On(1), read(0),
			C("BZPOPMIN", "v", "5").NoReply(), wait, C("ZINTERSTORE", "v", "2", "src", "src").On(1), read(0),
			C("BZPOPMIN", "w", "5").NoReply(), wait, C("ZDIFFSTORE", "w", "1", "src").On(1), read(0)}},
		{Name: "add and remove in multi keeps waiting", Cmds: []Cmd{C("BZPOPMIN", "u", "0.2").NoReply(), wait, C("MULTI").On(1), C("ZADD", "u", "1", "a").On(1),
			C("ZREM", "u", "a").On(1), C("EXEC").On(1), read(0)}},
		{Name: "multi and script do not block", Cmds: []Cmd{C("MULTI"), C("BZPOPMIN", "nokey", "0"), C("BZMPOP", "0", "1", "nokey", "MAX"), C("BZPOPMAX", "nokey", "0"), C("EXEC"),
			C("EVAL", "return redis.call('bzmpop', '0', '1', 'nokey', 'min')", "0"), C("EVAL", "return redis.call('bzpopmin', 'nokey', '0')", "0")}},
		{Name: "served from the key that became ready", Cmds: []Cmd{C("BZPOPMIN", "ka", "kb", "5").NoReply(), wait, C("MULTI").On(1), C("ZADD", "kb", "1", "x").On(1), C("ZADD", "ka", "1", "y").On(1),
			C("EXEC").On(1), read(0)}},
		{Name: "bzmpop served from the key that became ready", Cmds: []Cmd{C("BZMPOP", "5", "2", "ka", "kb", "MAX").NoReply(), wait, C("MULTI").On(1),
			C("ZADD", "kb", "1", "x", "2", "z").On(1), C("ZADD", "ka", "1", "y").On(1), C("EXEC").On(1), read(0), zsAll("ka").On(1), zsAll("kb").On(1)}},
		{Name: "ready key taken by an earlier waiter", Cmds: []Cmd{C("BZPOPMIN", "ka", "kb", "5").NoReply(), wait, C("BZPOPMIN", "kb", "0.3").On(2).NoReply(), wait,
			C("MULTI").On(1), C("ZADD", "kb", "1", "x").On(1), C("ZADD", "ka", "1", "y").On(1), C("EXEC").On(1), read(0), read(2), zsAll("ka").On(1)}},
		{Name: "served in multi", Cmds: []Cmd{C("ZADD", "k", "1", "a"), C("MULTI"), C("BZPOPMIN", "k", "0"), C("BZPOPMIN", "k", "0"), C("EXEC")}},
	})
}

func TestZsetTTL(t *testing.T) {
	runCases(t, []Case{
		{Name: "expired before read", Cmds: []Cmd{C("ZADD", "k", "1", "a", "2", "b"), C("PEXPIRE", "k", "40"), C("ZCARD", "k"), Sleep(80 * time.Millisecond),
			C("ZCARD", "k"), C("ZRANGE", "k", "0", "-1"), C("ZSCORE", "k", "a"), C("EXISTS", "k"), C("ZADD", "k", "XX", "1", "a"), C("TTL", "k")}},
		{Name: "expired then recreated has no ttl", Cmds: []Cmd{C("ZADD", "k", "1", "a"), C("PEXPIRE", "k", "30"), Sleep(60 * time.Millisecond),
			C("ZADD", "k", "2", "b"), zsAll("k"), C("TTL", "k")}},
		{Name: "expired source of a store", Cmds: []Cmd{C("ZADD", "a", "1", "x"), C("ZADD", "b", "2", "x"), C("PEXPIRE", "b", "30"), Sleep(60 * time.Millisecond),
			C("ZUNIONSTORE", "d", "2", "a", "b"), zsAll("d"), C("ZINTERSTORE", "d", "2", "a", "b"), C("EXISTS", "d"), C("ZRANGESTORE", "d", "b", "0", "-1"),
			C("ZRANDMEMBER", "b"), C("ZSCAN", "b", "0"), C("ZMPOP", "2", "b", "a", "MIN")}},
		{Name: "expired destination", Cmds: []Cmd{C("ZADD", "a", "1", "x"), C("SET", "d", "v", "PX", "30"), Sleep(60 * time.Millisecond),
			C("ZUNIONSTORE", "d", "1", "a"), C("TTL", "d"), C("SET", "e", "v", "PX", "30"), Sleep(60 * time.Millisecond), C("ZINTERSTORE", "e", "2", "a", "nokey"),
			C("EXISTS", "e")}},
		{Name: "writes keep the ttl", Cmds: []Cmd{C("ZADD", "k", "1", "a", "2", "b", "3", "c"), C("EXPIRE", "k", "100"), C("ZREM", "k", "a"),
			C("ZREMRANGEBYSCORE", "k", "3", "3"), C("ZPOPMIN", "k", "0"), C("ZINCRBY", "k", "1", "x"), C("TTL", "k").TTLApprox(1), C("PERSIST", "k"), C("TTL", "k")}},
		{Name: "emptied key loses ttl", Cmds: []Cmd{C("ZADD", "k", "1", "a"), C("EXPIRE", "k", "100"), C("ZPOPMIN", "k"), C("TTL", "k"), C("ZADD", "k", "1", "a"), C("TTL", "k")}},
		{Name: "blocking pop on expired key times out", Cmds: []Cmd{C("ZADD", "k", "1", "a"), C("PEXPIRE", "k", "30"), Sleep(60 * time.Millisecond),
			C("BZPOPMIN", "k", "0.05")}},
	})
}

// TestZsetEncoding checks OBJECT ENCODING around the listpack thresholds:
// 128 entries, 64-byte members.
func TestZsetEncoding(t *testing.T) {
	enc := func(key string) Cmd { c := C("OBJECT", "ENCODING", key); c.where = caller(); return c }
	runCases(t, []Case{
		{Name: "128 entries", Cmds: []Cmd{zsBig("k", "m", 128, zsInt), enc("k"), C("ZADD", "k", "1", "m0"), enc("k"), C("ZADD", "k", "1", "x"), enc("k"),
			C("ZREM", "k", "x", "m1", "m2"), enc("k"), C("ZCARD", "k")}},
		{Name: "129 entries at once", Cmds: []Cmd{zsBig("k", "m", 129, zsInt), enc("k")}},
		{Name: "64 byte members", Cmds: []Cmd{C("ZADD", "k", "1", strings.Repeat("a", 64)), enc("k"), C("ZADD", "k", "1", strings.Repeat("b", 65)), enc("k"),
			C("ZADD", "n", "1", strings.Repeat("b", 65)), enc("n"), C("ZADD", "p", "1", "a", "2", strings.Repeat("b", 65)), enc("p"),
			C("ZADD", "q", "XX", "1", strings.Repeat("b", 65)), enc("q")}},
		{Name: "zincrby and incr convert", Cmds: []Cmd{C("ZINCRBY", "k", "1", strings.Repeat("c", 65)), enc("k"), zsBig("j", "m", 128, zsInt),
			C("ZADD", "j", "INCR", "1", "new"), enc("j")}},
		{Name: "stays skiplist when shrinking", Cmds: []Cmd{zsBig("k", "m", 200, zsInt), enc("k"), C("ZREMRANGEBYRANK", "k", "0", "-2"), enc("k"), C("ZCARD", "k"),
			C("ZPOPMIN", "k"), C("EXISTS", "k")}},
		{Name: "wrong types", Cmds: []Cmd{C("SET", "s", "123"), enc("s"), C("ZADD", "z", "1", "a"), enc("z"), enc("nokey")}},
		{Name: "config set thresholds",
			Cmds: []Cmd{C("CONFIG", "SET", "zset-max-listpack-entries", "4"), zsBig("k", "m", 5, zsInt), enc("k"), C("CONFIG", "SET", "zset-max-listpack-value", "2"),
				C("ZADD", "v", "1", "abc"), enc("v"), C("CONFIG", "SET", "zset-max-listpack-entries", "128"), C("CONFIG", "SET", "zset-max-listpack-value", "64")}},
	})
}

// TestZsetWatch checks which writes invalidate a WATCH: only those that
// changed something, and only the keys they changed.
func TestZsetWatch(t *testing.T) {
	z := []Cmd{C("ZADD", "k", "1", "a", "2", "b")}
	runCases(t, []Case{
		zsWatchCase("zincrby zero", z, C("ZINCRBY", "k", "0", "a")),
		zsWatchCase("zincrby", z, C("ZINCRBY", "k", "1", "a")),
		zsWatchCase("zincrby zero creates", nil, C("ZINCRBY", "k", "0", "a")),
		zsWatchCase("zadd gt not applied", z, C("ZADD", "k", "GT", "0", "a")),
		zsWatchCase("zadd incr gt not applied", z, C("ZADD", "k", "INCR", "GT", "-1", "a")),
		zsWatchCase("zadd same scores", z, C("ZADD", "k", "2", "b", "1", "a")),
		zsWatchCase("zadd one changed", z, C("ZADD", "k", "2", "b", "3", "a")),
		zsWatchCase("zadd error", z, C("ZADD", "k", "x", "a")),
		zsWatchCase("zadd xx missing member", z, C("ZADD", "k", "XX", "5", "zz")),
		zsWatchCase("zrem some", z, C("ZREM", "k", "a", "x")),
		zsWatchCase("zremrangebyrank none", z, C("ZREMRANGEBYRANK", "k", "5", "6")),
		zsWatchCase("zremrangebylex none", z, C("ZREMRANGEBYLEX", "k", "[x", "[y")),
		zsWatchCase("zpopmin zero", z, C("ZPOPMIN", "k", "0")),
		zsWatchCase("zpopmin other key", z, C("ZPOPMIN", "k2")),
		zsWatchCase("zpopmax", z, C("ZPOPMAX", "k")),
		zsWatchCase("zmpop", z, C("ZMPOP", "2", "k2", "k", "MIN")),
		zsWatchCase("zmpop other key", append(z, C("ZADD", "k2", "1", "x")), C("ZMPOP", "2", "k2", "k", "MIN")),
		zsWatchCase("zmpop nothing", z, C("ZMPOP", "1", "k2", "MIN")),
		zsWatchCase("bzpopmin", z, C("BZPOPMIN", "k2", "k", "0")),
		// Inside MULTI a blocking pop that finds nothing answers null and
		// changes nothing, so the watch holds.
		zsWatchCase("bzpopmin empty in multi", nil, C("MULTI"), C("BZPOPMIN", "k", "d", "0"), C("BZPOPMAX", "k", "0"),
			C("BZMPOP", "0", "2", "k", "d", "MIN"), C("EXEC")),
		zsWatchCase("bzpopmin other key", append(z, C("ZADD", "k2", "1", "x")), C("BZPOPMIN", "k2", "k", "0")),
		zsWatchCase("bzmpop", z, C("BZMPOP", "0", "2", "k2", "k", "MIN")),
		zsWatchCase("bzmpop other key", append(z, C("ZADD", "k2", "1", "x")), C("BZMPOP", "0", "2", "k2", "k", "MAX")),
		zsWatchCase("zunionstore empty on missing", z, C("ZUNIONSTORE", "d", "1", "nokey")),
		zsWatchCase("zunionstore empty deletes", append(z, C("SET", "d", "x")), C("ZUNIONSTORE", "d", "1", "nokey")),
		zsWatchCase("zunionstore source only", z, C("ZUNIONSTORE", "x", "1", "k")),
		zsWatchCase("zinterstore destination", z, C("ZINTERSTORE", "d", "1", "k")),
		zsWatchCase("zdiffstore destination", z, C("ZDIFFSTORE", "d", "1", "k")),
		zsWatchCase("zrangestore empty", z, C("ZRANGESTORE", "d", "k", "5", "6")),
		zsWatchCase("zrangestore", z, C("ZRANGESTORE", "d", "k", "0", "-1")),
		zsWatchCase("zrangestore source only", z, C("ZRANGESTORE", "x", "k", "0", "-1")),
		zsWatchCase("reads", z, C("ZRANGE", "k", "0", "-1"), C("ZRANDMEMBER", "k").Ignore(), C("ZSCAN", "k", "0"), C("ZUNION", "1", "k"), C("ZCARD", "k")),
	})
}
