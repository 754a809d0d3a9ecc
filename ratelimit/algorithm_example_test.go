package ratelimit_test

import (
	"context"
	"fmt"
	"time"

	"github.com/limitkv/limitkv"
	"github.com/limitkv/limitkv/ratelimit"
	"github.com/redis/go-redis/v9"
)

// A token bucket: bursts of 3, then one request every 20 s. On Redis,
// Valkey or Dragonfly the same limiter runs the twin script.
func ExampleNew_tokenBucket() {
	srv, err := limitkv.Start(limitkv.Options{})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()

	lim, err := ratelimit.New(rdb, ratelimit.Options{
		Name: "search", Algorithm: ratelimit.TokenBucket, Limit: 3, Window: time.Minute, Burst: 3,
		Now: fixedNow, // the example's figures do not depend on when it runs
	})
	if err != nil {
		panic(err)
	}
	for i := 1; i <= 4; i++ {
		res, err := lim.Allow(context.Background(), "acme", "user123")
		if err != nil {
			panic(err)
		}
		fmt.Printf("call %d: allowed=%v remaining=%d retry=%v\n", i, res.Allowed, res.Remaining, res.RetryAfter)
	}
	fmt.Println(lim.Policy().PolicyField())
	// Output:
	// call 1: allowed=true remaining=2 retry=0s
	// call 2: allowed=true remaining=1 retry=0s
	// call 3: allowed=true remaining=0 retry=0s
	// call 4: allowed=false remaining=0 retry=20s
	// "search";q=3;w=60
}

// Leases: at most 2 reports rendered at once per tenant.
func ExampleConcurrency() {
	srv, err := limitkv.Start(limitkv.Options{})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()

	jobs, err := ratelimit.NewConcurrency(rdb, ratelimit.ConcurrencyOptions{Name: "reports", Limit: 2, Lease: time.Minute, Now: fixedNow})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for _, id := range []string{"r1", "r2", "r3"} {
		res, _ := jobs.Acquire(ctx, "acme", "all", id)
		fmt.Println("acquire", id, res.Allowed)
	}
	res, _ := jobs.Release(ctx, "acme", "all", "r1")
	fmt.Println("release r1", res.Allowed)
	res, _ = jobs.Acquire(ctx, "acme", "all", "r3")
	fmt.Println("acquire r3", res.Allowed)
	hs, _ := jobs.Holders(ctx, "acme", "all")
	fmt.Println(len(hs), "held")
	// Output:
	// acquire r1 true
	// acquire r2 true
	// acquire r3 false
	// release r1 true
	// acquire r3 true
	// 2 held
}

// A budget of LLM tokens: reserve an estimate, settle the real cost.
func ExampleBudget() {
	srv, err := limitkv.Start(limitkv.Options{})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()

	b, err := ratelimit.NewBudget(rdb, ratelimit.BudgetOptions{Name: "llm", Limit: 10000, Window: time.Hour, Unit: "tokens", Now: fixedNow})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	r, err := b.Reserve(ctx, "acme", "user123", 4000)
	if err != nil || !r.Allowed {
		panic("refused")
	}
	fmt.Println("reserved, remaining", r.Remaining)
	// ... the call used 2500 tokens
	s, err := b.Settle(ctx, r, 2500)
	if err != nil {
		panic(err)
	}
	fmt.Println("settled", s.Allowed, "remaining", s.Remaining)
	// Output:
	// reserved, remaining 6000
	// settled true remaining 7500
}

// Three limits in one step: the user's bucket, the IP's window and the
// tenant's GCRA are all charged, or none is.
func ExampleAllowAll() {
	srv, err := limitkv.Start(limitkv.Options{})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()

	user, _ := ratelimit.New(rdb, ratelimit.Options{Name: "user", Algorithm: ratelimit.TokenBucket, Limit: 10, Window: time.Minute, Now: fixedNow})
	ip, _ := ratelimit.New(rdb, ratelimit.Options{Name: "ip", Algorithm: ratelimit.SlidingWindow, Limit: 2, Window: time.Minute, Now: fixedNow})
	tenant, _ := ratelimit.New(rdb, ratelimit.Options{Name: "tenant", Algorithm: ratelimit.GCRA, Limit: 100, Window: time.Minute, Now: fixedNow})
	ctx := context.Background()
	for i := 1; i <= 3; i++ {
		m, err := ratelimit.AllowAll(ctx,
			user.Charge("acme", "user123", 1), ip.Charge("acme", "10.0.0.7", 1), tenant.Charge("acme", "all", 1))
		if err != nil {
			panic(err)
		}
		fmt.Printf("call %d: allowed=%v refused=%d user remaining=%d\n", i, m.Allowed, m.Refused, m.Results[0].Remaining)
	}
	// The refused step charged nothing: the user's bucket still holds 8
	// (call 3's figures are what each limit would have answered alone).
	res, _ := user.Allow(ctx, "acme", "user123")
	fmt.Println("user remaining after one more call:", res.Remaining)
	// Output:
	// call 1: allowed=true refused=-1 user remaining=9
	// call 2: allowed=true refused=-1 user remaining=8
	// call 3: allowed=false refused=1 user remaining=7
	// user remaining after one more call: 7
}

// fixedNow stands still, so the examples print the same figures whenever
// and however slowly they run (a real clock moves between two calls).
func fixedNow() time.Time { return time.UnixMilli(1_700_000_000_000) }
