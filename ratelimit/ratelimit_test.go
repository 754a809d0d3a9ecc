package ratelimit

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv"
	"github.com/redis/go-redis/v9"
)

// step is one call in a sequence: move the clock by after, then Allow (or
// AllowN with cost) for tenant/user and compare the whole Result.
type step struct {
	after        time.Duration
	tenant, user string
	cost         int
	want         Result
}

func allowed(count, limit int, reset time.Duration) Result {
	return Result{Allowed: true, Count: count, Limit: limit, Remaining: limit - count, Reset: reset}
}

func refused(count, limit int, retry, reset time.Duration) Result {
	rem := max(limit-count, 0)
	return Result{Count: count, Limit: limit, Remaining: rem, RetryAfter: retry, Reset: reset}
}

// fiveAtOneSecond is the seed's case: 5 requests a second apart, all allowed.
func fiveAtOneSecond(tenant, user string) []step {
	var s []step
	for i := 1; i <= 5; i++ {
		after := time.Second
		if i == 1 {
			after = 0
		}
		s = append(s, step{after: after, tenant: tenant, user: user, want: allowed(i, 5, time.Minute)})
	}
	return s
}

func TestRateLimitSequences(t *testing.T) {
	const m = time.Minute
	cases := []struct {
		name    string
		limit   int
		window  time.Duration
		preload []redis.Z // entries already under the key of acme/u (scores relative to t0 in ms)
		steps   []step
	}{
		{
			name: "sixth in a window refused",
			steps: append(fiveAtOneSecond("acme", "user123"),
				// at 5s: the first entry (0s) leaves at 60s, the last (4s) at 64s
				step{after: time.Second, tenant: "acme", user: "user123", want: refused(5, 5, 55*time.Second, 59*time.Second)},
				// refusals are not recorded: the wait only shrinks
				step{after: 10 * time.Second, tenant: "acme", user: "user123", want: refused(5, 5, 45*time.Second, 49*time.Second)},
			),
		},
		{
			name: "window slides",
			steps: append(fiveAtOneSecond("acme", "user123"),
				step{after: 56*time.Second - time.Millisecond, tenant: "acme", user: "user123",
					want: refused(5, 5, time.Millisecond, 4*time.Second+time.Millisecond)},
				// at 60s the 0s entry is out (score <= now-window): one slot
				step{after: time.Millisecond, tenant: "acme", user: "user123", want: allowed(5, 5, m)},
				step{tenant: "acme", user: "user123", want: refused(5, 5, time.Second, m)},
				// a whole window later everything is gone
				step{after: m, tenant: "acme", user: "user123", want: allowed(1, 5, m)},
			),
		},
		{
			name: "burst in one millisecond",
			steps: []step{
				{tenant: "acme", user: "u", want: allowed(1, 5, m)},
				{tenant: "acme", user: "u", want: allowed(2, 5, m)},
				{tenant: "acme", user: "u", want: allowed(3, 5, m)},
				{tenant: "acme", user: "u", want: allowed(4, 5, m)},
				{tenant: "acme", user: "u", want: allowed(5, 5, m)},
				{tenant: "acme", user: "u", want: refused(5, 5, m, m)},
			},
		},
		{
			name: "tenants and users are independent",
			steps: append(fiveAtOneSecond("acme", "u1"),
				step{tenant: "acme", user: "u1", want: refused(5, 5, 56*time.Second, m)},
				step{tenant: "acme", user: "u2", want: allowed(1, 5, m)},
				step{tenant: "globex", user: "u1", want: allowed(1, 5, m)},
				step{tenant: "acme", user: "u1", want: refused(5, 5, 56*time.Second, m)},
			),
		},
		{
			name:   "limit 1, short window",
			limit:  1,
			window: 250 * time.Millisecond,
			steps: []step{
				{tenant: "a", user: "b", want: allowed(1, 1, 250*time.Millisecond)},
				{after: 100 * time.Millisecond, tenant: "a", user: "b", want: refused(1, 1, 150*time.Millisecond, 150*time.Millisecond)},
				{after: 150 * time.Millisecond, tenant: "a", user: "b", want: allowed(1, 1, 250*time.Millisecond)},
			},
		},
		{
			// A negative score is never pruned (the seed prunes from 0 up):
			// it counts, but waiting does not free it.
			name:    "negative score counts and never leaves",
			preload: []redis.Z{{Score: -5, Member: "neg"}},
			steps: []step{
				{tenant: "acme", user: "u", want: allowed(2, 5, m)},
				{after: time.Second, tenant: "acme", user: "u", want: allowed(3, 5, m)},
				{after: time.Second, tenant: "acme", user: "u", want: allowed(4, 5, m)},
				{after: time.Second, tenant: "acme", user: "u", want: allowed(5, 5, m)},
				{after: time.Second, tenant: "acme", user: "u", want: refused(5, 5, 56*time.Second, 59*time.Second)},
				// at 63.5s the four timed entries are out, and the key's TTL
				// (set at 3s to window+1s) has not run out
				{after: 59*time.Second + 500*time.Millisecond, tenant: "acme", user: "u", want: allowed(2, 5, m)},
			},
		},
		{
			name:    "only negative scores: never",
			limit:   1,
			preload: []redis.Z{{Score: -5, Member: "neg"}},
			steps:   []step{{tenant: "acme", user: "u", want: refused(1, 1, Never, 0)}},
		},
		{
			// More entries than the limit (written by another tool, or a
			// lowered limit): the (count-limit+1)-th oldest must leave.
			name: "over the limit",
			preload: []redis.Z{
				{Score: 1000, Member: "a"}, {Score: 2000, Member: "b"}, {Score: 3000, Member: "c"},
				{Score: 4000, Member: "d"}, {Score: 5000, Member: "e"}, {Score: 6000, Member: "f"}, {Score: 7000, Member: "g"},
			},
			steps: []step{
				{after: 10 * time.Second, tenant: "acme", user: "u", want: refused(7, 5, 53*time.Second, 57*time.Second)},
				{after: 53 * time.Second, tenant: "acme", user: "u", want: allowed(5, 5, m)},
			},
		},
		{
			// Scores in ms are integers when the limiters write them; a
			// fractional one (another writer) rounds the wait up to the next ms.
			name:    "fractional score",
			limit:   1,
			preload: []redis.Z{{Score: 1000.25, Member: "x"}},
			steps: []step{
				{after: 2 * time.Second, tenant: "acme", user: "u", want: refused(1, 1, 59001*time.Millisecond, 59001*time.Millisecond)},
			},
		},
	}
	for _, kind := range envKinds {
		t.Run(kind, func(t *testing.T) {
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					e := newEnv(t, kind)
					l := e.limiter(t, Options{Limit: tc.limit, Window: tc.window})
					if tc.preload != nil {
						needCommands(t, e.rdb, "zadd")
						zs := make([]redis.Z, len(tc.preload))
						for i, z := range tc.preload {
							zs[i] = redis.Z{Score: z.Score + float64(t0.UnixMilli()), Member: z.Member}
							if z.Score < 0 {
								zs[i].Score = z.Score
							}
						}
						if err := e.rdb.ZAdd(context.Background(), l.Key("acme", "u"), zs...).Err(); err != nil {
							t.Fatal(err)
						}
					}
					runSteps(t, e, l, tc.steps)
				})
			}
		})
	}
}

func runSteps(t *testing.T, e *env, l *Limiter, steps []step) {
	t.Helper()
	ctx := context.Background()
	for i, s := range steps {
		e.advance(s.after)
		cost := s.cost
		if cost == 0 {
			cost = 1
		}
		got, err := l.AllowN(ctx, s.tenant, s.user, cost)
		if err != nil {
			t.Fatalf("step %d (%s/%s cost %d): %v", i+1, s.tenant, s.user, cost, err)
		}
		if got != s.want {
			t.Errorf("step %d (%s/%s cost %d):\n got %+v\nwant %+v", i+1, s.tenant, s.user, cost, got, s.want)
		}
	}
}

func TestRateLimitCost(t *testing.T) {
	const m = time.Minute
	for _, kind := range []string{"limitkv", "limitkv-client-clock"} {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t, kind)
			l := e.limiter(t, Options{})
			runSteps(t, e, l, []step{
				{tenant: "a", user: "u", cost: 3, want: allowed(3, 5, m)},
				// 3+3 > 5: one of the three entries at 0s must go, at 60s
				{after: 10 * time.Second, tenant: "a", user: "u", cost: 3, want: refused(3, 5, 50*time.Second, 50*time.Second)},
				{tenant: "a", user: "u", cost: 2, want: allowed(5, 5, m)},
				// more than the limit can never pass
				{tenant: "a", user: "u", cost: 6, want: refused(5, 5, Never, m)},
			})
		})
	}
	for _, kind := range []string{"limitkv-script", "redis-script"} {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t, kind)
			l := e.limiter(t, Options{})
			if _, err := l.AllowN(context.Background(), "a", "u", 2); !errors.Is(err, ErrCostUnsupported) {
				t.Fatalf("AllowN(2) on the script backend: got %v, want ErrCostUnsupported", err)
			}
			if n, _ := e.rdb.Exists(context.Background(), l.Key("a", "u")).Result(); n != 0 {
				t.Fatal("a refused cost recorded something")
			}
		})
	}
	t.Run("bad cost", func(t *testing.T) {
		e := newEnv(t, "limitkv")
		l := e.limiter(t, Options{})
		if _, err := l.AllowN(context.Background(), "a", "u", 0); err == nil {
			t.Fatal("AllowN(0) succeeded")
		}
	})
}

// TestRateLimitStoredData checks what a support engineer sees with redis-cli:
// the seed's key layout, one entry per allowed request, scores in ms, a TTL
// of window+1s.
func TestRateLimitStoredData(t *testing.T) {
	scriptMember := regexp.MustCompile(`^[0-9]+:[0-9a-f]{8}$`)
	for _, kind := range envKinds {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t, kind)
			needCommands(t, e.rdb, "zrange", "pttl")
			l := e.limiter(t, Options{})
			ctx := context.Background()
			const key = "{acme}:ratelimit:suggest-categories:user123"
			if got := l.Key("acme", "user123"); got != key {
				t.Fatalf("key: got %q, want %q", got, key)
			}
			for i := 0; i < 7; i++ {
				if _, err := l.Allow(ctx, "acme", "user123"); err != nil {
					t.Fatal(err)
				}
				e.advance(time.Second)
			}
			zs, err := e.rdb.ZRangeWithScores(ctx, key, 0, -1).Result()
			if err != nil {
				t.Fatal(err)
			}
			if len(zs) != 5 {
				t.Fatalf("ZRANGE: %d entries, want 5: %v", len(zs), zs)
			}
			seen := map[string]bool{}
			for i, z := range zs {
				want := float64(t0.Add(time.Duration(i) * time.Second).UnixMilli())
				if z.Score != want {
					t.Errorf("entry %d: score %v, want %v", i, z.Score, want)
				}
				m := z.Member.(string)
				if seen[m] {
					t.Errorf("member %q twice", m)
				}
				seen[m] = true
				if e.want == BackendScript && !scriptMember.MatchString(m) {
					t.Errorf("member %q is not the seed's <ms>:<8 hex>", m)
				}
			}
			pttl, err := e.rdb.PTTL(ctx, key).Result()
			if err != nil {
				t.Fatal(err)
			}
			// Set at the 5th call; limitkv's clock has moved 3s since, Redis's has not.
			if pttl <= 0 || pttl > time.Minute+time.Second {
				t.Errorf("PTTL %v, want within (0, 61s]", pttl)
			}
		})
	}
}

func TestRateLimitCustomKey(t *testing.T) {
	e := newEnv(t, "limitkv")
	needCommands(t, e.rdb, "zcard")
	l := e.limiter(t, Options{Key: func(tenant, user string) string { return "rl/" + tenant + "/" + user }})
	if _, err := l.Allow(context.Background(), "acme", "bob"); err != nil {
		t.Fatal(err)
	}
	if n := e.rdb.ZCard(context.Background(), "rl/acme/bob").Val(); n != 1 {
		t.Fatalf("custom key holds %d entries, want 1", n)
	}
}

func TestRateLimitOptions(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer rdb.Close()
	bad := []Options{
		{Limit: 0, Window: time.Second},
		{Limit: -1, Window: time.Second},
		{Limit: 1, Window: 0},
		{Limit: 1, Window: time.Microsecond},
		{Limit: 1, Window: time.Second, Backend: 7},
	}
	for _, o := range bad {
		if _, err := New(rdb, o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
	if _, err := New(nil, Options{Limit: 1, Window: time.Second}); err == nil {
		t.Error("New(nil client) accepted")
	}
	l, err := New(rdb, Options{Limit: 3, Window: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if l.Name() != "default" || l.Limit() != 3 || l.Window() != 1500*time.Millisecond ||
		l.Key("t", "u") != "{t}:ratelimit:default:u" {
		t.Errorf("defaults: name %q limit %d window %v key %q", l.Name(), l.Limit(), l.Window(), l.Key("t", "u"))
	}
}

// TestRateLimitScript pins the embedded script to the seed's bytes.
func TestRateLimitScript(t *testing.T) {
	if got, want := ScriptSHA1(), "2f28f575aa22b7cfd53ae3e5432bbd242143347a"; got != want {
		t.Fatalf("embedded script SHA1 %s, want the seed's %s", got, want)
	}
	if m := scriptMember(1700000000123); !regexp.MustCompile(`^1700000000123:[0-9a-f]{8}$`).MatchString(m) {
		t.Fatalf("member %q", m)
	}
}

// TestRateLimitScriptReload: a server whose script cache was flushed gets
// the text again (EVALSHA answers NOSCRIPT, the limiter falls back to EVAL).
func TestRateLimitScriptReload(t *testing.T) {
	for _, kind := range []string{"limitkv-script", "redis-script"} {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t, kind)
			l := e.limiter(t, Options{})
			ctx := context.Background()
			for i := 1; i <= 3; i++ {
				if err := e.rdb.ScriptFlush(ctx).Err(); err != nil {
					t.Fatal(err)
				}
				res, err := l.Allow(ctx, "a", "u")
				if err != nil || res.Count != i {
					t.Fatalf("call %d: %+v, %v", i, res, err)
				}
			}
			ok, err := e.rdb.ScriptExists(ctx, ScriptSHA1()).Result()
			if err != nil || !ok[0] {
				t.Fatalf("SCRIPT EXISTS after EVAL: %v %v", ok, err)
			}
		})
	}
}

func TestRateLimitDetection(t *testing.T) {
	ctx := context.Background()
	t.Run("limitkv", func(t *testing.T) {
		srv := limitkv.StartT(t, limitkv.Options{})
		l, _ := New(newClient(t, srv.Addr()), Options{Limit: 1, Window: time.Second})
		if b, err := l.Backend(ctx); b != BackendLimitkv || err != nil {
			t.Fatalf("got %v, %v", b, err)
		}
	})
	t.Run("redis", func(t *testing.T) {
		l, _ := New(newClient(t, realRedis(t)), Options{Limit: 1, Window: time.Second})
		if b, err := l.Backend(ctx); b != BackendScript || err != nil {
			t.Fatalf("got %v, %v", b, err)
		}
	})
	t.Run("COMMAND refused", func(t *testing.T) {
		f := startFake(t, func(args []string) string {
			if strings.EqualFold(args[0], "COMMAND") {
				return "-NOPERM this user has no permissions to run the 'command|info' command\r\n"
			}
			return ""
		})
		l, _ := New(newClient(t, f.Addr()), Options{Limit: 1, Window: time.Second})
		if b, err := l.Backend(ctx); b != BackendScript || err != nil {
			t.Fatalf("got %v, %v", b, err)
		}
	})
	t.Run("retried after a network failure", func(t *testing.T) {
		srv, err := limitkv.Start(limitkv.Options{})
		if err != nil {
			t.Fatal(err)
		}
		addr := srv.Addr()
		srv.Close()
		l, _ := New(newClient(t, addr), Options{Limit: 1, Window: time.Second})
		if _, err := l.Backend(ctx); err == nil {
			t.Fatal("detection against a closed port succeeded")
		}
		srv2, err := limitkv.Start(limitkv.Options{Addr: addr})
		if err != nil {
			t.Skipf("port %s taken meanwhile: %v", addr, err)
		}
		defer srv2.Close()
		if b, err := l.Backend(ctx); b != BackendLimitkv || err != nil {
			t.Fatalf("second detection: got %v, %v", b, err)
		}
	})
}

// TestRateLimitFailures checks the seed's policy (nil reply: allow; error:
// refuse and return it) and the configurable ones, on every backend.
func TestRateLimitFailures(t *testing.T) {
	ctx := context.Background()
	// nilServer answers nothing where a count is expected.
	nilServer := func(t *testing.T) string {
		return startFake(t, func(args []string) string {
			switch strings.ToUpper(args[0]) {
			case "COMMAND":
				return "*1\r\n*-1\r\n" // Redis's answer: no such command
			case "EVALSHA", "EVAL":
				return "$-1\r\n"
			case "RL.CHECK":
				return "*-1\r\n"
			}
			return ""
		}).Addr()
	}
	errServer := func(t *testing.T) string {
		return startFake(t, func(args []string) string {
			switch strings.ToUpper(args[0]) {
			case "COMMAND":
				return "*1\r\n*-1\r\n"
			case "EVALSHA", "EVAL", "RL.CHECK":
				return "-ERR boom\r\n"
			}
			return ""
		}).Addr()
	}
	closedServer := func(t *testing.T) string {
		srv, err := limitkv.Start(limitkv.Options{})
		if err != nil {
			t.Fatal(err)
		}
		addr := srv.Addr()
		srv.Close()
		return addr
	}
	wrongType := func(t *testing.T) string {
		srv := limitkv.StartT(t, limitkv.Options{})
		c := newClient(t, srv.Addr())
		if err := c.Set(ctx, "{acme}:ratelimit:default:u", "not a zset", 0).Err(); err != nil {
			t.Fatal(err)
		}
		return srv.Addr()
	}
	wrongTypeRedis := func(t *testing.T) string {
		addr := realRedis(t)
		c := newClient(t, addr)
		if err := c.Set(ctx, "{acme}:ratelimit:default:u", "not a zset", 0).Err(); err != nil {
			t.Fatal(err)
		}
		return addr
	}
	cases := []struct {
		name     string
		server   func(*testing.T) string
		policy   FailurePolicy
		backends []Backend
		allow    bool
		is       error  // errors.Is target of the error (or of StoreErr when allowed)
		contains string // substring of the error
		zsetOps  bool   // the script backend's case needs sorted-set commands on the server
	}{
		{name: "nil reply fails open", server: nilServer, allow: true, is: ErrNoAnswer},
		{name: "nil reply, FailClosed", server: nilServer, policy: FailClosed, is: ErrNoAnswer},
		{name: "error reply fails closed", server: errServer, contains: "ERR boom"},
		{name: "error reply, FailOpen", server: errServer, policy: FailOpen, allow: true, contains: "ERR boom"},
		{name: "closed server fails closed", server: closedServer, contains: "connect"},
		{name: "closed server, FailOpen", server: closedServer, policy: FailOpen, allow: true, contains: "connect"},
		{name: "wrong type fails closed", server: wrongType, contains: "WRONGTYPE", zsetOps: true},
		{name: "wrong type on redis-server fails closed", server: wrongTypeRedis, backends: []Backend{BackendAuto}, contains: "WRONGTYPE"},
	}
	for _, tc := range cases {
		backends := tc.backends
		if backends == nil {
			backends = []Backend{BackendAuto, BackendLimitkv, BackendScript}
		}
		for _, b := range backends {
			t.Run(tc.name+"/"+b.String(), func(t *testing.T) {
				var policyCalls int
				policy := tc.policy
				if policy == nil {
					policy = FailOpenOnNoAnswer
				}
				rdb := newClient(t, tc.server(t))
				if tc.zsetOps && b == BackendScript {
					needCommands(t, rdb, scriptCommands...)
				}
				l, err := New(rdb, Options{
					Limit: 5, Window: time.Minute, Backend: b,
					OnFailure: func(ctx context.Context, key string, err error) bool {
						policyCalls++
						if key != "{acme}:ratelimit:default:u" {
							t.Errorf("policy got key %q", key)
						}
						return policy(ctx, key, err)
					},
				})
				if err != nil {
					t.Fatal(err)
				}
				res, err := l.Allow(ctx, "acme", "u")
				if policyCalls != 1 {
					t.Errorf("policy called %d times, want 1", policyCalls)
				}
				failure := err
				if tc.allow {
					if err != nil || !res.Allowed || res.StoreErr == nil {
						t.Fatalf("want allowed with StoreErr; got %+v, %v", res, err)
					}
					failure = res.StoreErr
				} else if err == nil || res.Allowed {
					t.Fatalf("want refused with an error; got %+v, %v", res, err)
				}
				if res.Limit != 5 {
					t.Errorf("Limit %d, want 5", res.Limit)
				}
				if tc.is != nil && !errors.Is(failure, tc.is) {
					t.Errorf("error %v is not %v", failure, tc.is)
				}
				if !strings.Contains(failure.Error(), tc.contains) {
					t.Errorf("error %q does not contain %q", failure, tc.contains)
				}
			})
		}
	}
}
