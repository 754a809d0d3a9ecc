package limiter

import "fmt"

// Several limits in one atomic step (per user, per IP, per tenant...):
// every limit is decided on its current value; if all pass all are
// charged, else none is, and the result names the first that refused.
// The caller holds the keys for the whole step (one Lua script, one
// executor turn), so no other request sees a partial charge.

// Check is one limit's decision at now (Unix ms) on its key's value, in
// the shape of the algorithms' own functions.
type Check func(v Value, nowMs int64) (Result, Value, bool, error)

// Check binds a cost to the token bucket.
func (p TokenBucket) Check(cost int64) Check {
	return func(v Value, now int64) (Result, Value, bool, error) { return p.Take(v, now, cost) }
}

// Check binds a cost to the fixed window (which reads only v's TTL).
func (p FixedWindow) Check(cost int64) Check {
	return func(v Value, _ int64) (Result, Value, bool, error) { return p.Hit(v, cost) }
}

// Check binds a cost to the sliding window.
func (p SlidingWindow) Check(cost int64) Check {
	return func(v Value, now int64) (Result, Value, bool, error) { return p.Hit(v, now, cost) }
}

// Check binds a quantity to redis-cell's GCRA; now becomes nanoseconds.
func (p CellParams) Check(quantity int64) Check {
	return func(v Value, now int64) (Result, Value, bool, error) {
		r, after, changed, err := Throttle(v, now*1e6, p, quantity)
		return r.Result(), after, changed, err
	}
}

// Check binds a lease to the concurrency limit.
func (p Concurrency) Check(id string, leaseMs int64) Check {
	return func(v Value, now int64) (Result, Value, bool, error) { return p.Acquire(v, now, id, leaseMs) }
}

// Check binds an estimate to the budget (its reservation's window is the
// one current at now).
func (p Budget) Check(estimate int64) Check {
	return func(v Value, now int64) (Result, Value, bool, error) {
		r, _, after, changed, err := p.Reserve(v, now, estimate)
		return r, after, changed, err
	}
}

// Limit is one key's value and the check to run on it.
type Limit struct {
	Value Value
	Check Check
}

// MultiResult is the step's outcome: Refused is the index of the first
// limit that refused, -1 if none did; Results has every limit's figures,
// each decided on its value as it was.
type MultiResult struct {
	Allowed bool
	Refused int
	Results []Result
}

// Write is a value to store after the step; only Changed ones need it.
type Write struct {
	Value   Value
	Changed bool
}

// DecideAll decides every limit at now. Writes is nil unless all passed:
// a refused step charges nothing (an expired lease that a refusing check
// would have dropped is dropped next time instead). An error in any check
// fails the whole step, naming the limit.
func DecideAll(limits []Limit, now int64) (MultiResult, []Write, error) {
	m := MultiResult{Allowed: true, Refused: -1, Results: make([]Result, len(limits))}
	writes := make([]Write, len(limits))
	for i, l := range limits {
		r, after, changed, err := l.Check(l.Value, now)
		if err != nil {
			return MultiResult{}, nil, fmt.Errorf("limit %d: %w", i, err)
		}
		m.Results[i] = r
		writes[i] = Write{after, changed}
		if !r.Allowed && m.Allowed {
			m.Allowed, m.Refused = false, i
		}
	}
	if !m.Allowed {
		return m, nil, nil
	}
	return m, writes, nil
}
