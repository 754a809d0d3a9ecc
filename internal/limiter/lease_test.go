package limiter

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/limitkv/limitkv/ratelimit/scripts"
)

func TestConcurrency(t *testing.T) {
	p := Concurrency{Limit: 2}
	const t0 = int64(1_000_000)
	var v Value
	step := func(name string, r Result, after Value, err error, allowed bool, count, retry int64) {
		t.Helper()
		if err != nil || r.Allowed != allowed || r.Count != count || r.RetryAfterMs != retry {
			t.Fatalf("%s: %+v %v", name, r, err)
		}
		v = after
	}
	r, a, _, err := p.Acquire(v, t0, "a", 1000)
	step("a", r, a, err, true, 1, 0)
	r, a, _, err = p.Acquire(v, t0+10, "b", 100)
	step("b", r, a, err, true, 2, 0)
	if v.TTL != 990 || len(v.ZSet) != 2 || v.ZSet[0].Member != "b" {
		t.Fatalf("state %v", v)
	}
	r, a, _, err = p.Acquire(v, t0+20, "c", 100)
	step("c refused", r, a, err, false, 2, 90)
	r, a, _, err = p.Acquire(v, t0+30, "a", 50)
	step("a renews though full", r, a, err, true, 2, 0)
	if v.TTL != 80 { // b, at t0+110, now expires last
		t.Fatalf("renewal: %v", v)
	}
	r, a, changed, err := p.Acquire(v, t0+110, "c", 100)
	step("c after b expired", r, a, err, true, 1, 0)
	if !changed || len(v.ZSet) != 1 || v.ZSet[0].Member != "c" {
		t.Fatalf("expired leases not dropped: %v", v)
	}
	if hs, _ := Holders(v, t0+110); len(hs) != 1 || hs[0].Member != "c" {
		t.Fatalf("holders %v", hs)
	}
	r, a, _, err = p.Release(v, t0+120, "x")
	step("release unknown", r, a, err, false, 1, 0)
	r, a, _, err = p.Release(v, t0+120, "c")
	step("release c", r, a, err, true, 0, 0)
	if v.Kind != Absent {
		t.Fatalf("empty set left %v", v)
	}
}

func TestBudget(t *testing.T) {
	p := Budget{WindowMs: 1000, Limit: 100}
	var v Value
	r, ws, v, _, err := p.Reserve(v, 5100, 60)
	if err != nil || !r.Allowed || ws != 5000 || v.Hash.Get("used") != "60" || v.TTL != 900 {
		t.Fatalf("reserve: %+v %d %v %v", r, ws, v, err)
	}
	if r, _, _, _, _ := p.Reserve(v, 5200, 50); r.Allowed || r.RetryAfterMs != 800 {
		t.Fatalf("over budget: %+v", r)
	}
	r, v, _, _ = p.Settle(v, 5300, ws, 60, 20) // refund 40
	if !r.Allowed || v.Hash.Get("used") != "20" {
		t.Fatalf("refund: %+v %v", r, v)
	}
	r, v, _, _ = p.Settle(v, 5300, ws, 10, 150) // charge 140 more, over the limit
	if !r.Allowed || v.Hash.Get("used") != "160" || r.Remaining != 0 {
		t.Fatalf("charge: %+v %v", r, v)
	}
	if r, after, changed, _ := p.Settle(v, 6100, ws, 60, 0); r.Allowed || changed || !after.Equal(v, 0) {
		t.Fatalf("settling an ended window: %+v %v", r, after)
	}
	if r, _, _, _, _ := p.Reserve(v, 6100, 101); r.RetryAfterMs != -1 {
		t.Fatalf("never: %+v", r)
	}
}

func TestLeasesDifferential(t *testing.T) {
	d := newDiffer(t)
	rng := rand.New(rand.NewPCG(9, 10))
	now := int64(1_764_000_000_000)
	counts := map[string]int{}
	for seq := 0; seq < 40; seq++ {
		d.reset()
		limit := 1 + rng.Int64N(6)
		window := 100 + rng.Int64N(3000)
		var reservations [][3]int64 // window start, estimate
		for i := 0; i < 150; i++ {
			now = timeWalk(rng, now, window/4)
			v := d.sync(now)
			var r Result
			var after Value
			var err error
			var got any
			var gerr error
			var op string
			want := func() []any { return resultInts(r) }
			if seq%2 == 0 {
				p := Concurrency{Limit: limit}
				id := "lease-" + strconv.Itoa(rng.IntN(int(limit)+3))
				lease := 1 + rng.Int64N(window)
				switch k := rng.IntN(10); {
				case k < 5:
					op = "acquire"
					r, after, _, err = p.Acquire(v, now, id, lease)
				case k < 8:
					op = "release"
					r, after, _, err = p.Release(v, now, id)
				default:
					op = "peek"
					r, err = p.PeekAcquire(v, now, id, lease)
					after = v
				}
				got, gerr = d.eval(scripts.Concurrency, now, op, limit, lease, id)
			} else {
				p := Budget{WindowMs: window, Limit: limit * 10}
				var ws int64
				switch k := rng.IntN(10); {
				case k < 5 || len(reservations) == 0:
					op = "reserve"
					est := rng.Int64N(limit*6 + 1)
					if rng.IntN(5) == 0 {
						op = "peek"
						r, ws, err = p.PeekReserve(v, now, est)
						after = v
					} else {
						r, ws, after, _, err = p.Reserve(v, now, est)
						if r.Allowed {
							reservations = append(reservations, [3]int64{ws, est})
						}
					}
					got, gerr = d.eval(scripts.Budget, now, op, window, p.Limit, est)
				default:
					op = "settle"
					j := rng.IntN(len(reservations))
					res := reservations[j]
					reservations = append(reservations[:j], reservations[j+1:]...)
					actual := rng.Int64N(limit*8 + 1)
					r, after, _, err = p.Settle(v, now, res[0], res[1], actual)
					start, _, _ := p.state(v, now)
					ws = start
					got, gerr = d.eval(scripts.Budget, now, op, window, p.Limit, res[1], actual, res[0])
				}
				w := ws
				want = func() []any { return append(resultInts(r), w) }
				op = "budget " + op
			}
			d.check(now, op+" "+strconv.Itoa(seq), want(), err, after, got, gerr)
			counts[op]++
		}
	}
	t.Logf("leases and budgets: %d steps matched %v", d.steps, counts)
}
