package limiter

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/limitkv/limitkv/ratelimit/scripts"
)

func resultInts(r Result) []any {
	a := int64(0)
	if r.Allowed {
		a = 1
	}
	return ints(a, r.Count, r.Limit, r.Remaining, r.RetryAfterMs, r.ResetAfterMs)
}

func TestTokenBucket(t *testing.T) {
	p := TokenBucket{Capacity: 5, Refill: 1, PeriodMs: 1000} // a token a second
	const t0 = int64(1_764_000_000_000)
	type step struct {
		now, cost        int64
		allowed          bool
		remaining, retry int64
		reset            int64
		tokens           string
	}
	steps := []step{
		{t0, 3, true, 2, 0, 3000, "2"},
		{t0, 3, false, 2, 1000, 3000, "2"},
		{t0 + 500, 3, false, 2, 500, 2500, "2"},
		{t0 + 1000, 3, true, 0, 0, 5000, "0"},
		{t0 + 1000, 6, false, 0, -1, 5000, "0"},
		{t0 + 999_000, 5, true, 0, 0, 5000, "0"},     // refilled to the cap, not beyond
		{t0 + 998_000, 1, false, 0, 2000, 6000, "0"}, // the clock went back: wait for ts
		{t0 + 999_250, 0, true, 0, 0, 4750, "0"},     // cost 0 writes nothing
	}
	var v Value
	for i, s := range steps {
		r, after, _, err := p.Take(v, s.now, s.cost)
		if err != nil || r.Allowed != s.allowed || r.Remaining != s.remaining || r.RetryAfterMs != s.retry || r.ResetAfterMs != s.reset {
			t.Fatalf("step %d: %+v %v", i, r, err)
		}
		if after.Kind == Hash && after.Hash.Get("tokens") != s.tokens {
			t.Fatalf("step %d: tokens %v, want %s", i, after, s.tokens)
		}
		if pr, _ := p.Peek(v, s.now, s.cost); pr != r {
			t.Fatalf("step %d: peek %+v, take %+v", i, pr, r)
		}
		v = after
	}
}

func TestFixedWindow(t *testing.T) {
	p := FixedWindow{WindowMs: 1000, Limit: 3}
	cases := []struct {
		name         string
		v            Value
		cost         int64
		allowed      bool
		count, retry int64
		after        Value
	}{
		{"new key", Value{}, 2, true, 2, 0, Value{Kind: String, Str: "2", TTL: 1000}},
		{"keeps its TTL", Value{Kind: String, Str: "2", TTL: 400}, 1, true, 3, 0, Value{Kind: String, Str: "3", TTL: 400}},
		{"full", Value{Kind: String, Str: "3", TTL: 400}, 1, false, 3, 400, Value{Kind: String, Str: "3", TTL: 400}},
		{"never", Value{Kind: String, Str: "0", TTL: 400}, 4, false, 0, -1, Value{Kind: String, Str: "0", TTL: 400}},
		{"heals a key without TTL", Value{Kind: String, Str: "1", TTL: -1}, 1, true, 2, 0, Value{Kind: String, Str: "2", TTL: 1000}},
	}
	for _, c := range cases {
		r, after, _, err := p.Hit(c.v, c.cost)
		if err != nil || r.Allowed != c.allowed || r.Count != c.count || r.RetryAfterMs != c.retry || !after.Equal(c.after, 0) {
			t.Errorf("%s: %+v %v %v", c.name, r, after, err)
		}
	}
	if _, _, _, err := p.Hit(Value{Kind: String, Str: "x"}, 1); err != ErrCorrupt {
		t.Errorf("corrupt: %v", err)
	}
}

func TestSlidingWindow(t *testing.T) {
	p := SlidingWindow{WindowMs: 1000, Limit: 10}
	cases := []struct {
		name           string
		v              Value
		now, cost      int64
		allowed        bool
		count, retry   int64
		start, cur, pv string
	}{
		{"new key", Value{}, 5250, 4, true, 4, 0, "5000", "4", "0"},
		{"previous counts by its share", sw("5000", "2", "8"), 5250, 5, false, 8, 375, "", "", ""},
		{"fits as the share shrinks", sw("5000", "2", "8"), 5750, 5, true, 9, 0, "5000", "7", "8"},
		{"rolls two windows on", sw("3000", "9", "9"), 5100, 10, true, 10, 0, "5000", "10", "0"},
		{"next window", sw("5000", "8", "0"), 5100, 5, false, 8, 1275, "", "", ""},
		{"never", Value{}, 5100, 11, false, 0, -1, "", "", ""},
	}
	for _, c := range cases {
		r, after, _, err := p.Hit(c.v, c.now, c.cost)
		if err != nil || r.Allowed != c.allowed || r.Count != c.count || r.RetryAfterMs != c.retry {
			t.Errorf("%s: %+v %v", c.name, r, err)
			continue
		}
		if c.allowed && (after.Hash.Get("start") != c.start || after.Hash.Get("cur") != c.cur || after.Hash.Get("prev") != c.pv) {
			t.Errorf("%s: state %v", c.name, after)
		}
		if c.allowed || c.retry < 0 {
			continue
		}
		// Retrying exactly when told passes, a ms earlier does not.
		if r2, _ := p.Peek(c.v, c.now+c.retry, c.cost); !r2.Allowed {
			t.Errorf("%s: refused again at retry_after", c.name)
		}
		if r2, _ := p.Peek(c.v, c.now+c.retry-1, c.cost); r2.Allowed {
			t.Errorf("%s: retry_after is not the earliest", c.name)
		}
	}
}

func sw(start, cur, prev string) Value {
	return Value{Kind: Hash, Hash: FieldsOf("start", start, "cur", cur, "prev", prev), TTL: 1000}
}

// timeWalk moves a simulated ms clock: mostly forward by up to step,
// sometimes not at all, now and then backwards.
func timeWalk(rng *rand.Rand, now, step int64) int64 {
	switch k := rng.IntN(20); {
	case k == 0:
		return now - rng.Int64N(step+1)
	case k < 4:
		return now
	}
	return now + rng.Int64N(step+1)
}

func randCost(rng *rand.Rand, limit int64) int64 {
	switch rng.IntN(8) {
	case 0:
		return 0
	case 1:
		return rng.Int64N(limit + 3)
	}
	return 1
}

func TestWindowsDifferential(t *testing.T) {
	d := newDiffer(t)
	rng := rand.New(rand.NewPCG(7, 8))
	now := int64(1_764_000_000_000)
	counts := map[string]int{}
	for seq := 0; seq < 60; seq++ {
		d.reset()
		limit, window := 1+rng.Int64N(20), 1+rng.Int64N(5000)
		refill := 1 + rng.Int64N(7)
		for i := 0; i < 150; i++ {
			now = timeWalk(rng, now, 2*window/limit+5)
			cost := randCost(rng, limit)
			mode := "check"
			if rng.IntN(6) == 0 {
				mode = "peek"
			}
			if seq%3 == 1 && rng.IntN(30) == 0 { // a counter someone SET without TTL
				d.model = Value{Kind: String, Str: strconv.FormatInt(rng.Int64N(limit+1), 10), TTL: -1}
				d.must(d.rdb.Set(d.ctx, d.key, d.model.Str, 0).Err())
			}
			v := d.sync(now)
			var r Result
			var after Value
			var err error
			var got any
			var gerr error
			name := []string{"token_bucket", "fixed_window", "sliding_window"}[seq%3]
			switch seq % 3 {
			case 0:
				p := TokenBucket{Capacity: limit, Refill: refill, PeriodMs: window}
				if mode == "peek" {
					r, err = p.Peek(v, now, cost)
					after = v
				} else {
					r, after, _, err = p.Take(v, now, cost)
				}
				got, gerr = d.eval(scripts.TokenBucket, now, limit, refill, window, cost, mode)
			case 1:
				p := FixedWindow{WindowMs: window, Limit: limit}
				if mode == "peek" {
					r, err = p.Peek(v, cost)
					after = v
				} else {
					r, after, _, err = p.Hit(v, cost)
				}
				got, gerr = d.eval(scripts.FixedWindow, window, limit, cost, mode)
				// retry and reset are the key's PTTL, which ages with
				// the server's clock as the TTL itself does.
				d.agedReply(got, resultInts(r), 4, 5)
			case 2:
				p := SlidingWindow{WindowMs: window, Limit: limit}
				if mode == "peek" {
					r, err = p.Peek(v, now, cost)
					after = v
				} else {
					r, after, _, err = p.Hit(v, now, cost)
				}
				got, gerr = d.eval(scripts.SlidingWindow, now, window, limit, cost, mode)
			}
			d.check(now, name+" "+mode+" "+strconv.Itoa(seq), resultInts(r), err, after, got, gerr)
			counts[name]++
		}
	}
	t.Logf("windows: %d steps matched %v", d.steps, counts)
}
