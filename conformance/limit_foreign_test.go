package conformance

import (
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"

	"github.com/limitkv/limitkv"
	"github.com/limitkv/limitkv/internal/limiter"
	"github.com/limitkv/limitkv/ratelimit/scripts"
)

// CL.THROTTLE on a limitkv whose clock the test sets, against cell.lua on
// redis-server given the same nanoseconds: the five integers and the key
// (TAT, PTTL) after every step.
func TestLimitCLThrottleVsCellLua(t *testing.T) {
	requireServers(t)
	seed := rlSeed(t)
	t.Logf("seed %d (rerun with LIMITKV_SEED=%d)", seed, seed)
	rnd := rand.New(rand.NewSource(seed))
	clk := limitkv.NewManualClock(time.Now())
	srv := limitkv.StartT(t, limitkv.Options{Clock: clk})
	p := newTwinPair(t, "cell")
	p.lkv = dialRaw(t, "limitkv", srv.Addr())
	seqs, steps := twinSteps()
	for s := 0; s < seqs; s++ {
		p.del()
		burst, count, period := rnd.Int63n(10), 1+rnd.Int63n(30), 1+rnd.Int63n(90)
		emission := period * 1e9 / count
		for i := 0; i < steps; i++ {
			switch k := rnd.Intn(20); {
			case k == 0:
				clk.Add(-time.Duration(rnd.Int63n(emission)))
			case k < 4:
			default:
				clk.Add(time.Duration(rnd.Int63n(2 * emission / (burst + 1))))
			}
			nowNs := clk.Now().UnixNano()
			p.sync(nowNs / 1e6)
			q := []int64{1, 1, 1, 0, 2, burst + 2}[rnd.Intn(6)]
			args := []string{i64(burst), i64(count), i64(period), i64(q)}
			if q == 1 && rnd.Intn(2) == 0 {
				args = args[:3]
			}
			r := p.evalsha(scripts.Cell, append([]string{i64(nowNs)}, args...)...)
			l := p.lkv.MustDo(t, append([]string{"CL.THROTTLE", p.key}, args...)...)
			p.compare(nowNs/1e6, fmt.Sprintf("CL.THROTTLE %v at %d", args, nowNs), r, l)
		}
	}
	t.Logf("%d steps matched", p.steps)
}

// RL.ALL against the twins run one after the other on redis-server, where
// a refused step is rolled back (DUMP/RESTORE): the reply (allowed, the
// first refusing limit, every limit's figures) and every key after it.
func TestLimitAllVsTwins(t *testing.T) {
	requireServers(t)
	seed := rlSeed(t)
	t.Logf("seed %d (rerun with LIMITKV_SEED=%d)", seed, seed)
	rnd := rand.New(rand.NewSource(seed))
	rds, lkv := dialPair(t)
	pairs := make([]*twinPair, 3)
	for i := range pairs {
		pairs[i] = newTwinPair(t, "all:"+strconv.Itoa(i))
		pairs[i].rds, pairs[i].lkv = rds, lkv
	}
	type limit struct {
		spec string
		twin func(p *twinPair, now int64) *Reply
	}
	// Each key keeps one algorithm and its parameters for a sequence; the
	// cost, estimate or lease id is drawn for every step.
	type kind struct{ alg, n, w int64 }
	kinds := make([]kind, len(pairs))
	draw := func(i int) limit {
		k := kinds[i]
		n, w := k.n, k.w
		c := drawCost(rnd, n)
		switch k.alg {
		case 0:
			return limit{fmt.Sprintf("TOKEN %d 1 %d COST %d", n, w, c), func(p *twinPair, now int64) *Reply {
				return p.evalsha(scripts.TokenBucket, i64(now), i64(n), "1", i64(w), i64(c), "check")
			}}
		case 1:
			return limit{fmt.Sprintf("SLIDING %d %d COST %d", w, n, c), func(p *twinPair, now int64) *Reply {
				return p.evalsha(scripts.SlidingWindow, i64(now), i64(w), i64(n), i64(c), "check")
			}}
		case 2:
			id := "job" + strconv.Itoa(rnd.Intn(int(n)+2))
			return limit{fmt.Sprintf("LEASE %d %d %s", n, w, id), func(p *twinPair, now int64) *Reply {
				return p.evalsha(scripts.Concurrency, i64(now), "acquire", i64(n), i64(w), id)
			}}
		}
		return limit{fmt.Sprintf("BUDGET %d %d %d", w, 10*n, 3*c), func(p *twinPair, now int64) *Reply {
			r := p.evalsha(scripts.Budget, i64(now), "reserve", i64(w), i64(10*n), i64(3*c))
			if len(r.Elems) == 7 { // RL.ALL gives each limit the common six figures
				r.Elems = r.Elems[:6]
			}
			return r
		}}
	}
	now := time.Now().UnixMilli()
	seqs, steps := twinSteps()
	refused, total := 0, 0
	for s := 0; s < seqs*steps; s++ {
		if s%steps == 0 {
			for i, p := range pairs {
				p.del()
				kinds[i] = kind{rnd.Int63n(4), 1 + rnd.Int63n(8), 50 + rnd.Int63n(3000)}
			}
		}
		now = walk(rnd, now, 300)
		n := 1 + rnd.Intn(len(pairs))
		lims := make([]limit, n)
		args := []string{"RL.ALL", i64(now)}
		var dumps []*Reply
		var pttls []int64
		for i := range lims {
			lims[i] = draw(i)
			pairs[i].sync(now)
			// PTTL before DUMP: a key that expires between the two is then
			// read as absent (DUMP nil), never as a value without a TTL.
			pttls = append(pttls, rds.MustDo(t, "PTTL", pairs[i].key).Int)
			dumps = append(dumps, rds.MustDo(t, "DUMP", pairs[i].key))
			args = append(args, pairs[i].key, lims[i].spec)
		}
		l := lkv.MustDo(t, args...)
		if l.IsError() {
			// The twin of the failing limit must fail the same way.
			want := ""
			for i := range lims {
				if r := lims[i].twin(pairs[i], now); r.IsError() {
					want = limitErrText(i, r.Str)
					break
				}
			}
			restore(t, rds, pairs[:n], dumps, pttls)
			if l.Str != want {
				t.Fatalf("step %d %q: limitkv %q, twins %q", s, args, l.Str, want)
			}
			continue
		}
		var results []*Reply
		first := int64(-1)
		for i := range lims {
			r := lims[i].twin(pairs[i], now)
			if r.Type != '*' || len(r.Elems) < 6 {
				t.Fatalf("step %d %q: twin %d replied %q", s, args, i, r.Raw)
			}
			if r.Elems[0].Int == 0 && first < 0 {
				first = int64(i)
			}
			results = append(results, r)
		}
		if first >= 0 {
			restore(t, rds, pairs[:n], dumps, pttls)
			refused++
		}
		total++
		if l.Type != '*' || len(l.Elems) != 3 || l.Elems[0].Int != b2i(first < 0) || l.Elems[1].Int != first || len(l.Elems[2].Elems) != n {
			t.Fatalf("step %d %q: limitkv %q, first refusing twin %d", s, args, l.Raw, first)
		}
		for i, r := range results {
			got := l.Elems[2].Elems[i]
			var w strings.Builder
			fmt.Fprintf(&w, "*6\r\n")
			for _, e := range r.Elems[:6] {
				w.Write(e.Raw)
			}
			if string(got.Raw) != w.String() {
				t.Fatalf("step %d %q: limit %d: limitkv %q, twin %q", s, args, i, got.Raw, w.String())
			}
		}
		for _, p := range pairs[:n] {
			p.compare(now, fmt.Sprintf("step %d %q", s, args), l, l)
		}
	}
	t.Logf("%d RL.ALL steps matched (%d refused and rolled back on redis-server), %d key states compared", total, refused, pairs[0].steps+pairs[1].steps+pairs[2].steps)
	if refused == 0 || refused == total {
		t.Fatalf("%d of %d steps refused: the test did not exercise both outcomes", refused, total)
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// limitErrText is RL.ALL's error for limit i failing with msg.
func limitErrText(i int, msg string) string {
	code, rest, _ := strings.Cut(msg, " ")
	return code + " limit " + strconv.Itoa(i) + ": " + rest
}

// restore puts the keys back as DUMP and PTTL read them before the step.
func restore(t *testing.T, c *RawConn, pairs []*twinPair, dumps []*Reply, pttls []int64) {
	for i, p := range pairs {
		c.MustDo(t, "DEL", p.key)
		if !dumps[i].Null && pttls[i] != -2 {
			ttl := pttls[i]
			switch ttl {
			case -1:
				ttl = 0 // no TTL: RESTORE's 0
			case 0:
				ttl = 1 // under a millisecond left: RESTORE's 0 would keep it forever
			}
			if r := c.MustDo(t, "RESTORE", p.key, i64(ttl), dumps[i].Str); r.IsError() {
				t.Fatalf("RESTORE %s: %q", p.key, r.Raw)
			}
		}
	}
}

// go-redis/redis_rate, through its own client, on limitkv (its scripts
// recognised, run natively) and on redis-server (interpreted): random
// Allow/AllowN/AllowAtMost over several keys and limits; the decisions and
// remaining must be the same, durations and the stored TAT within a few
// ms (each server reads its own clock), PTTL likewise.
func TestLimitRedisRateClientNative(t *testing.T) {
	rds, lkv := newClients(t)
	flushBoth(t)
	ctx := t.Context()
	seed := rlSeed(t)
	t.Logf("seed %d (rerun with LIMITKV_SEED=%d)", seed, seed)
	rnd := rand.New(rand.NewSource(seed))
	limR, limL := redis_rate.NewLimiter(rds), redis_rate.NewLimiter(lkv)
	limits := []redis_rate.Limit{redis_rate.PerMinute(5), redis_rate.PerHour(100), {Rate: 3, Burst: 7, Period: 10 * time.Minute}}
	const tol = 0.05 // seconds
	steps, allowed := 600, 0
	if testing.Short() {
		steps = 150
	}
	before := scriptCallsOn(t, lkv.Do(ctx, "INFO", "commandstats").String())
	for i := 0; i < steps; i++ {
		key := "u" + strconv.Itoa(rnd.Intn(4))
		lim := limits[int(key[1]-'0')%len(limits)]
		n := 1 + rnd.Intn(3)
		var r, l *redis_rate.Result
		var errR, errL error
		switch rnd.Intn(5) {
		case 0:
			r, errR = limR.AllowAtMost(ctx, key, lim, n)
			l, errL = limL.AllowAtMost(ctx, key, lim, n)
		case 1:
			errR, errL = limR.Reset(ctx, key), limL.Reset(ctx, key)
		default:
			r, errR = limR.AllowN(ctx, key, lim, n)
			l, errL = limL.AllowN(ctx, key, lim, n)
		}
		if errR != nil || errL != nil {
			t.Fatalf("step %d: redis %v, limitkv %v", i, errR, errL)
		}
		if r != nil {
			allowed += l.Allowed
			if r.Allowed != l.Allowed || r.Remaining != l.Remaining ||
				math.Abs((r.RetryAfter-l.RetryAfter).Seconds()) > tol || math.Abs((r.ResetAfter-l.ResetAfter).Seconds()) > tol {
				t.Fatalf("step %d %s:\n redis   %+v\n limitkv %+v", i, key, *r, *l)
			}
		}
		vr, _ := rds.Get(ctx, "rate:"+key).Float64()
		vl, _ := lkv.Get(ctx, "rate:"+key).Float64()
		pr, pl := rds.PTTL(ctx, "rate:"+key).Val(), lkv.PTTL(ctx, "rate:"+key).Val()
		if math.Abs(vr-vl) > tol || (pr-pl).Abs() > 1100*time.Millisecond { // EX rounds up to the second
			t.Fatalf("step %d %s: TAT redis %v pttl %v, limitkv %v pttl %v", i, key, vr, pr, vl, pl)
		}
	}
	after := scriptCallsOn(t, lkv.Do(ctx, "INFO", "commandstats").String())
	t.Logf("%d steps matched, %d requests allowed; %d commands ran in Lua on limitkv", steps, allowed, after-before)
	if after != before {
		t.Fatalf("redis_rate's scripts ran %d commands in the interpreter: not recognised", after-before)
	}
}

// node-rate-limiter-flexible's consume script by EVALSHA: limitkv runs it
// natively, redis-server interprets it. The reply's ttl and the key's PTTL
// are each server's clock, equal within the time a step takes.
func TestLimitRLFConsumeNative(t *testing.T) {
	requireServers(t)
	p := newTwinPair(t, "rlf:user")
	sha := limiter.RLFConsumeSHA1
	for _, c := range []*RawConn{p.rds, p.lkv} {
		if r := c.MustDo(t, "SCRIPT", "LOAD", limiter.RLFConsumeScript); r.Str != sha {
			t.Fatalf("%s: SCRIPT LOAD %q", c.Name, r.Raw)
		}
	}
	seed := rlSeed(t)
	rnd := rand.New(rand.NewSource(seed))
	steps := 400
	for i := 0; i < steps; i++ {
		p.syncAt = time.Now()
		switch rnd.Intn(30) {
		case 0:
			p.del()
		case 1:
			p.rds.MustDo(t, "PERSIST", p.key)
			p.lkv.MustDo(t, "PERSIST", p.key)
		case 2:
			p.rds.MustDo(t, "PEXPIRE", p.key, "1")
			p.lkv.MustDo(t, "PEXPIRE", p.key, "1")
			time.Sleep(5 * time.Millisecond)
		}
		args := []string{"EVALSHA", sha, "1", p.key, []string{"1", "1", "2", "-1", "x"}[rnd.Intn(5)], []string{"1", "60", "3600", "0"}[rnd.Intn(4)], "10", "60"}
		r, l := p.rds.MustDo(t, args...), p.lkv.MustDo(t, args...)
		p.compare(0, fmt.Sprintf("%q", args[4:]), r, l, 1)
	}
	t.Logf("%d steps matched", p.steps)
}

// scriptCallsOn counts TIME calls, which only redis_rate's scripts make
// when the interpreter runs them.
func scriptCallsOn(t *testing.T, info string) int {
	n := 0
	for _, line := range strings.Split(info, "\n") {
		for _, c := range []string{"cmdstat_time:"} { // only scripts call TIME here
			if strings.HasPrefix(line, c) {
				v, _ := strconv.Atoi(strings.TrimPrefix(strings.SplitN(line, ",", 2)[0], c+"calls="))
				n += v
			}
		}
	}
	return n
}

// A redis-server replica of limitkv ends with the master's keys, TTLs
// included (DEBUG DIGEST), after every limiter command and recognised
// script has run on the master: what they propagate is plain Redis.
func TestLimitReplicatedToRedis(t *testing.T) {
	requireServers(t)
	lm, lport := startLimitkvOn(t, "limitkv master", nil)
	lr, _ := startRedisOn(t, t.TempDir())
	lr.Name = "redis replica of limitkv"
	mustOK(t, lr, "REPLICAOF", "127.0.0.1", lport)
	waitSynced(t, lm, lr)
	rnd := rand.New(rand.NewSource(rlSeed(t)))
	mustOK(t, lm, "SCRIPT", "LOAD", limiter.RedisRateAllowNScript)
	mustOK(t, lm, "SCRIPT", "LOAD", limiter.RLFConsumeScript)
	cmds := func(k string) [][]string {
		id := "job" + strconv.Itoa(rnd.Intn(4))
		return [][]string{
			{"CL.THROTTLE", k + ":cell", "3", "10", "60", strconv.Itoa(rnd.Intn(3))},
			{"RL.GCRA", k + ":gcra", "*", "3", "10", "60"},
			{"RL.TOKEN", k + ":tb", "*", "5", "1", "100", "COST", strconv.Itoa(rnd.Intn(3))},
			{"RL.FIXED", k + ":fw", "1000", "5"},
			{"RL.SLIDING", k + ":sw", "*", "500", "5"},
			{"RL.ACQUIRE", k + ":lease", "*", "2", "300", id},
			{"RL.RELEASE", k + ":lease", "*", "2", "job" + strconv.Itoa(rnd.Intn(4))},
			{"RL.RESERVE", k + ":budget", "*", "1000", "100", strconv.Itoa(rnd.Intn(40))},
			{"RL.ALL", "*", k + ":all1", "TOKEN 3 1 200", k + ":all2", "LEASE 2 300 " + id, k + ":all3", "SLIDING 500 4"},
			{"RL.CHECK", k + ":log", "*", "500", "4", "*"},
			{"EVALSHA", limiter.RedisRateAllowNSHA1, "1", k + ":rr", "5", "10", "1", "1"},
			{"EVALSHA", limiter.RLFConsumeSHA1, "1", k + ":rlf", "1", "2", "5", "2"},
		}
	}
	n := 0
	for i := 0; i < 200; i++ {
		for _, c := range cmds("u" + strconv.Itoa(rnd.Intn(3))) {
			if r := lm.MustDo(t, c...); r.IsError() {
				t.Fatalf("%q: %q", c, r.Raw)
			}
			n++
		}
		if rnd.Intn(20) == 0 {
			time.Sleep(time.Duration(rnd.Intn(100)) * time.Millisecond)
		}
	}
	waitSynced(t, lm, lr)
	sameDigest(t, "after the limiters", lm, lr)
	keys := lm.MustDo(t, "DBSIZE").Int
	t.Logf("%d commands on the master, %d keys, same digest on the redis-server replica", n, keys)
	if keys < 20 {
		t.Fatalf("only %d keys: the limiters did not write", keys)
	}
}
