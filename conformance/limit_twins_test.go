package conformance

import (
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv/ratelimit/scripts"
)

// Each native limiter against its Lua twin (ratelimit/scripts) running on
// redis-server: long random sequences (times forward, repeated and going
// back, costs of 0 to above the limit, peeks, limits and windows drawn per
// sequence, keys deleted), comparing after every step the reply and the
// state left (type, content, PTTL). Times are passed explicitly, so the
// two servers' clocks play no part except in TTLs, which the harness
// manages: before each step it expires the key in simulated time on both
// (DEL when the TTL has run out, else PEXPIRE to what is left).

// twinPair is one key on both servers and the TTL it has in simulated ms.
type twinPair struct {
	t        *testing.T
	rds, lkv *RawConn
	key      string
	expireAt int64 // simulated ms; 0 none
	syncAt   time.Time
	shas     map[string]string
	steps    int
	fails    int
}

func newTwinPair(t *testing.T, key string) *twinPair {
	rds, lkv := dialPair(t)
	p := &twinPair{t: t, rds: rds, lkv: lkv, key: key, shas: map[string]string{}}
	p.del()
	return p
}

func (p *twinPair) del() {
	p.rds.MustDo(p.t, "DEL", p.key)
	p.lkv.MustDo(p.t, "DEL", p.key)
	p.expireAt = 0
}

// sync applies the simulated expiry at now to both servers.
func (p *twinPair) sync(now int64) {
	p.syncAt = time.Now()
	if p.expireAt == 0 {
		return
	}
	// A TTL that could run out on a server's own clock before the step
	// (hundreds of ms pass on a loaded machine) is applied as DEL on both.
	if rem := p.expireAt - now; rem < 1500 {
		p.del()
	} else {
		p.rds.MustDo(p.t, "PEXPIRE", p.key, strconv.FormatInt(rem, 10))
		p.lkv.MustDo(p.t, "PEXPIRE", p.key, strconv.FormatInt(rem, 10))
	}
}

// evalsha runs a twin script on redis-server.
func (p *twinPair) evalsha(script string, args ...string) *Reply {
	sha, ok := p.shas[script]
	if !ok {
		sha = p.rds.MustDo(p.t, "SCRIPT", "LOAD", script).Str
		p.shas[script] = sha
	}
	return p.rds.MustDo(p.t, append([]string{"EVALSHA", sha, "1", p.key}, args...)...)
}

// aged is how much a TTL may have lost since sync (the machine is shared).
func (p *twinPair) aged() int64 { return time.Since(p.syncAt).Milliseconds() + 5 }

// compare checks one step: the replies (ttlFields are elements that are a
// TTL read back, equal within aged()), then the key on both servers.
func (p *twinPair) compare(now int64, desc string, r, l *Reply, ttlFields ...int) {
	p.t.Helper()
	p.steps++
	if !sameReply(r, l, p.aged(), ttlFields) {
		p.fail("step %d %s: reply redis %q, limitkv %q", p.steps, desc, r.Raw, l.Raw)
	}
	rs, rt := p.state(p.rds)
	ls, lt := p.state(p.lkv)
	// A key the step left with less than aged() to live may be gone on
	// one server and not yet on the other.
	expiring := func(ttl, other int64) bool { return ttl >= 0 && ttl <= p.aged() && other == -2 }
	if (rs != ls || (rt < 0) != (lt < 0) || abs64(rt-lt) > p.aged()) && !expiring(rt, lt) && !expiring(lt, rt) {
		p.fail("step %d %s: state redis %s pttl %d, limitkv %s pttl %d", p.steps, desc, rs, rt, ls, lt)
	}
	// A deadline the next sync applies on both; a key left with under a
	// millisecond (PTTL 0), or gone on one server only, still has one.
	p.expireAt = 0
	switch {
	case rt >= 0:
		p.expireAt = now + rt
	case rt == -2 && lt >= 0:
		p.expireAt = now + lt
	}
}

func (p *twinPair) fail(format string, args ...any) {
	p.t.Helper()
	p.fails++
	p.t.Errorf(format, args...)
	if p.fails >= 5 {
		p.t.FailNow()
	}
}

func sameReply(r, l *Reply, tol int64, ttlFields []int) bool {
	if string(r.Raw) == string(l.Raw) {
		return true
	}
	if r.Type != '*' || l.Type != '*' || len(r.Elems) != len(l.Elems) {
		return false
	}
	for i := range r.Elems {
		a, b := r.Elems[i], l.Elems[i]
		if string(a.Raw) == string(b.Raw) {
			continue
		}
		if !slices.Contains(ttlFields, i) || a.Type != ':' || b.Type != ':' || a.Int < 0 || b.Int < 0 || abs64(a.Int-b.Int) > tol {
			return false
		}
	}
	return true
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// state is the key as redis-cli shows it, hash fields sorted (their order
// is the writer's), and its PTTL.
func (p *twinPair) state(c *RawConn) (string, int64) {
	typ := c.MustDo(p.t, "TYPE", p.key).Str
	var body string
	switch typ {
	case "none":
		return "none", -2
	case "string":
		body = string(c.MustDo(p.t, "GET", p.key).Raw)
	case "hash":
		r := c.MustDo(p.t, "HGETALL", p.key)
		var pairs []string
		for i := 0; i+1 < len(r.Elems); i += 2 {
			pairs = append(pairs, r.Elems[i].Str+"="+r.Elems[i+1].Str)
		}
		slices.Sort(pairs)
		body = strings.Join(pairs, " ")
	case "zset":
		body = string(c.MustDo(p.t, "ZRANGE", p.key, "0", "-1", "WITHSCORES").Raw)
	}
	pttl := c.MustDo(p.t, "PTTL", p.key).Int
	if pttl == -2 {
		return "none", -2
	}
	return typ + " " + body, pttl
}

// walk moves the simulated clock: mostly forward, sometimes not at all,
// now and then back.
func walk(rnd *rand.Rand, now, step int64) int64 {
	switch k := rnd.Intn(20); {
	case k == 0:
		return now - rnd.Int63n(step+1)
	case k < 4:
		return now
	}
	return now + rnd.Int63n(step+1)
}

func drawCost(rnd *rand.Rand, limit int64) int64 {
	switch rnd.Intn(8) {
	case 0:
		return 0
	case 1:
		return rnd.Int63n(limit + 3)
	}
	return 1
}

func i64(n int64) string { return strconv.FormatInt(n, 10) }

// twinRun is one algorithm's random test: seqs sequences of steps each.
func twinRun(t *testing.T, seqs, steps int, step func(p *twinPair, rnd *rand.Rand, now *int64, params []int64)) {
	requireServers(t)
	seed := rlSeed(t)
	t.Logf("seed %d (rerun with LIMITKV_SEED=%d)", seed, seed)
	rnd := rand.New(rand.NewSource(seed))
	p := newTwinPair(t, "twin:"+t.Name())
	now := time.Now().UnixMilli()
	for s := 0; s < seqs; s++ {
		p.del()
		limit, window := 1+rnd.Int63n(20), 1+rnd.Int63n(5000)
		params := []int64{limit, window, 1 + rnd.Int63n(7)}
		for i := 0; i < steps; i++ {
			if rnd.Intn(100) == 0 {
				p.del()
			}
			step(p, rnd, &now, params)
		}
	}
	t.Logf("%d steps matched", p.steps)
}

func twinSteps() (int, int) {
	if testing.Short() {
		return 10, 60
	}
	return 40, 150
}

func TestLimitTwinTokenBucket(t *testing.T) {
	seqs, steps := twinSteps()
	twinRun(t, seqs, steps, func(p *twinPair, rnd *rand.Rand, now *int64, k []int64) {
		limit, period, refill := k[0], k[1], k[2]
		*now = walk(rnd, *now, 2*period/limit+5)
		p.sync(*now)
		cost := drawCost(rnd, limit)
		mode, cmd := "check", "RL.TOKEN"
		if rnd.Intn(6) == 0 {
			mode, cmd = "peek", "RL.TOKEN.PEEK"
		}
		r := p.evalsha(scripts.TokenBucket, i64(*now), i64(limit), i64(refill), i64(period), i64(cost), mode)
		l := p.lkv.MustDo(t, cmd, p.key, i64(*now), i64(limit), i64(refill), i64(period), "COST", i64(cost))
		p.compare(*now, fmt.Sprintf("%s now=%d cost=%d", cmd, *now, cost), r, l)
	})
}

func TestLimitTwinFixedWindow(t *testing.T) {
	seqs, steps := twinSteps()
	twinRun(t, seqs, steps, func(p *twinPair, rnd *rand.Rand, now *int64, k []int64) {
		limit, window := k[0], k[1]+100 // the window runs on the servers' clocks: not too short
		*now = walk(rnd, *now, 2*window/limit+5)
		p.sync(*now)
		cost := drawCost(rnd, limit)
		mode, cmd := "check", "RL.FIXED"
		if rnd.Intn(6) == 0 {
			mode, cmd = "peek", "RL.FIXED.PEEK"
		}
		if rnd.Intn(40) == 0 { // a counter someone SET without TTL
			v := i64(rnd.Int63n(limit + 1))
			p.rds.MustDo(t, "SET", p.key, v)
			p.lkv.MustDo(t, "SET", p.key, v)
		}
		r := p.evalsha(scripts.FixedWindow, i64(window), i64(limit), i64(cost), mode)
		l := p.lkv.MustDo(t, cmd, p.key, i64(window), i64(limit), "COST", i64(cost))
		// retry_after and reset_after are the key's PTTL on each server.
		p.compare(*now, fmt.Sprintf("%s cost=%d", cmd, cost), r, l, 4, 5)
	})
}

func TestLimitTwinSlidingWindow(t *testing.T) {
	seqs, steps := twinSteps()
	twinRun(t, seqs, steps, func(p *twinPair, rnd *rand.Rand, now *int64, k []int64) {
		limit, window := k[0], k[1]
		*now = walk(rnd, *now, 2*window/limit+5)
		p.sync(*now)
		cost := drawCost(rnd, limit)
		mode, cmd := "check", "RL.SLIDING"
		if rnd.Intn(6) == 0 {
			mode, cmd = "peek", "RL.SLIDING.PEEK"
		}
		r := p.evalsha(scripts.SlidingWindow, i64(*now), i64(window), i64(limit), i64(cost), mode)
		l := p.lkv.MustDo(t, cmd, p.key, i64(*now), i64(window), i64(limit), "COST", i64(cost))
		p.compare(*now, fmt.Sprintf("%s now=%d cost=%d", cmd, *now, cost), r, l)
	})
}

// RL.GCRA keeps redis-cell's state: the twin is cell.lua with now in ns.
// The replies have different shapes (cell's five integers in seconds, the
// common six in ms), so the decision, limit and remaining are compared,
// and the state exactly.
func TestLimitTwinGCRA(t *testing.T) {
	seqs, steps := twinSteps()
	twinRun(t, seqs, steps, func(p *twinPair, rnd *rand.Rand, now *int64, k []int64) {
		burst, count, period := k[0]-1, k[2], 1+k[1]%60
		*now = walk(rnd, *now, 1000*period/count+5)
		p.sync(*now)
		q := drawCost(rnd, burst+1)
		mode := "RL.GCRA"
		if rnd.Intn(6) == 0 {
			mode = "RL.GCRA.PEEK"
		}
		var r *Reply
		if mode == "RL.GCRA.PEEK" {
			r = p.rds.MustDo(t, "TYPE", p.key) // cell.lua has no peek: the state must not move
		} else {
			r = p.evalsha(scripts.Cell, i64(*now)+"000000", i64(burst), i64(count), i64(period), i64(q))
		}
		l := p.lkv.MustDo(t, mode, p.key, i64(*now), i64(burst), i64(count), i64(period), "COST", i64(q))
		if mode == "RL.GCRA" {
			if r.Type != '*' || l.Type != '*' || len(r.Elems) != 5 || len(l.Elems) != 6 ||
				(r.Elems[0].Int == 1) != (l.Elems[0].Int == 0) || r.Elems[1].Int != l.Elems[2].Int || r.Elems[2].Int != l.Elems[3].Int {
				p.fail("step %d RL.GCRA now=%d q=%d: cell.lua %q, limitkv %q", p.steps+1, *now, q, r.Raw, l.Raw)
			}
		}
		p.compare(*now, fmt.Sprintf("%s now=%d q=%d", mode, *now, q), l, l)
	})
}

func TestLimitTwinConcurrency(t *testing.T) {
	seqs, steps := twinSteps()
	twinRun(t, seqs, steps, func(p *twinPair, rnd *rand.Rand, now *int64, k []int64) {
		limit, lease := 1+k[0]%5, k[1]
		*now = walk(rnd, *now, lease/2+5)
		p.sync(*now)
		id := "job" + strconv.Itoa(rnd.Intn(int(limit)+3))
		var r, l *Reply
		if rnd.Intn(3) == 0 {
			r = p.evalsha(scripts.Concurrency, i64(*now), "release", i64(limit), "1", id)
			l = p.lkv.MustDo(t, "RL.RELEASE", p.key, i64(*now), i64(limit), id)
		} else {
			r = p.evalsha(scripts.Concurrency, i64(*now), "acquire", i64(limit), i64(lease), id)
			l = p.lkv.MustDo(t, "RL.ACQUIRE", p.key, i64(*now), i64(limit), i64(lease), id)
		}
		p.compare(*now, fmt.Sprintf("lease now=%d id=%s", *now, id), r, l)
	})
}

func TestLimitTwinBudget(t *testing.T) {
	seqs, steps := twinSteps()
	twinRun(t, seqs, steps, func(p *twinPair, rnd *rand.Rand, now *int64, k []int64) {
		limit, window := 10*k[0], k[1]
		*now = walk(rnd, *now, window/3+5)
		p.sync(*now)
		est := drawCost(rnd, limit/2) * (1 + rnd.Int63n(5))
		var r, l *Reply
		switch rnd.Intn(4) {
		case 0:
			actual := rnd.Int63n(2 * (est + 1))
			ws := (*now / window) * window
			if rnd.Intn(4) == 0 {
				ws -= window
			}
			r = p.evalsha(scripts.Budget, i64(*now), "settle", i64(window), i64(limit), i64(est), i64(actual), i64(ws))
			l = p.lkv.MustDo(t, "RL.SETTLE", p.key, i64(*now), i64(window), i64(limit), i64(est), i64(actual), i64(ws))
		case 1:
			r = p.evalsha(scripts.Budget, i64(*now), "peek", i64(window), i64(limit), i64(est))
			l = p.lkv.MustDo(t, "RL.RESERVE.PEEK", p.key, i64(*now), i64(window), i64(limit), i64(est))
		default:
			r = p.evalsha(scripts.Budget, i64(*now), "reserve", i64(window), i64(limit), i64(est))
			l = p.lkv.MustDo(t, "RL.RESERVE", p.key, i64(*now), i64(window), i64(limit), i64(est))
		}
		p.compare(*now, fmt.Sprintf("budget now=%d est=%d", *now, est), r, l)
	})
}
