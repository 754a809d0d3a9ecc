package main

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/limitkv/limitkv/internal/limiter"
	"github.com/limitkv/limitkv/ratelimit/scripts"
)

// Workload 12: each native limiter on limitkv against its Lua twin
// (ratelimit/scripts) by EVALSHA on Redis, CL.THROTTLE against
// go-redis/redis_rate's allowN on Redis, and the library scripts limitkv
// recognises by EVALSHA on both. Workload 13: memory per key of the sliding
// log, the sliding-window counter and GCRA.

// The limit every row and workload 13 apply: 1,000 per hour. With keys
// drawn from 1M a run gives a key a few requests, so every request is
// allowed, as in the seed rows.
const (
	limNow    = seedRBNow // fixed now (ms), 2023-11-14
	limNowNs  = limNow + "000000"
	limWindow = "3600000" // ms
	limPeriod = "3600"    // s
	limLimit  = "1000"
	limBurst  = "999" // CL.THROTTLE / RL.GCRA max_burst: bursts of 1,000
	limLease  = "60000"
	limRand   = 1_000_000
)

// limScript is a script workload 12 or 13 loads with SCRIPT LOAD.
type limScript struct {
	name, text, sha string
}

var limScripts = func() map[string]limScript {
	m := map[string]limScript{}
	for _, s := range []limScript{
		{"cell.lua", scripts.Cell, ""},
		{"token_bucket.lua", scripts.TokenBucket, ""},
		{"fixed_window.lua", scripts.FixedWindow, ""},
		{"sliding_window.lua", scripts.SlidingWindow, ""},
		{"concurrency.lua", scripts.Concurrency, ""},
		{"budget.lua", scripts.Budget, ""},
		{"redis_rate allowN", limiter.RedisRateAllowNScript, limiter.RedisRateAllowNSHA1},
		{"rate-limiter-flexible consume", limiter.RLFConsumeScript, limiter.RLFConsumeSHA1},
		{"seed", seedScript, seedSHA},
	} {
		got := scripts.SHA1(s.text)
		if s.sha != "" && s.sha != got {
			panic(fmt.Sprintf("%s: SHA1 %s, want %s", s.name, got, s.sha))
		}
		s.sha = got
		m[s.name] = s
	}
	return m
}()

func limSHA(name string) string {
	s, ok := limScripts[name]
	if !ok {
		panic("no script " + name)
	}
	return s.sha
}

// loadLimiterScripts loads every script of limScripts and checks the SHA1
// the server answers.
func loadLimiterScripts(s *server) error {
	for _, sc := range limScripts {
		r, err := s.Do("SCRIPT", "LOAD", sc.text)
		if err != nil {
			return err
		}
		if err := r.err(); err != nil {
			return fmt.Errorf("SCRIPT LOAD %s: %w", sc.name, err)
		}
		if r.str != sc.sha {
			return fmt.Errorf("SCRIPT LOAD %s answered %q, want %s", sc.name, r.str, sc.sha)
		}
	}
	return nil
}

// evalsha is EVALSHA of a limScript on one key.
func evalsha(script, key string, args ...string) []string {
	return append([]string{"EVALSHA", limSHA(script), "1", key}, args...)
}

// probeArgs is a row's command with every __rand_int__ replaced, for the
// probe (which must not answer an error).
func probeArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, "__rand_int__", "probe")
	}
	return out
}

// limPair is one row of workload 12: the command on limitkv and what Redis
// runs instead (the same command when both run the library's EVALSHA).
type limPair struct {
	id, label    string
	native, twin []string
	gen          func(native bool) func(int) genFunc // Go load generator instead of redis-benchmark
}

func limPairs() []limPair {
	k := func(alg string) string { return "{l}:" + alg + ":__rand_int__" }
	rr := evalsha("redis_rate allowN", k("rr"), limLimit, limLimit, limPeriod, "1")
	rlf := evalsha("rate-limiter-flexible consume", k("rlf"), "1", limPeriod)
	return []limPair{
		{id: "gcra", label: "RL.GCRA vs cell.lua",
			native: []string{"RL.GCRA", k("gcra"), limNow, limBurst, limLimit, limPeriod},
			twin:   evalsha("cell.lua", k("gcra"), limNowNs, limBurst, limLimit, limPeriod, "1")},
		{id: "token", label: "RL.TOKEN vs token_bucket.lua",
			native: []string{"RL.TOKEN", k("token"), limNow, limLimit, limLimit, limWindow},
			twin:   evalsha("token_bucket.lua", k("token"), limNow, limLimit, limLimit, limWindow, "1", "check")},
		{id: "fixed", label: "RL.FIXED vs fixed_window.lua",
			native: []string{"RL.FIXED", k("fixed"), limWindow, limLimit},
			twin:   evalsha("fixed_window.lua", k("fixed"), limWindow, limLimit, "1", "check")},
		{id: "sliding", label: "RL.SLIDING vs sliding_window.lua",
			native: []string{"RL.SLIDING", k("sliding"), limNow, limWindow, limLimit},
			twin:   evalsha("sliding_window.lua", k("sliding"), limNow, limWindow, limLimit, "1", "check")},
		{id: "acquire", label: "RL.ACQUIRE (a new lease) vs concurrency.lua acquire",
			native: []string{"RL.ACQUIRE", k("lease"), limNow, limLimit, limLease, "l:__rand_int__"},
			twin:   evalsha("concurrency.lua", k("lease"), limNow, "acquire", limLimit, limLease, "l:__rand_int__")},
		{id: "lease-pair", label: "RL.ACQUIRE then RL.RELEASE of the same lease vs concurrency.lua",
			gen:    leasePairGen, // native and twin: the probes
			native: []string{"RL.RELEASE", k("lease"), limNow, limLimit, "l:__rand_int__"},
			twin:   evalsha("concurrency.lua", k("lease"), limNow, "release", limLimit, "1", "l:__rand_int__")},
		{id: "reserve", label: "RL.RESERVE vs budget.lua reserve",
			native: []string{"RL.RESERVE", k("budget"), limNow, limWindow, limLimit, "1"},
			twin:   evalsha("budget.lua", k("budget"), limNow, "reserve", limWindow, limLimit, "1")},
		{id: "throttle", label: "CL.THROTTLE vs redis_rate v10 allowN (EVALSHA) on Redis",
			native: []string{"CL.THROTTLE", k("rr"), limBurst, limLimit, limPeriod, "1"},
			twin:   rr},
		{id: "redis-rate", label: "redis_rate v10 allowN, EVALSHA on both",
			native: rr, twin: rr},
		{id: "rlf", label: "rate-limiter-flexible consume, EVALSHA on both",
			native: rlf, twin: rlf},
	}
}

// labelLimiterPrefix marks workload 12's rows, whose targets are the
// issue's: >= 1.3x at P1, >= 5x at P16.
const (
	limTargetP1  = 1.3
	limTargetP16 = 5.0
)

// limiterRows lists workload 12 for both pipeline depths.
func limiterRows() []row {
	var rows []row
	for _, lp := range limPairs() {
		for _, p := range []int{1, 16} {
			ps := "-P" + strconv.Itoa(p)
			var l, r *spec
			if lp.gen != nil {
				l = &spec{ID: "lim-" + lp.id + "-native" + ps, Pipeline: p, State: "flushed+limiters", Gen: lp.gen(true),
					Probe: probeArgs(lp.native)}
				r = &spec{ID: "lim-" + lp.id + "-twin" + ps, Pipeline: p, State: "flushed+limiters", Gen: lp.gen(false),
					Probe: probeArgs(lp.twin)}
			} else {
				l = &spec{ID: "lim-" + lp.id + "-native" + ps, Pipeline: p, RBRand: limRand, State: "flushed+limiters",
					RBArgs: lp.native, Probe: probeArgs(lp.native)}
				if slicesEqual(lp.native, lp.twin) {
					l.ID = "lim-" + lp.id + "-evalsha" + ps
					r = l
				} else {
					r = &spec{ID: "lim-" + lp.id + "-twin" + ps, Pipeline: p, RBRand: limRand, State: "flushed+limiters",
						RBArgs: lp.twin, Probe: probeArgs(lp.twin)}
				}
			}
			rows = append(rows, row{12, lp.label, p, l, r, nil})
		}
	}
	return rows
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// leasePairGen makes clients that alternate RL.ACQUIRE of a new lease on a
// random key of 1M and RL.RELEASE of that lease (concurrency.lua's acquire
// and release on Redis), with the fixed now. A connection runs its
// requests in order, so the release always finds the lease held.
func leasePairGen(native bool) func(int) genFunc {
	return func(ci int) genFunc {
		n := 0
		var key, id []byte
		sha := limSHA("concurrency.lua")
		return func(b []byte, rng *rand.Rand, _ time.Time) []byte {
			if n%2 == 0 {
				key = fmt.Appendf(key[:0], "{l}:lease:%012d", rng.IntN(limRand))
				id = fmt.Appendf(id[:0], "c%d:%d", ci, n)
			}
			acquire := n%2 == 0
			n++
			switch {
			case native && acquire:
				b = appendArrayHeader(b, 6)
				b = appendBulkString(b, "RL.ACQUIRE")
				b = appendBulk(b, key)
				b = appendBulkString(b, limNow)
				b = appendBulkString(b, limLimit)
				b = appendBulkString(b, limLease)
			case native:
				b = appendArrayHeader(b, 5)
				b = appendBulkString(b, "RL.RELEASE")
				b = appendBulk(b, key)
				b = appendBulkString(b, limNow)
				b = appendBulkString(b, limLimit)
			default:
				b = appendArrayHeader(b, 9)
				b = appendBulkString(b, "EVALSHA")
				b = appendBulkString(b, sha)
				b = appendBulkString(b, "1")
				b = appendBulk(b, key)
				b = appendBulkString(b, limNow)
				if acquire {
					b = appendBulkString(b, "acquire")
					b = appendBulkString(b, limLimit)
					b = appendBulkString(b, limLease)
				} else {
					b = appendBulkString(b, "release")
					b = appendBulkString(b, limLimit)
					b = appendBulkString(b, "1")
				}
			}
			return appendBulk(b, id)
		}
	}
}

// limiterTarget is the ratio for a workload 12 row.
func limiterTarget(pipeline int) float64 {
	if pipeline >= 16 {
		return limTargetP16
	}
	return limTargetP1
}

// Workload 13: memory per key, 1,000 per hour, 500 requests recorded each.

const (
	limMemRequests = 500
	limMemLimit    = 1000
)

// limMemAlg is one algorithm of workload 13: how request i (of a load of
// total, keys keys) is written on limitkv (native) and on Redis (its
// script), and the reply each must give.
type limMemAlg struct {
	Name      string
	Native    string // limitkv's command
	Twin      string // Redis's script
	Log       bool   // one request per recorded entry (else one request of COST 500 per key)
	build     func(b []byte, native bool, key []byte, now int64, member []byte) []byte
	wantReply func(native bool, pass int, r reply) bool
}

// arrayHead reports whether r is an array whose first elements are want.
func arrayHead(r reply, want ...int64) bool {
	if r.kind != '*' || len(r.elems) < len(want) {
		return false
	}
	for i, w := range want {
		if r.elems[i].kind != ':' || r.elems[i].n != w {
			return false
		}
	}
	return true
}

var limMemAlgorithms = []limMemAlg{
	{Name: "sliding log", Native: "RL.CHECK", Twin: "the seed script", Log: true,
		build: func(b []byte, native bool, key []byte, now int64, member []byte) []byte {
			if native {
				b = appendArrayHeader(b, 6)
				b = appendBulkString(b, "RL.CHECK")
			} else {
				b = appendArrayHeader(b, 8)
				b = appendBulkString(b, "EVALSHA")
				b = appendBulkString(b, seedSHA)
				b = appendBulkString(b, "1")
			}
			b = appendBulk(b, key)
			b = appendBulkInt(b, now)
			b = appendBulkString(b, limWindow)
			b = appendBulkString(b, limLimit)
			return appendBulk(b, member)
		},
		// The n-th request of a key answers n-1, the count before it.
		wantReply: func(_ bool, pass int, r reply) bool { return r.kind == ':' && r.n == int64(pass) }},
	{Name: "sliding-window counter", Native: "RL.SLIDING", Twin: "sliding_window.lua",
		build: func(b []byte, native bool, key []byte, now int64, _ []byte) []byte {
			cost := strconv.Itoa(limMemRequests)
			if native {
				b = appendArrayHeader(b, 7)
				b = appendBulkString(b, "RL.SLIDING")
				b = appendBulk(b, key)
				b = appendBulkInt(b, now)
				b = appendBulkString(b, limWindow)
				b = appendBulkString(b, limLimit)
				b = appendBulkString(b, "COST")
				return appendBulkString(b, cost)
			}
			b = appendArrayHeader(b, 9)
			b = appendBulkString(b, "EVALSHA")
			b = appendBulkString(b, limSHA("sliding_window.lua"))
			b = appendBulkString(b, "1")
			b = appendBulk(b, key)
			b = appendBulkInt(b, now)
			b = appendBulkString(b, limWindow)
			b = appendBulkString(b, limLimit)
			b = appendBulkString(b, cost)
			return appendBulkString(b, "check")
		},
		wantReply: func(_ bool, _ int, r reply) bool { return arrayHead(r, 1, limMemRequests) }},
	{Name: "GCRA", Native: "RL.GCRA", Twin: "cell.lua",
		build: func(b []byte, native bool, key []byte, now int64, _ []byte) []byte {
			cost := strconv.Itoa(limMemRequests)
			if native {
				b = appendArrayHeader(b, 8)
				b = appendBulkString(b, "RL.GCRA")
				b = appendBulk(b, key)
				b = appendBulkInt(b, now)
				b = appendBulkString(b, limBurst)
				b = appendBulkString(b, limLimit)
				b = appendBulkString(b, limPeriod)
				b = appendBulkString(b, "COST")
				return appendBulkString(b, cost)
			}
			b = appendArrayHeader(b, 9)
			b = appendBulkString(b, "EVALSHA")
			b = appendBulkString(b, limSHA("cell.lua"))
			b = appendBulkString(b, "1")
			b = appendBulk(b, key)
			b = appendBulkString(b, strconv.FormatInt(now, 10)+"000000")
			b = appendBulkString(b, limBurst)
			b = appendBulkString(b, limLimit)
			b = appendBulkString(b, limPeriod)
			return appendBulkString(b, cost)
		},
		// RL.GCRA answers allowed 1; cell.lua limited 0.
		wantReply: func(native bool, _ int, r reply) bool {
			if native {
				return arrayHead(r, 1)
			}
			return arrayHead(r, 0)
		}},
}

// lmemResult is workload 13 on one server and algorithm.
type lmemResult struct {
	Server, Alg, Command string
	Keys, PerKey         int // keys; requests per key
	Calls                int // requests sent (PerKey x Keys for the log, Keys otherwise)
	LoadTime             time.Duration
	RSSEmpty, RSSAfter   int64
	UsedEmpty, UsedAfter int64
	DBSize               int64
	Err                  string
}

// perKey is RSS growth and used_memory growth per key.
func (m lmemResult) perKey() (rss, used float64) {
	n := float64(m.Keys)
	return float64(m.RSSAfter-m.RSSEmpty) / n, float64(m.UsedAfter-m.UsedEmpty) / n
}

func (m lmemResult) summary() string {
	if m.Err != "" {
		return "error: " + m.Err
	}
	rss, used := m.perKey()
	return fmt.Sprintf("%d keys (%d calls) in %.1fs, RSS %s -> %s MB, used_memory %s -> %s MB: %.0f B/key RSS, %.0f B/key used_memory",
		m.Keys, m.Calls, m.LoadTime.Seconds(), fmtMB(m.RSSEmpty), fmtMB(m.RSSAfter), fmtMB(m.UsedEmpty), fmtMB(m.UsedAfter), rss, used)
}

// runLimiterMemory records 500 requests for each key of one algorithm on
// a fresh server and reads its memory. The sliding log gets 500 requests
// per key, in 500 passes over the keys, stamped with the load's own clock
// spread over half the window (so none leaves it however long the load
// takes; each key's TTL, an hour on the server's clock from its last
// write, outlives the reading); the O(1) limiters get one request of
// COST 500 per key, which leaves the same value (a TAT, or start, cur 500,
// prev 0) as 500 requests of 1 would.
func runLimiterMemory(cfg *config, name, bin, dir string, alg limMemAlg) (res lmemResult) {
	native := name == "limitkv"
	res = lmemResult{Server: name, Alg: alg.Name, Command: alg.Twin, Keys: cfg.limitKeys, PerKey: limMemRequests}
	if native {
		res.Command = alg.Native
	}
	if alg.Log {
		res.Keys = cfg.logKeys
	}
	res.Calls = res.Keys
	if alg.Log {
		res.Calls = res.Keys * limMemRequests
	}
	fail := func(err error) lmemResult { res.Err = err.Error(); return res }
	s, err := startServer(name, bin, dir, false)
	if err != nil {
		return fail(err)
	}
	defer s.Stop()
	if !native {
		if err := loadLimiterScripts(s); err != nil {
			return fail(err)
		}
	}
	time.Sleep(500 * time.Millisecond)
	res.RSSEmpty, res.UsedEmpty = s.RSS(), s.UsedMemory()
	keys, total := res.Keys, res.Calls
	window, _ := strconv.ParseInt(limWindow, 10, 64)
	start := time.Now()
	startMs := start.UnixMilli()
	// A key's next request is keys requests (keys/1000 batches) after its
	// last: with fewer than ten batches between them, concurrent
	// connections could deliver them out of order, so small loads take
	// one connection.
	const batch = 1000
	conns := max(1, min(4, keys/(10*batch)))
	bad, first, err := bulkLoad(s.Addr, conns, batch, total, func(b []byte, i int, _ time.Time) []byte {
		pass, k := i/keys, i%keys
		now := startMs + int64(i)*(window/2)/int64(total)
		var kb, mb [48]byte
		key := strconv.AppendInt(append(kb[:0], "ratelimit:user"...), int64(k), 10)
		member := strconv.AppendInt(mb[:0], now, 10)
		member = append(member, ':')
		tag := uint32(pass)<<20 | uint32(k)&0xfffff
		for sh := 28; sh >= 0; sh -= 4 {
			member = append(member, hexDigits[(tag>>uint(sh))&15])
		}
		return alg.build(b, native, key, now, member)
	}, func(i int, r reply) bool { return alg.wantReply(native, i/keys, r) })
	res.LoadTime = time.Since(start)
	if err != nil {
		return fail(err)
	}
	if bad > 0 {
		return fail(fmt.Errorf("%d of %d replies were not the expected one, first: %s", bad, total, first))
	}
	time.Sleep(cfg.settle)
	res.RSSAfter, res.UsedAfter = s.RSS(), s.UsedMemory()
	res.DBSize, _ = s.DBSize()
	if res.DBSize != int64(keys) {
		return fail(fmt.Errorf("DBSIZE %d after loading %d keys", res.DBSize, keys))
	}
	return res
}

// lmemMarkdown is workload 13's table.
func lmemMarkdown(cfg *config, ms []lmemResult) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("## Workload 13: limiter memory per key, limited at %s per hour, %d requests recorded per key\n\n", fmtCount(limMemLimit), limMemRequests)
	p("| algorithm | server | command | keys | calls | load time | RSS empty / after %s MB | used_memory empty / after MB | bytes/key (RSS growth) | bytes/key (used_memory growth) | limitkv/Redis RSS / used_memory |\n", cfg.settle)
	p("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, m := range ms {
		if m.Err != "" {
			p("| %s | %s | %s | %d | | error: %s | | | | | |\n", m.Alg, m.Server, m.Command, m.Keys, m.Err)
			continue
		}
		rss, used := m.perKey()
		ratio := ""
		if m.Server == "limitkv" {
			ratio = "n/a"
			for _, o := range ms {
				if o.Server == "redis" && o.Alg == m.Alg && o.Err == "" {
					orss, oused := o.perKey()
					ratio = fmt.Sprintf("%.2f / %.2f", rss/orss, used/oused)
				}
			}
		}
		p("| %s | %s | %s | %s | %s | %.1f s | %s / %s | %s / %s | %.0f | %.0f | %s |\n", m.Alg, m.Server, m.Command,
			fmtCount(m.Keys), fmtCount(m.Calls), m.LoadTime.Seconds(), fmtMB(m.RSSEmpty), fmtMB(m.RSSAfter),
			fmtMB(m.UsedEmpty), fmtMB(m.UsedAfter), rss, used, ratio)
	}
	p("\nThe sliding log gets %d requests per key (one sorted-set member each); the sliding-window counter and GCRA one request of COST %d per key, which leaves the value %d requests of 1 would.\n\n",
		limMemRequests, limMemRequests, limMemRequests)
	return b.String()
}
