package limiter

import (
	"errors"
	"slices"
)

// Concurrency: at most Limit leases in flight per key, each with its own
// expiry, so a holder that dies without releasing frees its slot when the
// lease runs out.
//
// State: a sorted set, member = lease id, score = the lease's expiry (Unix
// ms). Leases whose expiry is at or before now are dropped on the next
// acquire or release (ZREMRANGEBYSCORE -inf now). TTL: until the last
// lease expires; the key goes when the set empties, as Redis does.
type Concurrency struct {
	Limit int64
}

var (
	ErrLease   = errors.New("ERR lease must be a positive integer number of milliseconds")
	ErrLeaseID = errors.New("ERR lease id must not be empty")
)

func leases(v Value) ([]ZMember, error) {
	switch v.Kind {
	case Absent:
		return nil, nil
	case ZSet:
		return v.ZSet, nil
	}
	return nil, ErrWrongType
}

// live is the leases still held at now, without the expired ones.
func live(zs []ZMember, now int64) []ZMember {
	i := 0
	for i < len(zs) && zs[i].Score <= float64(now) {
		i++
	}
	return zs[i:]
}

// Holders lists the leases in flight at now, soonest expiry first.
func Holders(v Value, now int64) ([]ZMember, error) {
	zs, err := leases(v)
	return slices.Clone(live(zs, now)), err
}

func (p Concurrency) validate(id string, leaseMs int64) error {
	switch {
	case p.Limit <= 0 || p.Limit >= MaxExact:
		return ErrLimit
	case leaseMs <= 0 || leaseMs >= MaxExact:
		return ErrLease
	case id == "":
		return ErrLeaseID
	}
	return nil
}

// Acquire takes or renews lease id until now+leaseMs. Renewing a lease
// still held always passes; a new one passes while fewer than Limit are
// held. A refusal can still change the value: expired leases go.
func (p Concurrency) Acquire(v Value, now int64, id string, leaseMs int64) (Result, Value, bool, error) {
	return p.acquire(v, now, id, leaseMs, true)
}

// PeekAcquire answers as Acquire would and changes nothing.
func (p Concurrency) PeekAcquire(v Value, now int64, id string, leaseMs int64) (Result, error) {
	r, _, _, err := p.acquire(v, now, id, leaseMs, false)
	return r, err
}

func (p Concurrency) acquire(v Value, now int64, id string, leaseMs int64, write bool) (Result, Value, bool, error) {
	if err := p.validate(id, leaseMs); err != nil {
		return Result{}, v, false, err
	}
	all, err := leases(v)
	if err != nil {
		return Result{}, v, false, err
	}
	zs := live(all, now)
	pruned := len(zs) < len(all)
	held := slices.IndexFunc(zs, func(z ZMember) bool { return z.Member == id }) >= 0
	r := Result{Limit: p.Limit}
	if held || int64(len(zs)) < p.Limit {
		r.Allowed = true
		zs = slices.DeleteFunc(slices.Clone(zs), func(z ZMember) bool { return z.Member == id })
		zs = sortedZ(append(zs, ZMember{Member: id, Score: float64(now + leaseMs)}))
	} else {
		r.RetryAfterMs = int64(zs[0].Score) - now
	}
	r.Count = int64(len(zs))
	r.Remaining = max(0, p.Limit-r.Count)
	if len(zs) > 0 {
		r.ResetAfterMs = int64(zs[len(zs)-1].Score) - now
	}
	switch {
	case !write || (!r.Allowed && !pruned):
		return r, v, false, nil
	case len(zs) == 0:
		return r, Value{}, true, nil
	case r.Allowed:
		return r, Value{Kind: ZSet, ZSet: zs, TTL: r.ResetAfterMs}, true, nil
	}
	return r, Value{Kind: ZSet, ZSet: zs, TTL: v.TTL}, true, nil
}

// Release ends lease id; released says whether it was held (an expired
// lease is not). Result.Allowed is released.
func (p Concurrency) Release(v Value, now int64, id string) (Result, Value, bool, error) {
	if err := p.validate(id, 1); err != nil {
		return Result{}, v, false, err
	}
	all, err := leases(v)
	if err != nil {
		return Result{}, v, false, err
	}
	zs := live(all, now)
	pruned := len(zs) < len(all)
	n := len(zs)
	zs = slices.DeleteFunc(slices.Clone(zs), func(z ZMember) bool { return z.Member == id })
	r := Result{Limit: p.Limit, Allowed: len(zs) < n, Count: int64(len(zs))}
	r.Remaining = max(0, p.Limit-r.Count)
	if len(zs) > 0 {
		r.ResetAfterMs = int64(zs[len(zs)-1].Score) - now
	}
	switch {
	case !r.Allowed && !pruned:
		return r, v, false, nil
	case len(zs) == 0:
		return r, Value{}, true, nil
	case r.Allowed:
		return r, Value{Kind: ZSet, ZSet: zs, TTL: r.ResetAfterMs}, true, nil
	}
	return r, Value{Kind: ZSet, ZSet: zs, TTL: v.TTL}, true, nil
}

// sortedZ orders members as a sorted set does: by score, then member.
func sortedZ(zs []ZMember) []ZMember {
	slices.SortFunc(zs, func(a, b ZMember) int {
		switch {
		case a.Score < b.Score:
			return -1
		case a.Score > b.Score:
			return 1
		case a.Member < b.Member:
			return -1
		case a.Member > b.Member:
			return 1
		}
		return 0
	})
	return zs
}
