package limiter

import (
	"errors"
	"strconv"
)

// Budget: Limit units per fixed window (aligned on multiples of WindowMs)
// spent in two steps, for work whose cost is known only afterwards (tokens
// of an LLM call, bytes of a response): Reserve charges an estimate if it
// fits, Settle later replaces the estimate with the actual cost, refunding
// or charging the difference. A settlement whose window has ended changes
// nothing: the estimate went with that window.
//
// State: a hash {start, used}: the window's start (Unix ms) and the units
// charged in it. TTL: the end of the window.
type Budget struct {
	WindowMs, Limit int64
}

// ErrEstimate is returned for a negative estimate or actual cost.
var ErrEstimate = errors.New("ERR estimate and actual cost must be non-negative integers")

func (p Budget) validate(costs ...int64) error {
	switch {
	case p.WindowMs <= 0 || p.WindowMs >= MaxExact:
		return ErrWindow
	case p.Limit <= 0 || p.Limit >= MaxExact:
		return ErrLimit
	}
	for _, c := range costs {
		if c < 0 || c >= MaxExact {
			return ErrEstimate
		}
	}
	return nil
}

func (p Budget) state(v Value, now int64) (start, used int64, err error) {
	s := floorDiv(now, p.WindowMs) * p.WindowMs
	switch v.Kind {
	case Absent:
		return s, 0, nil
	case Hash:
		st, ok1 := parseInt64(v.Hash.Get("start"))
		u, ok2 := parseInt64(v.Hash.Get("used"))
		if !ok1 || !ok2 || u < 0 || u >= MaxExact {
			return 0, 0, ErrCorrupt
		}
		if s > st { // a new window; a clock gone back stays in the stored one
			return s, 0, nil
		}
		return st, u, nil
	}
	return 0, 0, ErrWrongType
}

func (p Budget) value(start, used, now int64) Value {
	return Value{Kind: Hash, Hash: Fields{n: 2, head: [3]Field{
		{"start", strconv.FormatInt(start, 10)}, {"used", strconv.FormatInt(used, 10)},
	}}, TTL: start + p.WindowMs - now}
}

// Reserve charges estimate at now if it fits. windowStart names the window
// charged; Settle needs it back.
func (p Budget) Reserve(v Value, now, estimate int64) (r Result, windowStart int64, after Value, changed bool, err error) {
	return p.reserve(v, now, estimate, true)
}

// PeekReserve answers as Reserve would and changes nothing.
func (p Budget) PeekReserve(v Value, now, estimate int64) (Result, int64, error) {
	r, s, _, _, err := p.reserve(v, now, estimate, false)
	return r, s, err
}

func (p Budget) reserve(v Value, now, est int64, write bool) (Result, int64, Value, bool, error) {
	if err := p.validate(est); err != nil {
		return Result{}, 0, v, false, err
	}
	start, used, err := p.state(v, now)
	if err != nil {
		return Result{}, 0, v, false, err
	}
	r := Result{Limit: p.Limit}
	end := start + p.WindowMs - now
	if used+est <= p.Limit {
		r.Allowed = true
		used += est
	} else if est > p.Limit {
		r.RetryAfterMs = -1
	} else {
		r.RetryAfterMs = end
	}
	r.Count, r.Remaining = used, max(0, p.Limit-used)
	if used > 0 {
		r.ResetAfterMs = end
	}
	if !r.Allowed || !write || est == 0 {
		return r, start, v, false, nil
	}
	return r, start, p.value(start, used, now), true, nil
}

// Settle replaces a reservation's estimate, made in windowStart, with the
// actual cost. Result.Allowed says whether it applied (the window is still
// the current one); used never goes below zero.
func (p Budget) Settle(v Value, now, windowStart, estimate, actual int64) (Result, Value, bool, error) {
	if err := p.validate(estimate, actual); err != nil {
		return Result{}, v, false, err
	}
	start, used, err := p.state(v, now)
	if err != nil {
		return Result{}, v, false, err
	}
	r := Result{Limit: p.Limit, Allowed: start == windowStart}
	old := used
	if r.Allowed {
		used = max(0, used+actual-estimate)
	}
	r.Count, r.Remaining = used, max(0, p.Limit-used)
	if used > 0 {
		r.ResetAfterMs = start + p.WindowMs - now
	}
	if used == old {
		return r, v, false, nil
	}
	return r, p.value(start, used, now), true, nil
}
