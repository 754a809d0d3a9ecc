package ratelimit

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// twinEnvs are the ways the non-log algorithms meet a store: limitkv's
// RL commands (server clock, then client clock), the Lua twins on limitkv,
// and the twins on a real redis-server.
var twinEnvs = []string{"limitkv", "limitkv-client-clock", "limitkv-script", "redis-script"}

// algStep is one request: after waiting, cost n; want is the decision and
// remaining the step must get on every backend.
type algStep struct {
	after     time.Duration
	n         int
	allowed   bool
	remaining int
}

// TestAlgorithmsSameOnEveryBackend runs a scripted sequence per algorithm
// on each backend: every step's decision and remaining are as written,
// and every backend's whole Results (counts, limits, waits) equal those of
// limitkv's native commands.
func TestAlgorithmsSameOnEveryBackend(t *testing.T) {
	s := time.Second
	cases := []struct {
		alg   Algorithm
		opts  Options
		steps []algStep
	}{
		{GCRA, Options{Limit: 5, Window: 5 * s, Burst: 3}, []algStep{
			{0, 1, true, 2}, {0, 1, true, 1}, {0, 1, true, 0}, {0, 1, false, 0},
			{s / 2, 1, false, 0}, {s / 2, 1, true, 0}, {0, 4, false, 0},
			{1500 * time.Millisecond, 2, false, 1}, {10 * s, 2, true, 1}, {0, 1, true, 0},
		}},
		{TokenBucket, Options{Limit: 1, Window: s, Burst: 3}, []algStep{
			{0, 1, true, 2}, {0, 2, true, 0}, {0, 1, false, 0}, {300 * time.Millisecond, 1, false, 0},
			{700 * time.Millisecond, 1, true, 0}, {0, 4, false, 0}, {2500 * time.Millisecond, 3, false, 2},
			{500 * time.Millisecond, 3, true, 0},
		}},
		{SlidingWindow, Options{Limit: 4, Window: 10 * s}, []algStep{
			{0, 1, true, 3}, {2 * s, 2, true, 1}, {0, 2, false, 1}, {s, 1, true, 0}, {0, 1, false, 0},
			{8 * s, 1, false, 0}, {2 * s, 1, true, 0}, {5 * s, 1, true, 1}, {0, 5, false, 1},
			{30 * s, 4, true, 0},
		}},
		// The fixed window follows its key's TTL on the server's clock, which
		// the test moves on limitkv only: its sequence stays in one window.
		{FixedWindow, Options{Limit: 3, Window: time.Minute}, []algStep{
			{0, 1, true, 2}, {0, 2, true, 0}, {0, 1, false, 0}, {0, 4, false, 0}, {0, 0, true, 0},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.alg.String(), func(t *testing.T) {
			var native []Result
			for _, kind := range twinEnvs {
				t.Run(kind, func(t *testing.T) {
					e := newEnv(t, kind)
					o := tc.opts
					o.Algorithm = tc.alg
					l := e.limiter(t, o)
					var got []Result
					for i, st := range tc.steps {
						e.advance(st.after)
						r, err := l.AllowN(context.Background(), "acme", "u1", max(st.n, 1))
						if st.n == 0 { // cost 0 asks without charging
							r, err = l.allowCost0(t, "acme", "u1")
						}
						if err != nil {
							t.Fatalf("step %d: %v", i+1, err)
						}
						if r.Allowed != st.allowed || r.Remaining != st.remaining || r.Limit != l.Limit() {
							t.Errorf("step %d (cost %d): got %+v, want allowed=%v remaining=%d limit=%d",
								i+1, st.n, r, st.allowed, st.remaining, l.Limit())
						}
						got = append(got, r)
					}
					if kind == "limitkv" {
						native = got
						return
					}
					if native == nil {
						t.Skip("no native run to compare with")
					}
					for i := range got {
						if !sameResult(tc.alg, kind, got[i], native[i]) {
							t.Errorf("step %d: %s %+v, native %+v", i+1, kind, got[i], native[i])
						}
					}
				})
			}
		})
	}
}

// allowCost0 is AllowN with cost 0, which AllowN refuses (a cost below 1
// is a caller's bug there): the command's own way to ask without charging.
func (l *Limiter) allowCost0(t *testing.T, tenant, user string) (Result, error) {
	t.Helper()
	b, err := l.resolveBackend(context.Background())
	if err != nil {
		return Result{}, err
	}
	return l.allowAlgorithm(context.Background(), b, l.key(tenant, user), 0)
}

// sameResult compares a twin's result with the native one; the fixed
// window's waits on redis-server follow its real clock, a few ms behind.
func sameResult(alg Algorithm, kind string, got, want Result) bool {
	if alg != FixedWindow || kind != "redis-script" {
		return got == want
	}
	near := func(a, b time.Duration) bool { return a <= b && b-a < time.Second }
	g, w := got, want
	g.RetryAfter, g.Reset, w.RetryAfter, w.Reset = 0, 0, 0, 0
	return g == w && (got.RetryAfter == want.RetryAfter || near(got.RetryAfter, want.RetryAfter)) && near(got.Reset, want.Reset)
}

// TestConcurrencySameOnEveryBackend: acquire, renew, refuse, release and
// expire leases; decisions as written, whole Results equal to limitkv's.
func TestConcurrencySameOnEveryBackend(t *testing.T) {
	type op struct {
		after     time.Duration
		op, id    string
		allowed   bool
		remaining int
	}
	ops := []op{
		{0, "acquire", "a", true, 1}, {time.Second, "acquire", "b", true, 0}, {0, "acquire", "c", false, 0},
		{0, "acquire", "a", true, 0}, // renewal: always allowed
		{time.Second, "release", "b", true, 1}, {0, "release", "b", false, 1},
		{0, "acquire", "c", true, 0}, {29500 * time.Millisecond, "acquire", "d", true, 0}, // a's renewed lease ended at 31s, c's holds until 32s
		{0, "holders", "", true, 0},
	}
	var native []any
	for _, kind := range twinEnvs {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t, kind)
			o := ConcurrencyOptions{Name: "jobs", Limit: 2, Lease: 30 * time.Second, Backend: e.backend, Now: e.now}
			c, err := NewConcurrency(e.rdb, o)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			var got []any
			for i, o := range ops {
				e.advance(o.after)
				var r Result
				switch o.op {
				case "acquire":
					r, err = c.Acquire(ctx, "acme", "u1", o.id)
				case "release":
					r, err = c.Release(ctx, "acme", "u1", o.id)
				case "holders":
					hs, err := c.Holders(ctx, "acme", "u1")
					if err != nil {
						t.Fatal(err)
					}
					var ids []string
					for _, h := range hs {
						ids = append(ids, fmt.Sprintf("%s@%d", h.ID, h.Expires.Sub(t0)/time.Second))
					}
					if want := []string{"c@32", "d@61"}; !reflect.DeepEqual(ids, want) {
						t.Errorf("holders %v, want %v", ids, want)
					}
					got = append(got, ids)
					continue
				}
				if err != nil {
					t.Fatalf("step %d: %v", i+1, err)
				}
				if r.Allowed != o.allowed || r.Remaining != o.remaining || r.Limit != 2 {
					t.Errorf("step %d %s %s: %+v, want allowed=%v remaining=%d", i+1, o.op, o.id, r, o.allowed, o.remaining)
				}
				got = append(got, r)
			}
			if kind == "limitkv" {
				native = got
			} else if native != nil && !reflect.DeepEqual(got, native) {
				t.Errorf("%s:\n%v\nnative:\n%v", kind, got, native)
			}
		})
	}
}

// TestBudgetSameOnEveryBackend: reserve, settle (refund and overrun), a
// refusal, and a settlement after its window ended (not applied).
func TestBudgetSameOnEveryBackend(t *testing.T) {
	var native []Result
	for _, kind := range twinEnvs {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t, kind)
			b, err := NewBudget(e.rdb, BudgetOptions{Name: "llm", Limit: 100, Window: time.Minute, Backend: e.backend, Now: e.now})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			var got []Result
			check := func(what string, r Result, allowed bool, used int) {
				t.Helper()
				if r.Allowed != allowed || r.Count != used {
					t.Errorf("%s: %+v, want allowed=%v used=%d", what, r, allowed, used)
				}
				got = append(got, r)
			}
			r1, err := b.Reserve(ctx, "acme", "u1", 60)
			if err != nil {
				t.Fatal(err)
			}
			check("reserve 60", r1.Result, true, 60)
			if r1.WindowStart != t0.UnixMilli() {
				t.Errorf("window start %d, want %d", r1.WindowStart, t0.UnixMilli())
			}
			r2, _ := b.Reserve(ctx, "acme", "u1", 50)
			check("reserve 50 more", r2.Result, false, 60)
			if _, err := b.Settle(ctx, r2, 10); err != ErrNotReserved {
				t.Errorf("settling a refused reservation: %v", err)
			}
			e.advance(10 * time.Second)
			s1, _ := b.Settle(ctx, r1, 20)
			check("settle 60 as 20", s1, true, 20)
			r3, _ := b.Reserve(ctx, "acme", "u1", 50)
			check("reserve 50", r3.Result, true, 70)
			s3, _ := b.Settle(ctx, r3, 75)
			check("settle 50 as 75", s3, true, 95)
			r4, _ := b.Reserve(ctx, "acme", "u1", 5)
			check("reserve the last 5", r4.Result, true, 100)
			e.advance(time.Minute)
			s4, _ := b.Settle(ctx, r4, 0)
			check("settle after the window", s4, false, 0)
			if kind == "limitkv" {
				native = got
			} else if native != nil && !reflect.DeepEqual(got, native) {
				t.Errorf("%s:\n%+v\nnative:\n%+v", kind, got, native)
			}
		})
	}
}

// TestAllowAllSameOnEveryBackend: RL.ALL natively, scripts.All elsewhere:
// all charged or none, and which limit refused.
func TestAllowAllSameOnEveryBackend(t *testing.T) {
	var native []MultiResult
	for _, kind := range twinEnvs {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t, kind)
			perUser := e.limiter(t, Options{Name: "user", Algorithm: TokenBucket, Limit: 1, Window: time.Second, Burst: 3})
			perIP := e.limiter(t, Options{Name: "ip", Algorithm: SlidingWindow, Limit: 3, Window: time.Minute})
			perTenant := e.limiter(t, Options{Name: "tenant", Algorithm: GCRA, Limit: 10, Window: time.Minute, Burst: 10})
			jobs, err := NewConcurrency(e.rdb, ConcurrencyOptions{Name: "jobs", Limit: 3, Lease: time.Minute, Backend: e.backend, Now: e.now})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			var got []MultiResult
			step := func(what string, allowed bool, refused int, charges ...Charge) {
				t.Helper()
				m, err := AllowAll(ctx, charges...)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if m.Allowed != allowed || m.Refused != refused || len(m.Results) != len(charges) {
					t.Errorf("%s: %+v, want allowed=%v refused=%d", what, m, allowed, refused)
				}
				got = append(got, m)
			}
			all := func(user, ip string, cost int, job string) []Charge {
				return []Charge{perUser.Charge("acme", user, cost), perIP.Charge("acme", ip, 1),
					perTenant.Charge("acme", "*", 1), jobs.Charge("acme", "*", job)}
			}
			step("first", true, -1, all("u1", "ip1", 1, "j1")...)
			step("user bucket too small", false, 0, all("u1", "ip1", 3, "j2")...)
			step("same again, nothing was charged", false, 0, all("u1", "ip1", 3, "j2")...)
			step("second", true, -1, all("u1", "ip1", 2, "j2")...)
			step("third job", true, -1, all("u2", "ip1", 1, "j3")...)
			step("jobs full", false, 3, all("u3", "ip2", 1, "j4")...)
			step("ip full", false, 1, all("u3", "ip1", 1, "j1")...)
			// The refused steps charged nothing: u3's bucket is whole.
			r, err := perUser.AllowN(ctx, "acme", "u3", 3)
			if err != nil || !r.Allowed {
				t.Errorf("u3 after refused steps: %+v, %v", r, err)
			}
			if _, err := AllowAll(ctx, perUser.Charge("acme", "u1", 1), perUser.Charge("acme", "u1", 1)); err == nil {
				t.Error("a key given twice was accepted")
			}
			if kind == "limitkv" {
				native = got
			} else if native != nil && !reflect.DeepEqual(got, native) {
				t.Errorf("%s:\n%+v\nnative:\n%+v", kind, got, native)
			}
		})
	}
}
