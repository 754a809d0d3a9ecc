package limiter

import (
	"errors"
	"math"
	"strconv"
)

// Token bucket, fixed window and sliding-window counter. Each returns the
// common Result and the value to leave; a refused request and a Peek write
// nothing, and neither does a cost of 0 (which is how a peek is spelt to
// a script). Limits are bounded by MaxExact so the Lua twins, whose numbers
// are doubles, compute the same integers.

// MaxExact bounds every integer an algorithm multiplies: 2^53, below which
// a double holds integers exactly.
const MaxExact = 1 << 53

var (
	ErrWindow = errors.New("ERR window must be a positive integer number of milliseconds")
	ErrLimit  = errors.New("ERR limit must be a positive integer")
	ErrCost   = errors.New("ERR cost must be a non-negative integer")
	ErrRange  = errors.New("ERR limit times window (or period) must stay below 2^53")
)

func checkCost(cost int64) error {
	if cost < 0 || cost >= MaxExact {
		return ErrCost
	}
	return nil
}

// --- Token bucket ---------------------------------------------------------

// TokenBucket holds Capacity tokens and gains Refill tokens every PeriodMs,
// continuously.
type TokenBucket struct {
	Capacity, Refill, PeriodMs int64
}

func (p TokenBucket) validate(cost int64) error {
	switch {
	case p.PeriodMs <= 0 || p.PeriodMs >= MaxExact:
		return ErrWindow
	case p.Capacity <= 0 || p.Refill <= 0 || p.Capacity >= MaxExact || p.Refill >= MaxExact:
		return ErrLimit
	}
	return checkCost(cost)
}

// Token bucket state: a hash {tokens, ts}: the tokens (a float, as Redis
// prints a Lua number, %.17g) as of ts (Unix ms). TTL: until the bucket
// is full again, when it is the same as no key.
func tokenState(v Value, now, capacity int64) (tokens float64, ts int64, err error) {
	switch v.Kind {
	case Absent:
		return float64(capacity), now, nil
	case Hash:
		t, err1 := strconv.ParseFloat(v.Hash.Get("tokens"), 64)
		s, err2 := strconv.ParseInt(v.Hash.Get("ts"), 10, 64)
		if err1 != nil || err2 != nil {
			return 0, 0, ErrCorrupt
		}
		return t, s, nil
	}
	return 0, 0, ErrWrongType
}

// Take spends cost tokens at now (ms) if the bucket holds them.
func (p TokenBucket) Take(v Value, now, cost int64) (Result, Value, bool, error) {
	return p.take(v, now, cost, true)
}

// Peek answers as Take would and changes nothing.
func (p TokenBucket) Peek(v Value, now, cost int64) (Result, error) {
	r, _, _, err := p.take(v, now, cost, false)
	return r, err
}

func (p TokenBucket) take(v Value, now, cost int64, write bool) (Result, Value, bool, error) {
	if err := p.validate(cost); err != nil {
		return Result{}, v, false, err
	}
	tokens, ts, err := tokenState(v, now, p.Capacity)
	if err != nil {
		return Result{}, v, false, err
	}
	// The Lua twin does these float operations in this order.
	rate := float64(p.Refill) / float64(p.PeriodMs)
	capf := float64(p.Capacity)
	if now > ts {
		tokens = tokens + float64(now-ts)*rate
		if tokens > capf {
			tokens = capf
		}
		ts = now
	}
	r := Result{Limit: p.Capacity}
	wait := max(0, ts-now) // a clock that went back waits for the stored ts
	if float64(cost) <= tokens {
		r.Allowed = true
		tokens = tokens - float64(cost)
	} else if cost > p.Capacity {
		r.RetryAfterMs = -1
	} else {
		r.RetryAfterMs = wait + int64(math.Ceil((float64(cost)-tokens)/rate))
	}
	r.Remaining = int64(math.Floor(tokens))
	r.Count = p.Capacity - r.Remaining
	r.ResetAfterMs = wait + int64(math.Ceil((capf-tokens)/rate))
	if !r.Allowed || !write || cost == 0 {
		return r, v, false, nil
	}
	return r, Value{Kind: Hash, Hash: Fields{n: 2, head: [3]Field{
		{"tokens", luaNum(tokens)}, {"ts", luaNum(float64(ts))},
	}}, TTL: r.ResetAfterMs}, true, nil
}

// --- Fixed window ---------------------------------------------------------

// FixedWindow allows Limit units per window that starts at the first
// request (INCRBY, and PEXPIRE when the key is new): the window follows the
// key's TTL, the server's clock, not a passed time.
type FixedWindow struct {
	WindowMs, Limit int64
}

func (p FixedWindow) validate(cost int64) error {
	switch {
	case p.WindowMs <= 0 || p.WindowMs >= MaxExact:
		return ErrWindow
	case p.Limit <= 0 || p.Limit >= MaxExact:
		return ErrLimit
	}
	return checkCost(cost)
}

// Fixed window state: a string counter; TTL the rest of the window. A key
// found without TTL (someone SET it) gets the window on the next charge.
func fixedState(v Value) (int64, error) {
	switch v.Kind {
	case Absent:
		return 0, nil
	case String:
		n, ok := parseInt64(v.Str)
		if !ok || n < 0 || n >= MaxExact {
			return 0, ErrCorrupt
		}
		return n, nil
	}
	return 0, ErrWrongType
}

// Hit charges cost if the window has room. v.TTL is the key's PTTL.
func (p FixedWindow) Hit(v Value, cost int64) (Result, Value, bool, error) {
	return p.hit(v, cost, true)
}

// Peek answers as Hit would and changes nothing.
func (p FixedWindow) Peek(v Value, cost int64) (Result, error) {
	r, _, _, err := p.hit(v, cost, false)
	return r, err
}

func (p FixedWindow) hit(v Value, cost int64, write bool) (Result, Value, bool, error) {
	if err := p.validate(cost); err != nil {
		return Result{}, v, false, err
	}
	count, err := fixedState(v)
	if err != nil {
		return Result{}, v, false, err
	}
	ttl := int64(0)
	if v.Kind != Absent {
		ttl = v.TTL
	}
	r := Result{Limit: p.Limit}
	after, changed := v, false
	if count+cost <= p.Limit {
		r.Allowed = true
		if write && cost > 0 {
			count += cost
			if v.Kind == Absent || ttl == -1 {
				ttl = p.WindowMs
			}
			after, changed = Value{Kind: String, Str: strconv.FormatInt(count, 10), TTL: ttl}, true
		}
	} else if cost > p.Limit || ttl == -1 {
		r.RetryAfterMs = -1
	} else {
		r.RetryAfterMs = ttl
	}
	if r.Allowed && !write {
		count += cost
	}
	r.Count, r.Remaining, r.ResetAfterMs = count, max(0, p.Limit-count), ttl
	return r, after, changed, nil
}

// --- Sliding-window counter -----------------------------------------------

// SlidingWindow estimates the requests in the last WindowMs from two fixed
// windows aligned on multiples of WindowMs: the current one counts fully,
// the previous one by the share of it still inside the sliding window.
type SlidingWindow struct {
	WindowMs, Limit int64
}

func (p SlidingWindow) validate(cost int64) error {
	switch {
	case p.WindowMs <= 0 || p.WindowMs >= MaxExact:
		return ErrWindow
	case p.Limit <= 0:
		return ErrLimit
	case p.Limit >= MaxExact/p.WindowMs:
		return ErrRange
	}
	return checkCost(cost)
}

// Sliding window state: a hash {start, cur, prev}: the current window's
// start (Unix ms) and the counts of it and of the window before. TTL: the
// end of the window after the current one, when both counts have aged out.
func slidingState(v Value, now, w int64) (start, cur, prev int64, err error) {
	switch v.Kind {
	case Absent:
		return floorDiv(now, w) * w, 0, 0, nil
	case Hash:
		s, ok1 := parseInt64(v.Hash.Get("start"))
		c, ok2 := parseInt64(v.Hash.Get("cur"))
		q, ok3 := parseInt64(v.Hash.Get("prev"))
		if !ok1 || !ok2 || !ok3 || c < 0 || q < 0 || c >= MaxExact || q >= MaxExact {
			return 0, 0, 0, ErrCorrupt
		}
		return s, c, q, nil
	}
	return 0, 0, 0, ErrWrongType
}

// Hit charges cost at now (ms) if the estimate leaves room for it.
func (p SlidingWindow) Hit(v Value, now, cost int64) (Result, Value, bool, error) {
	return p.hit(v, now, cost, true)
}

// Peek answers as Hit would and changes nothing.
func (p SlidingWindow) Peek(v Value, now, cost int64) (Result, error) {
	r, _, _, err := p.hit(v, now, cost, false)
	return r, err
}

func (p SlidingWindow) hit(v Value, now, cost int64, write bool) (Result, Value, bool, error) {
	if err := p.validate(cost); err != nil {
		return Result{}, v, false, err
	}
	w := p.WindowMs
	start, cur, prev, err := slidingState(v, now, w)
	if err != nil {
		return Result{}, v, false, err
	}
	// Roll forward; a clock that went back stays in the stored window.
	if s := floorDiv(now, w) * w; s > start {
		if s == start+w {
			prev = cur
		} else {
			prev = 0
		}
		cur, start = 0, s
	}
	el := max(0, now-start)
	// The estimate times w, to stay in integers: prev*(w-el)/w + cur.
	est := prev*(w-el) + cur*w
	r := Result{Limit: p.Limit}
	if est+cost*w <= p.Limit*w {
		r.Allowed = true
		cur += cost
		est += cost * w
	} else if cost > p.Limit {
		r.RetryAfterMs = -1
	} else {
		r.RetryAfterMs = slidingRetry(start, cur, prev, el, w, p.Limit-cost) - now
	}
	r.Count = ceilDiv(est, w)
	r.Remaining = max(0, p.Limit-r.Count)
	switch {
	case cur > 0:
		r.ResetAfterMs = start + 2*w - now
	case prev > 0 && el < w:
		r.ResetAfterMs = start + w - now
	}
	if !r.Allowed || !write || cost == 0 {
		return r, v, false, nil
	}
	return r, Value{Kind: Hash, Hash: Fields{n: 3, head: [3]Field{
		{"cur", strconv.FormatInt(cur, 10)}, {"prev", strconv.FormatInt(prev, 10)}, {"start", strconv.FormatInt(start, 10)},
	}}, TTL: start + 2*w - now}, true, nil
}

// slidingRetry is the first time the estimate is at most room: later in
// this window, as the previous window's share shrinks, or else in the next
// one, where this window's count becomes the shrinking share.
func slidingRetry(start, cur, prev, el, w, room int64) int64 {
	if a := (room - cur) * w; a >= 0 && prev > 0 {
		if at := max(el, w-floorDiv(a, prev)); at < w {
			return start + at
		}
	}
	at := int64(0)
	if cur > 0 {
		at = max(0, w-floorDiv(room*w, cur))
	}
	return start + w + at
}
