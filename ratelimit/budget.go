package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// BudgetOptions configure a Budget. Limit and Window are required.
type BudgetOptions struct {
	// Name identifies the budget; part of the default key. Default "default".
	Name string
	// Limit is the units (tokens, bytes...) reservations may total in a
	// window; at least 1.
	Limit int
	// Window is the budget's period, aligned on multiples of it since the
	// Unix epoch (whole ms, at least 1 ms).
	Window time.Duration
	// Unit names the units for the RateLimit-Policy header's qu
	// parameter; default none (the draft's default, "request").
	Unit string
	// Key, Backend, Now and OnFailure are as in Options.
	Key       func(tenant, user string) string
	Backend   Backend
	Now       func() time.Time
	OnFailure FailurePolicy
}

// Budget limits work whose cost is known only afterwards (tokens of an LLM
// call): Reserve an estimate before, Settle the actual cost after.
// RL.RESERVE and RL.SETTLE on limitkv, the budget.lua twin elsewhere. It
// is safe for concurrent use.
type Budget struct {
	*store
	name     string
	unit     string
	limit    int
	windowMs int64
	key      func(tenant, user string) string
}

// Reservation is what Reserve charged, for Settle.
type Reservation struct {
	Result
	// Estimate is the units reserved.
	Estimate int
	// WindowStart is the reservation's window (Unix ms): Settle applies
	// only while it is the current one.
	WindowStart int64
	key         string
}

// NewBudget returns a Budget that keeps its windows in rdb.
func NewBudget(rdb redis.UniversalClient, o BudgetOptions) (*Budget, error) {
	if o.Limit < 1 {
		return nil, fmt.Errorf("ratelimit: Limit must be at least 1, got %d", o.Limit)
	}
	windowMs := o.Window.Milliseconds()
	if windowMs < 1 {
		return nil, fmt.Errorf("ratelimit: Window must be at least 1ms, got %v", o.Window)
	}
	st, err := newStore(rdb, o.Backend, o.Now, o.OnFailure)
	if err != nil {
		return nil, err
	}
	b := &Budget{store: st, name: o.Name, unit: o.Unit, limit: o.Limit, windowMs: windowMs, key: o.Key}
	if b.name == "" {
		b.name = "default"
	}
	if b.key == nil {
		b.key = DefaultKey(b.name)
	}
	return b, nil
}

// Name returns the budget's name.
func (b *Budget) Name() string { return b.name }

// Limit returns the units per window.
func (b *Budget) Limit() int { return b.limit }

// Window returns the window length.
func (b *Budget) Window() time.Duration { return ms(b.windowMs) }

// Key returns the store key of (tenant, user).
func (b *Budget) Key(tenant, user string) string { return b.key(tenant, user) }

// Reserve charges estimate units if they fit in the current window
// (estimate 0 asks without charging). Count is the units used in the
// window, Reset and a refusal's RetryAfter the end of the window. Store
// failures go to the failure policy, as Allow's.
func (b *Budget) Reserve(ctx context.Context, tenant, user string, estimate int) (Reservation, error) {
	key := b.key(tenant, user)
	if estimate < 0 {
		return Reservation{Result: Result{Limit: b.limit}, key: key}, fmt.Errorf("ratelimit: estimate must not be negative, got %d", estimate)
	}
	r, start, err := b.run(ctx, key, "reserve", estimate, 0, 0)
	if err != nil {
		res, err := b.fail(ctx, key, b.limit, err)
		return Reservation{Result: res, Estimate: estimate, key: key}, err
	}
	return Reservation{Result: r, Estimate: estimate, WindowStart: start, key: key}, nil
}

// ErrNotReserved is Settle's answer for a reservation that charged nothing
// (refused, or let through by the failure policy without the store).
var ErrNotReserved = errors.New("ratelimit: the reservation charged nothing: nothing to settle")

// Settle replaces the reservation's estimate with the actual cost
// (refunding or charging the difference, never below zero) if its window
// is still the current one; Allowed reports whether it was. A store
// failure is returned as is.
func (b *Budget) Settle(ctx context.Context, res Reservation, actual int) (Result, error) {
	if !res.Allowed || res.StoreErr != nil || res.key == "" {
		return Result{Limit: b.limit}, ErrNotReserved
	}
	if actual < 0 {
		return Result{Limit: b.limit}, fmt.Errorf("ratelimit: actual cost must not be negative, got %d", actual)
	}
	r, _, err := b.run(ctx, res.key, "settle", res.Estimate, actual, res.WindowStart)
	if err != nil {
		return Result{Limit: b.limit}, b.wrap(res.key, err)
	}
	return r, nil
}

func (b *Budget) run(ctx context.Context, key, op string, est, actual int, ws int64) (Result, int64, error) {
	be, err := b.resolveBackend(ctx)
	if err != nil {
		return Result{}, 0, err
	}
	now := b.nowArg()
	var v any
	switch {
	case be == BackendLimitkv && op == "reserve":
		v, err = b.rdb.Do(ctx, "RL.RESERVE", key, now, b.windowMs, b.limit, est).Result()
	case be == BackendLimitkv:
		v, err = b.rdb.Do(ctx, "RL.SETTLE", key, now, b.windowMs, b.limit, est, actual, ws).Result()
	case op == "reserve":
		v, err = budgetScript.Run(ctx, b.rdb, []string{key}, now, op, b.windowMs, b.limit, est).Result()
	default:
		v, err = budgetScript.Run(ctx, b.rdb, []string{key}, now, op, b.windowMs, b.limit, est, actual, ws).Result()
	}
	if err != nil {
		return Result{}, 0, err
	}
	r, extra, err := parseSix(v)
	if err == nil && len(extra) != 1 {
		err = fmt.Errorf("ratelimit: budget reply without window_start: %v", v)
	}
	if err != nil {
		return Result{}, 0, err
	}
	return r, extra[0], nil
}
