package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// ConcurrencyOptions configure a Concurrency. Limit and Lease are required.
type ConcurrencyOptions struct {
	// Name identifies the limit; part of the default key. Default "default".
	Name string
	// Limit is the most leases held at once; at least 1.
	Limit int
	// Lease is how long a lease lasts unless released (whole ms, at least
	// 1 ms): a holder that dies frees its slot after it.
	Lease time.Duration
	// Key, Backend, Now and OnFailure are as in Options.
	Key       func(tenant, user string) string
	Backend   Backend
	Now       func() time.Time
	OnFailure FailurePolicy
}

// Concurrency limits how many jobs of a (tenant, user) run at once with
// leases: RL.ACQUIRE, RL.RELEASE and RL.HOLDERS on limitkv, the
// concurrency.lua twin elsewhere. It is safe for concurrent use.
type Concurrency struct {
	*store
	name    string
	limit   int
	leaseMs int64
	key     func(tenant, user string) string
}

// Lease is one held lease.
type Lease struct {
	ID      string
	Expires time.Time // when it ends unless renewed or released (ms precision)
}

// NewConcurrency returns a Concurrency that keeps its leases in rdb.
func NewConcurrency(rdb redis.UniversalClient, o ConcurrencyOptions) (*Concurrency, error) {
	if o.Limit < 1 {
		return nil, fmt.Errorf("ratelimit: Limit must be at least 1, got %d", o.Limit)
	}
	leaseMs := o.Lease.Milliseconds()
	if leaseMs < 1 {
		return nil, fmt.Errorf("ratelimit: Lease must be at least 1ms, got %v", o.Lease)
	}
	st, err := newStore(rdb, o.Backend, o.Now, o.OnFailure)
	if err != nil {
		return nil, err
	}
	c := &Concurrency{store: st, name: o.Name, limit: o.Limit, leaseMs: leaseMs, key: o.Key}
	if c.name == "" {
		c.name = "default"
	}
	if c.key == nil {
		c.key = DefaultKey(c.name)
	}
	return c, nil
}

// Name returns the limit's name.
func (c *Concurrency) Name() string { return c.name }

// Limit returns the most leases held at once.
func (c *Concurrency) Limit() int { return c.limit }

// Key returns the store key of (tenant, user).
func (c *Concurrency) Key(tenant, user string) string { return c.key(tenant, user) }

// ErrEmptyLeaseID is returned for an empty lease id.
var ErrEmptyLeaseID = errors.New("ratelimit: the lease id must not be empty")

// Acquire takes lease id for Lease if fewer than Limit are held, or
// renews it if id holds one already (always allowed). Count is the leases
// held after the call, RetryAfter when the soonest lease ends, Reset when
// the last does. Store failures go to the failure policy, as Allow's.
func (c *Concurrency) Acquire(ctx context.Context, tenant, user, id string) (Result, error) {
	if id == "" {
		return Result{Limit: c.limit}, ErrEmptyLeaseID
	}
	key := c.key(tenant, user)
	r, err := c.lease(ctx, key, "acquire", id)
	if err != nil {
		return c.fail(ctx, key, c.limit, err)
	}
	return r, nil
}

// Release ends lease id; Allowed reports whether it was held. A store
// failure is returned as is (the failure policy is for admissions): the
// lease then ends at its expiry.
func (c *Concurrency) Release(ctx context.Context, tenant, user, id string) (Result, error) {
	if id == "" {
		return Result{Limit: c.limit}, ErrEmptyLeaseID
	}
	key := c.key(tenant, user)
	r, err := c.lease(ctx, key, "release", id)
	if err != nil {
		return Result{Limit: c.limit}, c.wrap(key, err)
	}
	return r, nil
}

func (c *Concurrency) lease(ctx context.Context, key, op, id string) (Result, error) {
	b, err := c.resolveBackend(ctx)
	if err != nil {
		return Result{}, err
	}
	now := c.nowArg()
	var v any
	switch {
	case b == BackendLimitkv && op == "acquire":
		v, err = c.rdb.Do(ctx, "RL.ACQUIRE", key, now, c.limit, c.leaseMs, id).Result()
	case b == BackendLimitkv:
		v, err = c.rdb.Do(ctx, "RL.RELEASE", key, now, c.limit, id).Result()
	default:
		v, err = leaseScript.Run(ctx, c.rdb, []string{key}, now, op, c.limit, c.leaseMs, id).Result()
	}
	if err != nil {
		return Result{}, err
	}
	r, _, err := parseSix(v)
	return r, err
}

// Holders lists the leases held now, soonest end first: RL.HOLDERS on
// limitkv, ZRANGEBYSCORE elsewhere (with the server's TIME unless
// Options.Now is set). Errors are returned as is.
func (c *Concurrency) Holders(ctx context.Context, tenant, user string) ([]Lease, error) {
	key := c.key(tenant, user)
	b, err := c.resolveBackend(ctx)
	if err != nil {
		return nil, c.wrap(key, err)
	}
	var zs []redis.Z
	if b == BackendLimitkv {
		v, err := c.rdb.Do(ctx, "RL.HOLDERS", key, c.nowArg()).Result()
		if err != nil {
			return nil, c.wrap(key, err)
		}
		if zs, err = holderPairs(v); err != nil {
			return nil, c.wrap(key, err)
		}
	} else {
		now := c.now()
		if c.serverNow {
			if now, err = c.serverTime(ctx, key); err != nil {
				return nil, c.wrap(key, err)
			}
		}
		// As the twin: a lease whose expiry is now has ended.
		zs, err = c.rdb.ZRangeByScoreWithScores(ctx, key, &redis.ZRangeBy{
			Min: "(" + strconv.FormatInt(now.UnixMilli(), 10), Max: "+inf",
		}).Result()
		if err != nil {
			return nil, c.wrap(key, err)
		}
	}
	out := make([]Lease, len(zs))
	for i, z := range zs {
		out[i] = Lease{ID: fmt.Sprint(z.Member), Expires: time.UnixMilli(int64(z.Score))}
	}
	return out, nil
}

// holderPairs reads RL.HOLDERS's id, expiry pairs (an array in RESP2, a
// map in RESP3, whose order go-redis does not keep: sorted again).
func holderPairs(v any) ([]redis.Z, error) {
	var zs []redis.Z
	switch v := v.(type) {
	case []any:
		if len(v)%2 != 0 {
			return nil, fmt.Errorf("RL.HOLDERS: odd reply length %d", len(v))
		}
		for i := 0; i < len(v); i += 2 {
			n, ok := replyInt(v[i+1])
			if !ok {
				return nil, fmt.Errorf("RL.HOLDERS: expiry %v", v[i+1])
			}
			zs = append(zs, redis.Z{Member: fmt.Sprint(v[i]), Score: float64(n)})
		}
	case map[any]any:
		for k, x := range v {
			n, ok := replyInt(x)
			if !ok {
				return nil, fmt.Errorf("RL.HOLDERS: expiry %v", x)
			}
			zs = append(zs, redis.Z{Member: fmt.Sprint(k), Score: float64(n)})
		}
		sortZ(zs)
	default:
		return nil, fmt.Errorf("RL.HOLDERS: unexpected reply %T", v)
	}
	return zs, nil
}

func sortZ(zs []redis.Z) {
	for i := 1; i < len(zs); i++ {
		for j := i; j > 0 && (zs[j].Score < zs[j-1].Score ||
			zs[j].Score == zs[j-1].Score && fmt.Sprint(zs[j].Member) < fmt.Sprint(zs[j-1].Member)); j-- {
			zs[j], zs[j-1] = zs[j-1], zs[j]
		}
	}
}
