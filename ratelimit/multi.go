package ratelimit

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// Charge is one limit of an AllowAll: made by Limiter.Charge or
// Concurrency.Charge.
type Charge struct {
	st    *store
	key   string
	limit int
	spec  string // RL.ALL's spec
	kind  []any  // scripts.All's kind and parameters
	err   error
}

// Charge is the charge of n units of (tenant, user) for AllowAll. A
// SlidingLog limiter cannot take part: RL.ALL and its twin have no
// sliding log (use SlidingWindow).
func (l *Limiter) Charge(tenant, user string, n int) Charge {
	c := Charge{st: l.store, key: l.key(tenant, user), limit: l.Limit()}
	if n < 0 {
		c.err = fmt.Errorf("ratelimit: cost must not be negative, got %d", n)
		return c
	}
	c.spec, c.err = l.spec(n)
	c.kind = l.scriptKind(n)
	return c
}

// Charge is the acquisition of lease id of (tenant, user) for AllowAll.
func (cc *Concurrency) Charge(tenant, user, id string) Charge {
	c := Charge{st: cc.store, key: cc.key(tenant, user), limit: cc.limit}
	if id == "" {
		c.err = ErrEmptyLeaseID
		return c
	}
	c.spec = fmt.Sprintf("LEASE %d %d %s", cc.limit, cc.leaseMs, id)
	c.kind = []any{"lease", cc.limit, cc.leaseMs, id}
	return c
}

// MultiResult is AllowAll's outcome.
type MultiResult struct {
	// Allowed: every limit passed and all were charged; otherwise none was.
	Allowed bool
	// Refused is the position of the first limit that refused, -1 if none
	// did (or the failure policy let the step through).
	Refused int
	// Results are each limit's figures, decided on its key as it was (in a
	// refused step, what each would have answered alone).
	Results []Result
	// StoreErr is the store failure the policy let through; nil normally.
	StoreErr error
}

// ErrMixedClients is AllowAll's answer for charges of limiters on
// different clients: one atomic step needs one server.
var ErrMixedClients = errors.New("ratelimit: AllowAll needs every limiter on the same client")

// AllowAll decides several limits in one atomic step: all charged or none
// (RL.ALL on limitkv; on other servers scripts.All, one script that runs
// each limit's twin, peeks first and charges only if all passed). A
// spec of a lease uses the lease id, which must not contain spaces on
// limitkv (RL.ALL splits its specs on spaces). Every limit needs the same
// client; the first charge's failure policy decides a store failure, with
// the first key. On a ClusterClient or a Ring every key needs the same
// hash tag (ErrCrossSlot otherwise): DefaultKey's keys of one tenant do.
func AllowAll(ctx context.Context, charges ...Charge) (MultiResult, error) {
	if len(charges) == 0 {
		return MultiResult{Allowed: true, Refused: -1}, nil
	}
	st := charges[0].st
	keys := make([]string, len(charges))
	for i, c := range charges {
		if c.err != nil {
			return MultiResult{Refused: -1}, fmt.Errorf("ratelimit: limit %d: %w", i, c.err)
		}
		if c.st == nil {
			return MultiResult{Refused: -1}, fmt.Errorf("ratelimit: limit %d: a zero Charge", i)
		}
		if c.st.rdb != st.rdb {
			return MultiResult{Refused: -1}, ErrMixedClients
		}
		keys[i] = c.key
		if sharded(st.rdb) && hashTag(c.key) != hashTag(keys[0]) {
			return MultiResult{Refused: -1}, fmt.Errorf("%w: %q and %q", ErrCrossSlot, keys[0], c.key)
		}
	}
	m, err := allowAll(ctx, st, keys, charges)
	if err != nil {
		res, err := st.fail(ctx, keys[0], charges[0].limit, err)
		return MultiResult{Allowed: res.Allowed, Refused: -1, StoreErr: res.StoreErr}, err
	}
	return m, nil
}

func allowAll(ctx context.Context, st *store, keys []string, charges []Charge) (MultiResult, error) {
	b, err := st.resolveBackend(ctx)
	if err != nil {
		return MultiResult{}, err
	}
	var v any
	if b == BackendLimitkv {
		args := []any{"RL.ALL", st.nowArg()}
		for i, c := range charges {
			args = append(args, keys[i], c.spec)
		}
		// The keys start at the second argument: a ClusterClient whose
		// command table is not loaded yet, and a Ring always, would route
		// by the first (now, "*") and send the step to the wrong node.
		cmd := redis.NewCmd(ctx, args...)
		cmd.SetFirstKeyPos(2)
		err = st.rdb.Process(ctx, cmd)
		v = cmd.Val()
	} else {
		args := []any{st.nowArg()}
		for _, c := range charges {
			args = append(args, c.kind...)
		}
		v, err = allScript.Run(ctx, st.rdb, keys, args...).Result()
	}
	if err != nil {
		return MultiResult{}, err
	}
	a, ok := v.([]any)
	if !ok || len(a) != 3 {
		return MultiResult{}, fmt.Errorf("ratelimit: unexpected RL.ALL reply %v", v)
	}
	allowed, ok1 := replyInt(a[0])
	refused, ok2 := replyInt(a[1])
	rs, ok3 := a[2].([]any)
	if !ok1 || !ok2 || !ok3 || len(rs) != len(charges) {
		return MultiResult{}, fmt.Errorf("ratelimit: unexpected RL.ALL reply %v", v)
	}
	m := MultiResult{Allowed: allowed == 1, Refused: int(refused), Results: make([]Result, len(rs))}
	for i, r := range rs {
		if m.Results[i], _, err = parseSix(r); err != nil {
			return MultiResult{}, err
		}
	}
	return m, nil
}
