package conformance

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestZsetRandom is a randomized differential test of the sorted-set family:
// at least 10,000 random commands per run over a small key space, so that
// keys collide, types clash (SET on a sorted set, ZADD on a string), sets
// grow past the listpack limits and shrink again, and keys expire. Every
// command goes to Redis and to limitkv in pipelined chunks and every reply
// is compared: byte for byte, except TTL (±1 s), ZRANDMEMBER and ZSCAN pages
// (by shape and membership, against a ZRANGE ... WITHSCORES sent right
// after them). After each chunk a full ZSCAN iteration of one key is
// compared as a multiset.
//
// The seed is logged on failure; LIMITKV_SEED=<n> replays a run and
// LIMITKV_ZSET_OPS=<n> changes its length.
//
// Lexicographic commands only touch the "l" keys, whose members all have
// score 0: Redis's answer on a skiplist whose scores differ depends on the
// skiplist's random levels.
func TestZsetRandom(t *testing.T) {
	requireServers(t)
	r, total := randomRun(t, "LIMITKV_ZSET_OPS", 10000)
	g := &zrGen{r: r}
	rds, lkv := dialPair(t)
	for _, c := range []*RawConn{rds, lkv} {
		c.Timeout = 10 * time.Second
		if r := c.MustDo(t, "FLUSHALL"); string(r.Raw) != "+OK\r\n" {
			t.Fatalf("FLUSHALL on %s: %q", c.Name, r.Raw)
		}
	}
	start := time.Now()
	sent := 0
	for chunk := 0; sent < total; chunk++ {
		steps := g.chunk(200)
		rr := zrPipeline(t, rds, steps)
		lr := zrPipeline(t, lkv, steps)
		for i, st := range steps {
			var companion *Reply
			if st.cmp == zrRand || st.cmp == zrScanPage {
				companion = rr[i+1]
			}
			if err := zrCompare(st, rr[i], lr[i], companion); err != nil {
				from := max(0, i-15)
				var ctx strings.Builder
				for j := from; j < i; j++ {
					fmt.Fprintf(&ctx, "    %s\n", fmtArgs(steps[j].args))
				}
				t.Fatalf("chunk %d, command %d of the run: %v\n  command: %s\n  redis:   %q\n  limitkv: %q\n%s  preceding commands in the chunk:\n%s",
					chunk, sent+i+1, err, fmtArgs(st.args), truncate(rr[i].Raw, 1500), truncate(lr[i].Raw, 1500), zrFirstDiff(rr[i], lr[i]), ctx.String())
			}
		}
		sent += len(steps)
		if g.shortTTL {
			// Keys given a few milliseconds to live were left alone for the
			// rest of the chunk; now they have expired on both servers.
			time.Sleep(30 * time.Millisecond)
		}
		zrScanCheck(t, g, rds, lkv)
	}
	t.Logf("%d commands in %v", sent, time.Since(start).Round(time.Millisecond))
}

// zrFirstDiff describes where two array replies start to differ.
func zrFirstDiff(rds, lkv *Reply) string {
	if rds.Type != '*' || lkv.Type != '*' {
		return ""
	}
	for i := range min(len(rds.Elems), len(lkv.Elems)) {
		if !bytes.Equal(rds.Elems[i].Raw, lkv.Elems[i].Raw) {
			from := max(0, i-4)
			var a, b []string
			for j := from; j < min(i+4, len(rds.Elems)); j++ {
				a = append(a, strconv.Quote(rds.Elems[j].Str))
			}
			for j := from; j < min(i+4, len(lkv.Elems)); j++ {
				b = append(b, strconv.Quote(lkv.Elems[j].Str))
			}
			return fmt.Sprintf("  first difference at element %d:\n    redis:   %s\n    limitkv: %s\n", i, strings.Join(a, " "), strings.Join(b, " "))
		}
	}
	return fmt.Sprintf("  lengths %d and %d\n", len(rds.Elems), len(lkv.Elems))
}

// How a reply is compared.
const (
	zrExact    = iota
	zrTTL      // integers may differ by 1 when both are positive
	zrRand     // ZRANDMEMBER: shape and membership; the next step is the companion ZRANGE
	zrScanPage // ZSCAN page: exact if both cursors are 0, else membership
)

type zrStep struct {
	args       []string
	cmp        int
	count      int64 // ZRANDMEMBER count
	hasCount   bool
	withScores bool
}

// zrGen makes the commands. It never looks at replies, so a seed replays
// the same run.
type zrGen struct {
	r        *rand.Rand
	steps    []zrStep
	volatile map[string]bool // keys given a short TTL in this chunk
	shortTTL bool
}

var (
	zrGeneral = []string{"z0", "z1", "z2", "z3", "z4", "z5"}
	zrLex     = []string{"l0", "l1", "l2"}
)

func (g *zrGen) chunk(n int) []zrStep {
	g.steps = g.steps[:0]
	g.volatile = map[string]bool{}
	g.shortTTL = false
	for len(g.steps) < n {
		g.op()
	}
	return append([]zrStep(nil), g.steps...)
}

func (g *zrGen) add(cmp int, args ...string) *zrStep {
	g.steps = append(g.steps, zrStep{args: args, cmp: cmp})
	return &g.steps[len(g.steps)-1]
}

func (g *zrGen) pct(p int) bool { return g.r.IntN(100) < p }

func (g *zrGen) pick(keys []string) string {
	for range 20 {
		k := keys[g.r.IntN(len(keys))]
		if !g.volatile[k] {
			return k
		}
	}
	// Every key of the pool is waiting to expire: a spare key, kept in
	// its pool (a lex key must only ever hold score 0).
	for i := g.r.IntN(3); ; i++ {
		if k := keys[0] + "spare" + strconv.Itoa(i); !g.volatile[k] {
			return k
		}
	}
}

// key picks any key (reads and removals), general picks a key that may
// receive any score.
func (g *zrGen) key() string {
	if g.pct(25) {
		return g.pick(zrLex)
	}
	return g.pick(zrGeneral)
}

func (g *zrGen) general() string { return g.pick(zrGeneral) }

func (g *zrGen) keys(pool func() string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = pool()
	}
	return out
}

var zrScores = []string{"inf", "-inf", "-0", "0.5", "1e16", "-2.5", "0.1", "1e-3", "3.0000000000000004", "+inf", "1.5e3", "0x10"}

func (g *zrGen) score() string {
	if g.pct(30) {
		return zrScores[g.r.IntN(len(zrScores))]
	}
	return strconv.Itoa(g.r.IntN(60) - 20)
}

var zrBadFloats = []string{"x", "nan", "", " 1", "1e400", "1 ", "--1"}

func (g *zrGen) maybeBadScore() string {
	if g.pct(2) {
		return zrBadFloats[g.r.IntN(len(zrBadFloats))]
	}
	return g.score()
}

func (g *zrGen) member() string {
	switch n := g.r.IntN(200); {
	case n < 3:
		return strings.Repeat("L", 60+g.r.IntN(10)) + strconv.Itoa(g.r.IntN(5))
	case n < 5:
		return "\x00b\xff" + strconv.Itoa(g.r.IntN(3))
	case n < 6:
		return ""
	}
	return "m" + strconv.Itoa(g.r.IntN(350))
}

func (g *zrGen) scoreBound() string {
	switch n := g.r.IntN(100); {
	case n < 2:
		return "x"
	case n < 12:
		return "-inf"
	case n < 22:
		return "+inf"
	case n < 30:
		return "(" + strconv.Itoa(g.r.IntN(60)-20)
	case n < 34:
		return zrScores[g.r.IntN(len(zrScores))]
	}
	return strconv.Itoa(g.r.IntN(60) - 20)
}

func (g *zrGen) lexBound() string {
	switch n := g.r.IntN(100); {
	case n < 2:
		return "m5"
	case n < 12:
		return "-"
	case n < 22:
		return "+"
	case n < 25:
		return "["
	case n < 60:
		return "(m" + strconv.Itoa(g.r.IntN(350))
	}
	return "[m" + strconv.Itoa(g.r.IntN(350))
}

func (g *zrGen) index() string {
	switch n := g.r.IntN(100); {
	case n < 2:
		return "x"
	case n < 4:
		return "9223372036854775807"
	case n < 50:
		return strconv.Itoa(g.r.IntN(20) - 10)
	}
	return strconv.Itoa(g.r.IntN(400) - 200)
}

func (g *zrGen) limit() []string {
	if !g.pct(40) {
		return nil
	}
	return []string{"LIMIT", strconv.Itoa(g.r.IntN(12) - 1), strconv.Itoa(g.r.IntN(20) - 2)}
}

func (g *zrGen) opt(p int, words ...string) []string {
	if g.pct(p) {
		return words
	}
	return nil
}

func cat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func (g *zrGen) op() {
	r := g.r
	switch n := r.IntN(100); {
	case n < 14:
		g.zadd(g.general(), false)
	case n < 18:
		g.zadd(g.pick(zrLex), true)
	case n < 20:
		g.add(zrExact, "ZINCRBY", g.general(), g.maybeBadScore(), g.member())
	case n < 21:
		g.add(zrExact, "ZINCRBY", g.pick(zrLex), "0", g.member())
	case n < 25:
		args := []string{"ZREM", g.key()}
		for range 1 + r.IntN(6) {
			args = append(args, g.member())
		}
		g.add(zrExact, args...)
	case n < 30:
		k := g.key()
		switch r.IntN(6) {
		case 0:
			g.add(zrExact, "ZCARD", k)
		case 1:
			g.add(zrExact, "ZSCORE", k, g.member())
		case 2:
			g.add(zrExact, "ZMSCORE", k, g.member(), g.member(), g.member())
		case 3:
			g.add(zrExact, "ZRANK", k, g.member())
		case 4:
			g.add(zrExact, "ZREVRANK", k, g.member())
		default:
			g.add(zrExact, "ZCOUNT", k, g.scoreBound(), g.scoreBound())
		}
	case n < 40:
		g.zrange()
	case n < 46:
		g.zlex()
	case n < 50:
		k := g.key()
		switch r.IntN(3) {
		case 0:
			g.add(zrExact, "ZREMRANGEBYRANK", k, g.index(), g.index())
		case 1:
			g.add(zrExact, "ZREMRANGEBYSCORE", k, g.scoreBound(), g.scoreBound())
		default:
			g.add(zrExact, "ZREMRANGEBYLEX", g.pick(zrLex), g.lexBound(), g.lexBound())
		}
	case n < 55:
		g.zpop()
	case n < 59:
		g.zrand()
	case n < 61:
		k := g.key()
		args := []string{"ZSCAN", k, "0"}
		args = append(args, g.opt(30, "COUNT", strconv.Itoa(1+r.IntN(50)))...)
		args = append(args, g.opt(20, "MATCH", []string{"m1*", "*5", "[ab]*", "m??"}[r.IntN(4)])...)
		g.add(zrScanPage, args...)
		g.add(zrExact, "ZRANGE", k, "0", "-1", "WITHSCORES")
	case n < 70:
		g.zsetop()
	case n < 73:
		g.zrangestore()
	case n < 74:
		g.blocking()
	default:
		g.generic()
	}
}

func (g *zrGen) zadd(k string, lex bool) {
	r := g.r
	args := []string{"ZADD", k}
	flags := []string{"NX", "XX", "GT", "LT", "CH", "INCR"}
	if lex {
		flags = []string{"NX", "XX", "CH"}
	}
	incr := false
	if g.pct(35) {
		for _, f := range flags {
			if g.pct(18) {
				args = append(args, f)
				incr = incr || f == "INCR"
			}
		}
	}
	pairs := 1 + r.IntN(8)
	switch {
	case incr && !g.pct(5):
		pairs = 1
	case g.pct(10):
		pairs = 40 + r.IntN(120)
	}
	for range pairs {
		sc := "0"
		if !lex {
			sc = g.maybeBadScore()
		}
		args = append(args, sc, g.member())
	}
	if g.pct(1) {
		args = args[:len(args)-1] // odd: syntax error
	}
	g.add(zrExact, args...)
}

func (g *zrGen) zrange() {
	r := g.r
	k := g.key()
	ws := g.opt(50, "WITHSCORES")
	switch r.IntN(7) {
	case 0:
		g.add(zrExact, cat([]string{"ZRANGE", k, g.index(), g.index()}, g.opt(30, "REV"), ws)...)
	case 1:
		g.add(zrExact, cat([]string{"ZRANGE", k, g.scoreBound(), g.scoreBound(), "BYSCORE"}, g.opt(40, "REV"), ws, g.limit())...)
	case 2:
		g.add(zrExact, cat([]string{"ZRANGEBYSCORE", k, g.scoreBound(), g.scoreBound()}, ws, g.limit())...)
	case 3:
		g.add(zrExact, cat([]string{"ZREVRANGEBYSCORE", k, g.scoreBound(), g.scoreBound()}, g.limit(), ws)...)
	case 4:
		g.add(zrExact, cat([]string{"ZREVRANGE", k, g.index(), g.index()}, ws)...)
	case 5:
		// Option errors.
		g.add(zrExact, cat([]string{"ZRANGE", k, g.index(), g.index()}, g.opt(50, "LIMIT", "0", "2"), g.opt(50, "BYLEX", "WITHSCORES"), g.opt(20, "FOO"))...)
	default:
		g.add(zrExact, "ZRANGE", k, "0", "-1", "WITHSCORES")
	}
}

func (g *zrGen) zlex() {
	r := g.r
	k := g.pick(zrLex)
	switch r.IntN(6) {
	case 0:
		g.add(zrExact, cat([]string{"ZRANGEBYLEX", k, g.lexBound(), g.lexBound()}, g.limit())...)
	case 1:
		g.add(zrExact, cat([]string{"ZREVRANGEBYLEX", k, g.lexBound(), g.lexBound()}, g.limit())...)
	case 2:
		g.add(zrExact, cat([]string{"ZRANGE", k, g.lexBound(), g.lexBound(), "BYLEX"}, g.opt(40, "REV"), g.limit())...)
	case 3:
		g.add(zrExact, "ZLEXCOUNT", k, g.lexBound(), g.lexBound())
	case 4:
		g.add(zrExact, "ZREMRANGEBYLEX", k, g.lexBound(), g.lexBound())
	default:
		g.add(zrExact, cat([]string{"ZRANGESTORE", g.pick(zrLex), k, g.lexBound(), g.lexBound(), "BYLEX"}, g.opt(30, "REV"), g.limit())...)
	}
}

func (g *zrGen) count() string {
	switch n := g.r.IntN(100); {
	case n < 3:
		return "x"
	case n < 6:
		return "-1"
	case n < 10:
		return "0"
	}
	return strconv.Itoa(1 + g.r.IntN(6))
}

func (g *zrGen) zpop() {
	r := g.r
	switch r.IntN(4) {
	case 0, 1:
		cmd := []string{"ZPOPMIN", "ZPOPMAX"}[r.IntN(2)]
		g.add(zrExact, cat([]string{cmd, g.key()}, g.opt(60, g.count()))...)
	default:
		n := 1 + r.IntN(3)
		args := append([]string{"ZMPOP", strconv.Itoa(n)}, g.keys(g.key, n)...)
		args = append(args, []string{"MIN", "MAX", "max"}[r.IntN(3)])
		args = append(args, g.opt(60, "COUNT", g.count())...)
		if g.pct(2) {
			args[1] = strconv.Itoa(n + 1)
		}
		g.add(zrExact, args...)
	}
}

func (g *zrGen) zrand() {
	r := g.r
	k := g.key()
	st := g.add(zrRand, "ZRANDMEMBER", k)
	if g.pct(80) {
		c := int64(r.IntN(14) - 6)
		if g.pct(10) {
			c = int64(r.IntN(800) - 400)
		}
		st.count, st.hasCount = c, true
		st.args = append(st.args, strconv.FormatInt(c, 10))
		if g.pct(50) {
			st.withScores = true
			st.args = append(st.args, "WITHSCORES")
		}
	}
	g.add(zrExact, "ZRANGE", k, "0", "-1", "WITHSCORES")
}

func (g *zrGen) zsetop() {
	r := g.r
	n := 1 + r.IntN(3)
	lexDst := g.pct(20)
	pool := g.key
	if lexDst {
		pool = func() string { return g.pick(zrLex) }
	}
	srcs := g.keys(pool, n)
	op := []string{"ZUNION", "ZINTER", "ZDIFF", "ZINTERCARD"}[r.IntN(4)]
	store := op != "ZINTERCARD" && g.pct(60)
	var args []string
	if store {
		dst := g.general()
		if lexDst {
			dst = g.pick(zrLex)
		}
		args = []string{op + "STORE", dst, strconv.Itoa(n)}
	} else {
		args = []string{op, strconv.Itoa(n)}
	}
	args = append(args, srcs...)
	if op != "ZDIFF" && op != "ZINTERCARD" {
		if !lexDst && g.pct(40) {
			args = append(args, "WEIGHTS")
			for range n {
				args = append(args, []string{"1", "2", "0.5", "-1", "0", "inf", "3"}[r.IntN(7)])
			}
		}
		if g.pct(40) {
			args = append(args, "AGGREGATE", []string{"SUM", "MIN", "MAX", "max"}[r.IntN(4)])
		}
	}
	if op == "ZINTERCARD" && g.pct(50) {
		args = append(args, "LIMIT", strconv.Itoa(r.IntN(5)))
	}
	if !store && op != "ZINTERCARD" && g.pct(60) {
		args = append(args, "WITHSCORES")
	}
	if g.pct(2) {
		args = append(args, "FOO")
	}
	g.add(zrExact, args...)
}

func (g *zrGen) zrangestore() {
	r := g.r
	src := g.key()
	dst := g.general()
	switch r.IntN(3) {
	case 0:
		g.add(zrExact, cat([]string{"ZRANGESTORE", dst, src, g.index(), g.index()}, g.opt(30, "REV"))...)
	default:
		g.add(zrExact, cat([]string{"ZRANGESTORE", dst, src, g.scoreBound(), g.scoreBound(), "BYSCORE"}, g.opt(30, "REV"), g.limit())...)
	}
}

// blocking sends a blocking pop: served at once when a key has members,
// else a 10 ms timeout and a nil reply on both servers.
func (g *zrGen) blocking() {
	r := g.r
	if !g.pct(15) {
		g.generic()
		return
	}
	n := 1 + r.IntN(2)
	switch r.IntN(3) {
	case 0:
		g.add(zrExact, append(append([]string{"BZPOPMIN"}, g.keys(g.key, n)...), "0.01")...)
	case 1:
		g.add(zrExact, append(append([]string{"BZPOPMAX"}, g.keys(g.key, n)...), "0.01")...)
	default:
		args := append([]string{"BZMPOP", "0.01", strconv.Itoa(n)}, g.keys(g.key, n)...)
		args = append(args, "MIN")
		args = append(args, g.opt(50, "COUNT", strconv.Itoa(1+r.IntN(4)))...)
		g.add(zrExact, args...)
	}
}

func (g *zrGen) generic() {
	r := g.r
	k := g.key()
	switch r.IntN(13) {
	case 0:
		g.add(zrExact, "EXPIRE", k, strconv.Itoa(50+r.IntN(100)))
	case 1:
		// A few milliseconds to live: the key is left alone until the
		// chunk ends and the test has slept past its deadline.
		g.add(zrExact, "PEXPIRE", k, strconv.Itoa(1+r.IntN(20)))
		g.volatile[k] = true
		g.shortTTL = true
	case 2:
		g.add(zrExact, "PEXPIRE", k, []string{"0", "-5"}[r.IntN(2)])
	case 3:
		g.add(zrExact, "EXPIREAT", k, "1")
	case 4:
		g.add(zrExact, "PERSIST", k)
	case 5, 6:
		g.add(zrTTL, "TTL", k)
	case 7:
		g.add(zrExact, "DEL", k)
	case 8:
		if g.pct(50) {
			g.add(zrExact, "SET", k, []string{"v", "123"}[r.IntN(2)])
		} else {
			g.add(zrExact, "TYPE", k)
		}
	case 9:
		g.add(zrExact, "EXISTS", k)
	default:
		g.add(zrExact, "OBJECT", "ENCODING", k)
	}
}

// zrPipeline sends steps as one pipeline and reads their replies.
func zrPipeline(t *testing.T, c *RawConn, steps []zrStep) []*Reply {
	t.Helper()
	var buf bytes.Buffer
	for _, st := range steps {
		buf.Write(encodeCommand(st.args...))
	}
	werr := make(chan error, 1)
	go func() { werr <- c.WriteRaw(buf.Bytes()) }()
	out := make([]*Reply, len(steps))
	for i := range steps {
		r, err := c.ReadReply()
		if err != nil {
			t.Fatalf("%s: reading the reply to %s: %v", c.Name, fmtArgs(steps[i].args), err)
		}
		out[i] = r
	}
	if err := <-werr; err != nil {
		t.Fatalf("%s: write: %v", c.Name, err)
	}
	return out
}

func zrCompare(st zrStep, rds, lkv, companion *Reply) error {
	if bytes.Equal(rds.Raw, lkv.Raw) {
		return nil
	}
	if rds.IsError() || lkv.IsError() {
		return fmt.Errorf("replies differ")
	}
	switch st.cmp {
	case zrTTL:
		if rds.Type == ':' && lkv.Type == ':' && rds.Int >= 0 && lkv.Int >= 0 && rds.Int-lkv.Int <= 1 && lkv.Int-rds.Int <= 1 {
			return nil
		}
	case zrRand:
		return zrCheckRand(st, rds, lkv, companion)
	case zrScanPage:
		return zrCheckScanPage(rds, lkv, companion)
	}
	return fmt.Errorf("replies differ")
}

// zrSetOf reads a ZRANGE ... WITHSCORES reply as member -> score.
func zrSetOf(companion *Reply) (map[string]string, error) {
	if companion == nil || companion.Type != '*' || len(companion.Elems)%2 != 0 {
		return nil, fmt.Errorf("companion ZRANGE reply unusable: %q", companion.Raw)
	}
	set := map[string]string{}
	for i := 0; i < len(companion.Elems); i += 2 {
		set[companion.Elems[i].Str] = companion.Elems[i+1].Str
	}
	return set, nil
}

func zrCheckRand(st zrStep, rds, lkv, companion *Reply) error {
	set, err := zrSetOf(companion)
	if err != nil {
		return err
	}
	if rds.Type != lkv.Type || rds.Null != lkv.Null {
		return fmt.Errorf("reply types differ")
	}
	if !st.hasCount {
		if _, ok := set[lkv.Str]; !ok {
			return fmt.Errorf("%q is not a member", lkv.Str)
		}
		return nil
	}
	if len(rds.Elems) != len(lkv.Elems) {
		return fmt.Errorf("%d elements vs %d", len(rds.Elems), len(lkv.Elems))
	}
	if st.count > 0 && st.count >= int64(len(set)) {
		return fmt.Errorf("the whole set must come in Redis's order")
	}
	step := 1
	if st.withScores {
		step = 2
	}
	seen := map[string]bool{}
	for i := 0; i+step <= len(lkv.Elems); i += step {
		m := lkv.Elems[i].Str
		sc, ok := set[m]
		if !ok {
			return fmt.Errorf("%q is not a member", m)
		}
		if st.withScores && lkv.Elems[i+1].Str != sc {
			return fmt.Errorf("%q scored %q, not %q", m, lkv.Elems[i+1].Str, sc)
		}
		if st.count > 0 && seen[m] {
			return fmt.Errorf("%q repeated", m)
		}
		seen[m] = true
	}
	return nil
}

func zrCheckScanPage(rds, lkv, companion *Reply) error {
	set, err := zrSetOf(companion)
	if err != nil {
		return err
	}
	if len(rds.Elems) != 2 || len(lkv.Elems) != 2 {
		return fmt.Errorf("not ZSCAN replies")
	}
	if rds.Elems[0].Str == "0" && lkv.Elems[0].Str == "0" {
		// Both walked the whole set in one call: a listpack in set order
		// (byte-equal, checked before), or a skiplist, which Redis walks in
		// hash order.
		if err := sameMultiset(rawElems(rds.Elems[1].Elems, 2), rawElems(lkv.Elems[1].Elems, 2)); err != nil {
			return fmt.Errorf("complete iterations differ: %v", err)
		}
		return nil
	}
	page := lkv.Elems[1].Elems
	seen := map[string]bool{}
	for i := 0; i+1 < len(page); i += 2 {
		m := page[i].Str
		if sc, ok := set[m]; !ok || sc != page[i+1].Str {
			return fmt.Errorf("%q=%q is not in the set", m, page[i+1].Str)
		}
		if seen[m] {
			return fmt.Errorf("%q repeated", m)
		}
		seen[m] = true
	}
	return nil
}

// zrScanCheck iterates one key with ZSCAN on both servers and compares
// what was gathered.
func zrScanCheck(t *testing.T, g *zrGen, rds, lkv *RawConn) {
	t.Helper()
	k := g.key()
	var extra []string
	if g.pct(50) {
		extra = append(extra, "COUNT", strconv.Itoa(1+g.r.IntN(40)))
	}
	if g.pct(30) {
		extra = append(extra, "MATCH", "*1*")
	}
	scan := func(c *RawConn) ([]string, string) {
		var got []string
		cursor := "0"
		for range 100000 {
			r := c.MustDo(t, append([]string{"ZSCAN", k, cursor}, extra...)...)
			if r.IsError() || len(r.Elems) != 2 {
				return nil, string(r.Raw)
			}
			cursor = r.Elems[0].Str
			for i := 0; i+1 < len(r.Elems[1].Elems); i += 2 {
				got = append(got, fmt.Sprintf("%q=%s", r.Elems[1].Elems[i].Str, r.Elems[1].Elems[i+1].Str))
			}
			if cursor == "0" {
				break
			}
		}
		sort.Strings(got)
		return got, ""
	}
	want, werr := scan(rds)
	got, gerr := scan(lkv)
	if werr != gerr || strings.Join(want, " ") != strings.Join(got, " ") {
		t.Fatalf("full ZSCAN %s %v differs:\n  redis:   %v %s\n  limitkv: %v %s", k, extra, want, werr, got, gerr)
	}
}
