package limiter

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/limitkv/limitkv/ratelimit/scripts"
)

// redis-cell's own it_rate_limits cases (src/cell/mod.rs), ported: limit 5
// per second, durations exact in nanoseconds.
func TestCellRedisCellCases(t *testing.T) {
	const s = int64(1e9)
	start := int64(1_700_000_000_123_456_789)
	p := CellParams{MaxBurst: 4, Count: 1, Period: 1}
	cases := []struct {
		num                    int
		now                    int64
		volume, remaining      int64
		resetAfter, retryAfter int64
		limited                bool
	}{
		{0, start, 6, 5, 0, -s, true},
		{1, start, 1, 4, s, -s, false},
		{2, start, 1, 3, 2 * s, -s, false},
		{3, start, 1, 2, 3 * s, -s, false},
		{4, start, 1, 1, 4 * s, -s, false},
		{5, start, 1, 0, 5 * s, -s, false},
		{6, start, 1, 0, 5 * s, s, true},
		{7, start + 3000e6, 1, 2, 3000e6, -s, false},
		{8, start + 3100e6, 1, 1, 3900e6, -s, false},
		{9, start + 4000e6, 1, 1, 4000e6, -s, false},
		{10, start + 8000e6, 1, 4, 1000e6, -s, false},
		{11, start + 9500e6, 1, 4, 1000e6, -s, false},
		{12, start + 9500e6, 0, 4, s, -s, false},
		{13, start + 9500e6, 2, 2, 3 * s, -s, false},
		{14, start + 9500e6, 5, 2, 3 * s, 3 * s, true},
	}
	var v Value
	for _, c := range cases {
		r, after, _, err := Throttle(v, c.now, p, c.volume)
		if err != nil {
			t.Fatalf("case %d: %v", c.num, err)
		}
		if r.Limited != c.limited || r.Limit != 5 || r.Remaining != c.remaining || r.ResetAfterNs != c.resetAfter || r.RetryAfterNs != c.retryAfter {
			t.Fatalf("case %d: got %+v", c.num, r)
		}
		v = after
	}
}

func TestCellZeroRates(t *testing.T) {
	for _, p := range []CellParams{{10, 0, 0}, {10, 0, 1}, {10, 1, 0}, {1, 2_000_000_000, 1}} {
		if _, _, _, err := Throttle(Value{}, 1e18, p, 1); err != errCellZeroRate {
			t.Errorf("%+v: err %v, want zero-rate error", p, err)
		}
	}
}

func TestCellArgs(t *testing.T) {
	cases := []struct {
		args    []string
		p       CellParams
		q       int64
		wantErr string
	}{
		{[]string{"k", "15", "30", "60"}, CellParams{15, 30, 60}, 1, ""},
		{[]string{"k", "15", "30", "60", "3"}, CellParams{15, 30, 60}, 3, ""},
		{[]string{"k", "+15", "30", "60", "-3"}, CellParams{15, 30, 60}, -3, ""},
		{[]string{"k", "15", "30"}, CellParams{}, 0, string(errCellUsage)},
		{[]string{"k", "1", "2", "3", "4", "5"}, CellParams{}, 0, string(errCellUsage)},
		{[]string{"k", "x", "30", "60"}, CellParams{}, 0, "Cell error: Couldn't parse as integer: x"},
		{[]string{"k", "1", "30", "1.5"}, CellParams{}, 0, "Cell error: Couldn't parse as integer: 1.5"},
		{[]string{"k", "1", "30", "60", ""}, CellParams{}, 0, "Cell error: Couldn't parse as integer: "},
		{[]string{"k", "1", "9223372036854775808", "60"}, CellParams{}, 0, "Cell error: Couldn't parse as integer: 9223372036854775808"},
		{[]string{"k", "1", "+-3", "60"}, CellParams{}, 0, "Cell error: Couldn't parse as integer: +-3"},
	}
	for _, c := range cases {
		_, p, q, err := ParseThrottleArgs(c.args)
		if c.wantErr != "" {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("%q: err %v, want %q", c.args, err, c.wantErr)
			}
			continue
		}
		if err != nil || p != c.p || q != c.q {
			t.Errorf("%q: got %+v %d %v", c.args, p, q, err)
		}
	}
}

// The reply's seconds round up only when the remainder holds a whole
// millisecond, as the module's subsec_milliseconds() > 0 test does.
func TestCellSecondsRounding(t *testing.T) {
	for _, c := range []struct{ ns, want int64 }{
		{0, 0}, {-1e9, -1}, {999_999, 0}, {1_000_000, 1}, {1e9, 1},
		{1e9 + 999_999, 1}, {1e9 + 1e6, 2}, {-1_500_000_000, -1}, {59_999_000_000, 60},
	} {
		if got := cellSeconds(c.ns); got != c.want {
			t.Errorf("cellSeconds(%d) = %d, want %d", c.ns, got, c.want)
		}
	}
}

// The stored TAT and its TTL: truncated whole ms, none when limited, and
// the module's edge cases for a TTL of 0 and below -1 ms.
func TestCellState(t *testing.T) {
	now := int64(1_700_000_000_000_000_000)
	p := CellParams{MaxBurst: 2, Count: 3, Period: 1} // 333_333_333 ns per request
	_, v, changed, err := Throttle(Value{}, now, p, 1)
	if err != nil || !changed || v.Str != strconv.FormatInt(now+333_333_333, 10) || v.TTL != 333 {
		t.Fatalf("first: %v %v %v", v, changed, err)
	}
	r, v2, changed, _ := Throttle(v, now, p, 10)
	if !r.Limited || changed || !v2.Equal(v, 0) || r.RetryAfterNs != -1e9 {
		t.Fatalf("oversized: %+v %v %v", r, v2, changed)
	}
	if _, v3, _, _ := Throttle(Value{}, now, p, 0); v3.Kind != Absent {
		t.Fatalf("quantity 0 on a missing key leaves %v, want nothing (TTL 0)", v3)
	}
	if _, v4, _, err := Throttle(v, now, p, -3); err != ErrCellExpire || v4.TTL != -1 {
		t.Fatalf("negative quantity: %v %v", v4, err)
	}
	if pr, err := PeekThrottle(v, now, p, 1); err != nil || pr.Remaining != 1 || pr.Limited {
		t.Fatalf("peek: %+v %v", pr, err)
	}
}

func TestCellDifferential(t *testing.T) {
	d := newDiffer(t)
	rng := rand.New(rand.NewPCG(1, 2))
	now := int64(1_764_000_000_000_000_000) + rng.Int64N(1e9)
	for seq := 0; seq < 40; seq++ {
		d.reset()
		p := CellParams{MaxBurst: rng.Int64N(12), Count: 1 + rng.Int64N(30), Period: 1 + rng.Int64N(90)}
		if seq%10 == 9 {
			p.MaxBurst = -1 - rng.Int64N(2)
		}
		for i := 0; i < 150; i++ {
			switch k := rng.IntN(20); {
			case k == 0:
				now -= rng.Int64N(2e9) // clock steps back
			case k < 4:
				// same instant
			default:
				now += rng.Int64N(p.Period * 1e9 / p.Count * 2)
			}
			q := int64(1)
			switch k := rng.IntN(10); {
			case k == 0:
				q = 0 // redis-cell's peek
			case k == 1:
				q = rng.Int64N(p.MaxBurst + 4)
			case k == 2 && seq%4 == 3:
				q = -rng.Int64N(3)
			}
			v := d.sync(now / 1e6)
			r, after, _, err := Throttle(v, now, p, q)
			var want []any
			if err == nil {
				x := r.Ints()
				want = ints(x[:]...)
			}
			got, gerr := d.eval(scripts.Cell, now, p.MaxBurst, p.Count, p.Period, q)
			d.check(now/1e6, "cell "+strconv.Itoa(seq), want, redisErr(err), after, got, gerr)
		}
	}
	t.Logf("cell: %d steps matched", d.steps)
}
