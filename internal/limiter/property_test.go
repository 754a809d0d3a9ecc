package limiter

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/limitkv/limitkv/ratelimit/scripts"
)

// retry_after is exact: asking again when told passes, a ms earlier does
// not (only the algorithms whose decision moves with the passed time).
func TestRetryAfterIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	checked := 0
	for i := 0; i < 3000; i++ {
		limit, w := 1+rng.Int64N(20), 1+rng.Int64N(5000)
		now := int64(1_764_000_000_000) + rng.Int64N(1e6)
		cost := 1 + rng.Int64N(limit)
		var peek func(int64) (Result, error)
		if i%2 == 0 {
			p := SlidingWindow{WindowMs: w, Limit: limit}
			start := floorDiv(now, w)*w - w*rng.Int64N(2)
			v := Value{Kind: Hash, Hash: FieldsOf(
				"start", itoa(start), "cur", itoa(rng.Int64N(limit+1)), "prev", itoa(rng.Int64N(limit+1)),
			), TTL: 1}
			peek = func(at int64) (Result, error) { return p.Peek(v, at, cost) }
		} else {
			p := TokenBucket{Capacity: limit, Refill: 1 + rng.Int64N(5), PeriodMs: w}
			v := Value{Kind: Hash, Hash: FieldsOf(
				"tokens", luaNum(rng.Float64()*float64(limit)), "ts", itoa(now-rng.Int64N(w)),
			), TTL: 1}
			peek = func(at int64) (Result, error) { return p.Peek(v, at, cost) }
		}
		r, err := peek(now)
		if err != nil {
			t.Fatal(err)
		}
		if r.Allowed || r.RetryAfterMs < 0 {
			continue
		}
		checked++
		if r2, _ := peek(now + r.RetryAfterMs); !r2.Allowed {
			t.Fatalf("case %d: refused at retry_after %d", i, r.RetryAfterMs)
		}
		if r.RetryAfterMs > 0 {
			if r2, _ := peek(now + r.RetryAfterMs - 1); r2.Allowed {
				t.Fatalf("case %d: allowed before retry_after %d", i, r.RetryAfterMs)
			}
		}
	}
	t.Logf("%d refusals checked", checked)
}

func itoa(n int64) string { return luaNum(float64(n)) }

// With '*' the scripts take the server's TIME; their state then sits at
// the server's now.
func TestScriptsServerClock(t *testing.T) {
	d := newDiffer(t)
	nowMs := time.Now().UnixMilli()
	near := func(name string, got, want int64) {
		if got < want-5000 || got > want+5000 {
			t.Errorf("%s: %d is not near now %d", name, got, want)
		}
	}
	for _, c := range []struct {
		name, script string
		args         []any
		field        string
	}{
		{"token_bucket", scripts.TokenBucket, []any{"*", 5, 1, 1000, 1, "check"}, "ts"},
		{"sliding_window", scripts.SlidingWindow, []any{"*", 60000, 5, 1, "check"}, "start"},
		{"budget", scripts.Budget, []any{"*", "reserve", 60000, 5, 1}, "start"},
		{"concurrency", scripts.Concurrency, []any{"*", "acquire", 5, 1000, "x"}, ""},
		{"cell", scripts.Cell, []any{"*", 4, 1, 1}, ""},
	} {
		d.reset()
		got, err := d.eval(c.script, c.args...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if g := got.([]any); g[0].(int64) != map[bool]int64{true: 0, false: 1}[c.name == "cell"] {
			t.Errorf("%s: refused: %v", c.name, g)
		}
		v := d.read()
		switch {
		case c.field != "":
			n, _ := parseInt64(v.Hash.Get(c.field))
			if c.field == "start" { // the minute's start
				n = n + nowMs%60000
			}
			near(c.name, n, nowMs)
		case c.name == "concurrency":
			near(c.name, int64(v.ZSet[0].Score)-1000, nowMs)
		default:
			tat, _, _ := ParseCellState(v)
			near(c.name, tat/1e6-1000, nowMs)
		}
	}
}
