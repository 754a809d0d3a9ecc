package conformance

import (
	"math/rand"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/limitkv/limitkv"
	"github.com/limitkv/limitkv/internal/lua"
)

// The seed script as redis-cli SCRIPT LOAD "$(cat sliding_window.lua)" loads it.
var seedScript = strings.TrimSuffix(lua.SlidingWindowScript, "\n")

const seedSHA = "91bc54027b375c6932fd44b714479f32d407fcba"

// rlSeed returns the seed for a randomized test: LIMITKV_SEED if set, else
// the clock. It is printed so a failure can be replayed.
func rlSeed(t *testing.T) int64 {
	if s := os.Getenv("LIMITKV_SEED"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("LIMITKV_SEED: %v", err)
		}
		return n
	}
	return time.Now().UnixNano()
}

// limiterForm is one way limitkv is asked to run the seed's check.
type limiterForm struct {
	name string
	load string // script to SCRIPT LOAD on limitkv; "" for RL.CHECK
}

var limiterForms = []limiterForm{
	{name: "RL.CHECK"},
	{name: "EVALSHA seed (native path)", load: seedScript},
	{name: "EVALSHA renamed copy (native path)", load: `-- same check, our style
local k = KEYS[1]
local t, w = tonumber(ARGV[1]), nil
w = tonumber(ARGV[2])
local lim = tonumber(ARGV[3]); local id = ARGV[4]
redis.call("zremrangebyscore", k, 0, t - w)
local n = redis.call("ZCARD", k)
if n >= lim then return n end
redis.call("ZADD", k, t, id)
redis.call("PEXPIRE", k, w + 1000)
return n`},
	{name: "EVALSHA unrecognised variant (interpreter)", load: "local unused = 1\n" + seedScript},
}

// TestRateLimitDifferential replays random sliding-window call sequences —
// many keys, repeated and out-of-order timestamps, duplicate members, the
// limit reached and released, keys deleted and expiring — on real Redis
// (EVALSHA of the verbatim seed script) and on limitkv (RL.CHECK, and
// EVALSHA of the seed and of copies through the native and interpreted
// paths), comparing the reply, ZRANGE ... WITHSCORES and PTTL after every step.
func TestRateLimitDifferential(t *testing.T) {
	requireServers(t)
	for _, form := range limiterForms {
		t.Run(form.name, func(t *testing.T) {
			seed := rlSeed(t)
			t.Logf("seed %d (rerun with LIMITKV_SEED=%d)", seed, seed)
			rnd := rand.New(rand.NewSource(seed))
			rds, lkv := dialPair(t)
			flushBoth(t)
			if r := rds.MustDo(t, "SCRIPT", "LOAD", seedScript); r.Str != seedSHA {
				t.Fatalf("redis SCRIPT LOAD = %q", r.Raw)
			}
			var lkvSHA string
			if form.load != "" {
				lkvSHA = lkv.MustDo(t, "SCRIPT", "LOAD", form.load).Str
			}
			base := time.Now().UnixMilli()
			clock := int64(0)
			keys := []string{"{acme}:ratelimit:ai:u1", "{acme}:ratelimit:ai:u2", "{beta}:ratelimit:ai:u1", "k"}
			windows := []int64{50, 1000, 60000}
			limits := []int64{1, 3, 5}
			steps := 1500
			if testing.Short() {
				steps = 300
			}
			fails := 0
			for step := 0; step < steps && fails < 5; step++ {
				key := keys[rnd.Intn(len(keys))]
				switch p := rnd.Intn(100); {
				case p < 2:
					compareStep(t, &fails, step, rds, lkv, []string{"DEL", key}, nil)
					continue
				case p < 3:
					// Let a key expire for real. 5 ms, not 1: Redis's
					// PEXPIRE reads the clock again to see whether the
					// deadline has passed, so with 1 ms it deletes the key
					// at once whenever the millisecond turns during the
					// command, and the two servers' replies part.
					rds.MustDo(t, "PEXPIRE", key, "5")
					lkv.MustDo(t, "PEXPIRE", key, "5")
					time.Sleep(10 * time.Millisecond)
				case p < 8:
					clock -= rnd.Int63n(2000) // a timestamp from the past
				case p < 30:
					// the same millisecond again
				default:
					clock += rnd.Int63n(400)
				}
				now := strconv.FormatInt(base+clock, 10)
				window := strconv.FormatInt(windows[rnd.Intn(len(windows))], 10)
				limit := strconv.FormatInt(limits[rnd.Intn(len(limits))], 10)
				member := now + ":" + strconv.Itoa(rnd.Intn(4)) // duplicates happen
				redisCmd := []string{"EVALSHA", seedSHA, "1", key, now, window, limit, member}
				lkvCmd := []string{"RL.CHECK", key, now, window, limit, member}
				if lkvSHA != "" {
					lkvCmd = []string{"EVALSHA", lkvSHA, "1", key, now, window, limit, member}
				}
				compareStep(t, &fails, step, rds, lkv, redisCmd, lkvCmd)
				compareStep(t, &fails, step, rds, lkv, []string{"ZRANGE", key, "0", "-1", "WITHSCORES"}, nil)
				rp, lp := rds.MustDo(t, "PTTL", key), lkv.MustDo(t, "PTTL", key)
				if d := atoi(rp.Str) - atoi(lp.Str); (atoi(rp.Str) < 0) != (atoi(lp.Str) < 0) || d > 250 || d < -250 {
					fails++
					t.Errorf("step %d: PTTL %s: redis %s, limitkv %s", step, key, rp.Str, lp.Str)
				}
			}
		})
	}
}

func atoi(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }

func compareStep(t *testing.T, fails *int, step int, rds, lkv *RawConn, redisCmd, lkvCmd []string) {
	t.Helper()
	if lkvCmd == nil {
		lkvCmd = redisCmd
	}
	r, l := rds.MustDo(t, redisCmd...), lkv.MustDo(t, lkvCmd...)
	if string(r.Raw) != string(l.Raw) {
		*fails++
		t.Errorf("step %d: redis %q -> %q\nlimitkv %q -> %q", step, redisCmd, r.Raw, lkvCmd, l.Raw)
	}
}

// TestRateLimitErrorsMatchSeedOnWrongType: the native path must answer a
// string key exactly as the interpreted script does on Redis.
func TestRateLimitScriptEdgeCases(t *testing.T) {
	runCases(t, []Case{
		{Name: "seed on a string key", Cmds: []Cmd{
			C("SET", "k", "v"), C("EVAL", seedScript, "1", "k", "1000", "100", "5", "m"),
		}},
		{Name: "seed with limit 0 and negative now", Cmds: []Cmd{
			C("EVAL", seedScript, "1", "k", "-5", "100", "0", "m"), C("EXISTS", "k"),
			C("EVAL", seedScript, "1", "k", "-5", "100", "1", "m"), C("ZRANGE", "k", "0", "-1", "WITHSCORES"),
			C("EVAL", seedScript, "1", "k", "200", "100", "1", "n"), C("ZRANGE", "k", "0", "-1", "WITHSCORES"),
		}},
		{Name: "seed with a fractional now (interpreter)", Cmds: []Cmd{
			C("EVAL", seedScript, "1", "k", "1000.5", "100", "2", "m"), C("ZRANGE", "k", "0", "-1", "WITHSCORES"),
		}},
		{Name: "seed with non-numeric window (interpreter error)", Cmds: []Cmd{
			C("EVAL", seedScript, "1", "k", "1000", "abc", "2", "m"),
		}},
		{Name: "seed with too few arguments", Cmds: []Cmd{
			C("EVAL", seedScript, "1", "k", "1000", "100", "2"), C("ZRANGE", "k", "0", "-1", "WITHSCORES"),
		}},
		{Name: "seed with zero window", Cmds: []Cmd{
			C("EVAL", seedScript, "1", "k", "1000", "0", "2", "m"), C("PTTL", "k").TTLApprox(50),
		}},
		{Name: "seed inside MULTI", Cmds: []Cmd{
			C("MULTI"), C("EVAL", seedScript, "1", "k", "1000", "100", "1", "a"),
			C("EVAL", seedScript, "1", "k", "1001", "100", "1", "b"), C("EXEC"),
		}},
		{Name: "WATCH invalidated by an admitted check only", Cmds: []Cmd{
			C("EVAL", seedScript, "1", "k", "1000", "100", "1", "a"),
			C("WATCH", "k"),
			C("EVAL", seedScript, "1", "k", "1001", "100", "1", "b").On(1), // refused, nothing pruned
			C("MULTI"), C("PING"), C("EXEC"),
			C("WATCH", "k"),
			C("EVAL", seedScript, "1", "k", "1200", "100", "1", "c").On(1), // prunes and admits
			C("MULTI"), C("PING"), C("EXEC"),
		}},
	})
}

// TestRateLimitAtomicityUnderLoad: 200 goroutines over 50 connections hit one
// key with server time and server-made members for several windows. Between
// bursts the test reads the whole key (before anything can leave the window),
// so it sees every entry ever recorded; then it checks that every admitted
// request was recorded and that no sliding window ever held more than limit.
func TestRateLimitAtomicityUnderLoad(t *testing.T) {
	clk := limitkv.NewManualClock(time.Unix(1_800_000_000, 0))
	srv := limitkv.StartT(t, limitkv.Options{Clock: clk})
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), PoolSize: 50, MinIdleConns: 50})
	defer rdb.Close()
	const (
		limit     = 20
		window    = 1000 // ms of the test clock
		step      = window / 10
		steps     = 60 // six windows
		workers   = 200
		perWorker = 3
	)
	ctx := t.Context()
	history := map[string]float64{}
	var admitted atomic.Int64
	for i := 0; i < steps; i++ {
		var wg sync.WaitGroup
		for g := 0; g < workers; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; n < perWorker; n++ {
					// go-redis speaks RESP3 by default: INFO is a map.
					v, err := rdb.Do(ctx, "RL.CHECK", "hot", "*", window, limit, "*", "INFO").Result()
					if err != nil {
						t.Error(err)
						return
					}
					m, ok := v.(map[any]any)
					if !ok {
						t.Errorf("RL.CHECK INFO in RESP3: %T, want a map", v)
						return
					}
					if m["allowed"].(int64) == 1 {
						admitted.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		entries, err := rdb.ZRangeWithScores(ctx, "hot", 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			history[e.Member.(string)] = e.Score
		}
		clk.Add(step * time.Millisecond)
	}
	if int64(len(history)) != admitted.Load() {
		t.Fatalf("%d requests admitted but %d recorded", admitted.Load(), len(history))
	}
	scores := make([]float64, 0, len(history))
	for _, s := range history {
		scores = append(scores, s)
	}
	slices.Sort(scores)
	// An entry at t was admitted with every entry in (t-window, t] counted.
	for i, s := range scores {
		j := sort.SearchFloat64s(scores, s-window+0.5) // first score > s-window
		k := sort.SearchFloat64s(scores, s+0.5)        // past the last score == s
		if n := k - j; n > limit {
			t.Fatalf("window ending at %v holds %d entries (limit %d), entry %d", s, n, limit, i)
		}
	}
	if admitted.Load() < limit*steps/10 {
		t.Fatalf("only %d admitted over %d windows: the load did not exercise the limiter", admitted.Load(), steps/10)
	}
	t.Logf("%d checks, %d admitted over %d windows of %d ms (limit %d)", steps*workers*perWorker, admitted.Load(), steps/10, window, limit)
}
