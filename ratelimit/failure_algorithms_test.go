package ratelimit

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/limitkv/limitkv"
	"github.com/redis/go-redis/v9"
)

// TestFailurePolicyEveryAlgorithm: the default policy fails open on a nil
// reply and closed on an error reply, for every admission (each algorithm's
// Allow, Acquire, Reserve, AllowAll) on both backends; FailOpen lets an
// error through with StoreErr set.
func TestFailurePolicyEveryAlgorithm(t *testing.T) {
	ctx := context.Background()
	// fake answers COMMAND INFO as limitkv (native) or Redis (scripts), and
	// every limiter command or script with reply.
	fake := func(t *testing.T, nativeBackend bool, reply string) string {
		return startFake(t, func(args []string) string {
			switch c := strings.ToUpper(args[0]); {
			case c == "COMMAND" && nativeBackend:
				return "*1\r\n*1\r\n$8\r\nrl.check\r\n"
			case c == "COMMAND":
				return "*1\r\n*-1\r\n"
			case c == "EVALSHA" || c == "EVAL" || strings.HasPrefix(c, "RL."):
				return reply
			}
			return ""
		}).Addr()
	}
	type admit func(c *redis.Client, p FailurePolicy) (allowed bool, storeErr, err error)
	admissions := map[string]admit{}
	for _, alg := range []Algorithm{SlidingLog, GCRA, TokenBucket, FixedWindow, SlidingWindow} {
		admissions[alg.String()] = func(c *redis.Client, p FailurePolicy) (bool, error, error) {
			l, err := New(c, Options{Algorithm: alg, Limit: 5, Window: time.Minute, OnFailure: p})
			if err != nil {
				return false, nil, err
			}
			r, err := l.Allow(ctx, "acme", "u")
			return r.Allowed, r.StoreErr, err
		}
	}
	admissions["acquire"] = func(c *redis.Client, p FailurePolicy) (bool, error, error) {
		cc, _ := NewConcurrency(c, ConcurrencyOptions{Limit: 2, Lease: time.Second, OnFailure: p})
		r, err := cc.Acquire(ctx, "acme", "u", "job")
		return r.Allowed, r.StoreErr, err
	}
	admissions["reserve"] = func(c *redis.Client, p FailurePolicy) (bool, error, error) {
		b, _ := NewBudget(c, BudgetOptions{Limit: 2, Window: time.Second, OnFailure: p})
		r, err := b.Reserve(ctx, "acme", "u", 1)
		return r.Allowed, r.StoreErr, err
	}
	admissions["all"] = func(c *redis.Client, p FailurePolicy) (bool, error, error) {
		l, _ := New(c, Options{Algorithm: TokenBucket, Limit: 5, Window: time.Minute, OnFailure: p})
		m, err := AllowAll(ctx, l.Charge("acme", "u", 1), l.Charge("acme", "v", 1))
		return m.Allowed, m.StoreErr, err
	}
	for name, run := range admissions {
		for _, nativeBackend := range []bool{true, false} {
			for _, tc := range []struct {
				reply   string
				policy  FailurePolicy
				allowed bool
			}{
				{"$-1\r\n", nil, true},        // nil reply: the seed fails open
				{"-ERR boom\r\n", nil, false}, // error: the seed fails closed
				{"-ERR boom\r\n", FailOpen, true},
				{"$-1\r\n", FailClosed, false},
			} {
				c := newClient(t, fake(t, nativeBackend, tc.reply))
				allowed, storeErr, err := run(c, tc.policy)
				if allowed != tc.allowed || (err == nil) != allowed || (storeErr == nil) == allowed {
					t.Errorf("%s native=%v reply %q: allowed=%v storeErr=%v err=%v, want allowed=%v",
						name, nativeBackend, tc.reply, allowed, storeErr, err, tc.allowed)
				}
				if e := errors.Join(err, storeErr); tc.reply == "$-1\r\n" && !errors.Is(e, ErrNoAnswer) {
					t.Errorf("%s native=%v: %v does not wrap ErrNoAnswer", name, nativeBackend, e)
				}
			}
		}
	}
}

// TestMiddlewareHeadersPerAlgorithm: the fields of three requests against
// a limit of 2 per minute, for each algorithm, natively; what r, t and
// Retry-After mean differs with the algorithm.
func TestMiddlewareHeadersPerAlgorithm(t *testing.T) {
	type resp struct{ status, remaining, ratelimit, retryAfter, reset string }
	cases := []struct {
		alg    Algorithm
		policy string
		resps  [3]resp
	}{
		// The log: each entry leaves 60 s after it came.
		{SlidingLog, `"api";q=2;w=60`, [3]resp{
			{"200", "1", `"api";r=1;t=60`, "", "60"}, {"200", "0", `"api";r=0;t=60`, "", "60"},
			{"429", "0", `"api";r=0;t=60`, "60", "60"}}},
		// The fixed window: everything resets with the key, 60 s after the first.
		{FixedWindow, `"api";q=2;w=60`, [3]resp{
			{"200", "1", `"api";r=1;t=60`, "", "60"}, {"200", "0", `"api";r=0;t=60`, "", "60"},
			{"429", "0", `"api";r=0;t=60`, "60", "60"}}},
		// The counter: the current window weighs until the end of the next
		// (120 s); one more passes once a quarter of the previous has slid out.
		{SlidingWindow, `"api";q=2;w=60`, [3]resp{
			{"200", "1", `"api";r=1;t=120`, "", "120"}, {"200", "0", `"api";r=0;t=120`, "", "120"},
			{"429", "0", `"api";r=0;t=90`, "90", "120"}}},
		// The bucket (2 tokens, one back every 30 s): t is until it is full,
		// or until the next token when refused.
		{TokenBucket, `"api";q=2;w=60`, [3]resp{
			{"200", "1", `"api";r=1;t=30`, "", "30"}, {"200", "0", `"api";r=0;t=60`, "", "60"},
			{"429", "0", `"api";r=0;t=30`, "30", "60"}}},
		// GCRA (burst 2, one every 30 s): the same figures as the bucket.
		{GCRA, `"api";q=2;w=60`, [3]resp{
			{"200", "1", `"api";r=1;t=30`, "", "30"}, {"200", "0", `"api";r=0;t=60`, "", "60"},
			{"429", "0", `"api";r=0;t=30`, "30", "60"}}},
	}
	for _, tc := range cases {
		t.Run(tc.alg.String(), func(t *testing.T) {
			e := newEnv(t, "limitkv")
			l := e.limiter(t, Options{Name: "api", Algorithm: tc.alg, Limit: 2, Window: time.Minute})
			h := l.Middleware(HTTPOptions{Identify: HeaderIdentity("X-Tenant-ID", "X-User-ID")})(&okHandler{})
			for i, want := range tc.resps {
				rec := doRequest(t, h, "acme", "u1")
				checkResponse(t, tc.alg.String()+" request "+string(rune('1'+i)), rec, httpWant{
					status: map[string]int{"200": 200, "429": 429}[want.status],
					headers: map[string]string{
						"RateLimit-Policy": tc.policy, "RateLimit": want.ratelimit, "Retry-After": want.retryAfter,
						"X-RateLimit-Limit": "2", "X-RateLimit-Remaining": want.remaining, "X-RateLimit-Reset": want.reset,
					},
				})
			}
		})
	}
}

// TestPolicyHeaders: leases and budgets, and the edge cases of SetHeaders.
func TestPolicyHeaders(t *testing.T) {
	cases := []struct {
		name    string
		policy  Policy
		res     Result
		headers map[string]string
	}{
		{"lease taken", Policy{Name: "jobs", Quota: 3, Unit: "concurrent-requests"},
			Result{Allowed: true, Count: 1, Limit: 3, Remaining: 2, Reset: 30 * time.Second},
			map[string]string{"RateLimit-Policy": `"jobs";q=3;qu="concurrent-requests"`, "RateLimit": `"jobs";r=2;t=30`, "Retry-After": ""}},
		{"lease refused until the soonest ends", Policy{Name: "jobs", Quota: 3, Unit: "concurrent-requests"},
			Result{Count: 3, Limit: 3, RetryAfter: 1500 * time.Millisecond, Reset: 50 * time.Second},
			map[string]string{"RateLimit": `"jobs";r=0;t=2`, "Retry-After": "2", "X-RateLimit-Reset": "50"}},
		{"budget with its unit", Policy{Name: "llm", Quota: 1000, Window: time.Hour, Unit: "tokens"},
			Result{Allowed: true, Count: 300, Limit: 1000, Remaining: 700, Reset: 20 * time.Minute},
			map[string]string{"RateLimit-Policy": `"llm";q=1000;qu="tokens";w=3600`, "RateLimit": `"llm";r=700;t=1200`}},
		{"never: no t, no Retry-After", Policy{Name: "x", Quota: 1, Window: time.Second},
			Result{Limit: 1, RetryAfter: Never},
			map[string]string{"RateLimit": `"x";r=0`, "Retry-After": ""}},
		{"fail open: policy only", Policy{Name: "x", Quota: 1, Window: time.Second},
			Result{Allowed: true, Limit: 1, StoreErr: errors.New("down")},
			map[string]string{"RateLimit-Policy": `"x";q=1;w=1`, "RateLimit": "", "X-RateLimit-Remaining": ""}},
	}
	for _, tc := range cases {
		rec := httptest.NewRecorder()
		tc.policy.SetHeaders(rec.Header(), tc.res)
		checkResponse(t, tc.name, rec, httpWant{status: 200, headers: tc.headers})
	}
	// The types' own policies.
	srv := limitkv.StartT(t, limitkv.Options{})
	rdb := newClient(t, srv.Addr())
	c, _ := NewConcurrency(rdb, ConcurrencyOptions{Name: "jobs", Limit: 3, Lease: time.Minute})
	b, _ := NewBudget(rdb, BudgetOptions{Name: "llm", Limit: 1000, Window: time.Hour, Unit: "tokens"})
	g, _ := New(rdb, Options{Name: "g", Algorithm: GCRA, Limit: 10, Window: time.Minute, Burst: 5})
	for _, p := range []struct{ got, want string }{
		{c.Policy().PolicyField(), `"jobs";q=3;qu="concurrent-requests"`},
		{b.Policy().PolicyField(), `"llm";q=1000;qu="tokens";w=3600`},
		{g.Policy().PolicyField(), `"g";q=5;w=30`}, // 5 at once, refilled in 30 s
	} {
		if p.got != p.want {
			t.Errorf("policy %s, want %s", p.got, p.want)
		}
	}
}
