package ratelimit

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/limitkv/limitkv/ratelimit/scripts"
)

// Algorithm is how a Limiter counts requests. Each has a native limitkv
// command and a Lua twin in ratelimit/scripts for other servers; both
// decide the same, answer the same figures and leave the same key.
type Algorithm int

const (
	// SlidingLog records every request in a sorted set and counts those
	// in the last Window: exact, O(requests) memory. RL.CHECK on limitkv,
	// the seed's script elsewhere. The default.
	SlidingLog Algorithm = iota
	// GCRA spaces requests Window/Limit apart with Burst at once:
	// redis-cell's algorithm and key (RL.GCRA, scripts.GCRA). Window must
	// be whole seconds.
	GCRA
	// TokenBucket holds Burst tokens and gains Limit per Window,
	// continuously; a request takes its cost (RL.TOKEN, scripts.TokenBucket).
	TokenBucket
	// FixedWindow counts up to Limit from a window's first request until
	// its key expires, Window later; up to 2×Limit pass across a boundary
	// (RL.FIXED, scripts.FixedWindow). It runs on the server's clock only.
	FixedWindow
	// SlidingWindow weights the previous aligned window's count by its
	// share still inside the last Window: O(1), close to SlidingLog
	// (RL.SLIDING, scripts.SlidingWindow).
	SlidingWindow
)

func (a Algorithm) String() string {
	switch a {
	case SlidingLog:
		return "sliding_log"
	case GCRA:
		return "gcra"
	case TokenBucket:
		return "token_bucket"
	case FixedWindow:
		return "fixed_window"
	case SlidingWindow:
		return "sliding_window"
	}
	return "Algorithm(" + strconv.Itoa(int(a)) + ")"
}

// maxExact bounds integers as the twins do: Lua computes in doubles.
const maxExact = 1 << 53

// validate checks what the algorithm needs of the options, so that a
// misconfiguration fails in New, not on every request.
func (l *Limiter) validate() error {
	if l.burst < 1 {
		return fmt.Errorf("ratelimit: Burst must be at least 1, got %d", l.burst)
	}
	switch l.alg {
	case SlidingLog, FixedWindow, TokenBucket:
	case GCRA:
		if l.windowMs%1000 != 0 {
			return fmt.Errorf("ratelimit: GCRA needs a Window of whole seconds, got %v", l.Window())
		}
		// redis-cell's emission interval, in ns, must be at least 1µs.
		if l.windowMs*1e6/int64(l.limit) < 1000 {
			return fmt.Errorf("ratelimit: GCRA's Limit per Window is above one per microsecond")
		}
	case SlidingWindow:
		if int64(l.limit) >= maxExact/l.windowMs {
			return fmt.Errorf("ratelimit: Limit times Window (ms) must stay below 2^53")
		}
	default:
		return fmt.Errorf("ratelimit: unknown %v", l.alg)
	}
	return nil
}

// params are the algorithm's parameters as its command and twin take
// them, after now: GCRA max_burst count period_s, TOKEN capacity refill
// period_ms, FIXED and SLIDING window_ms limit.
func (l *Limiter) params() []any {
	switch l.alg {
	case GCRA:
		return []any{l.burst - 1, l.limit, l.windowMs / 1000}
	case TokenBucket:
		return []any{l.burst, l.limit, l.windowMs}
	}
	return []any{l.windowMs, l.limit}
}

// hasNow: every algorithm but the fixed window (which follows its key's
// TTL) takes now_ms.
func (l *Limiter) hasNow() bool { return l.alg != FixedWindow }

var (
	gcraScript    = redis.NewScript(scripts.GCRA)
	tokenScript   = redis.NewScript(scripts.TokenBucket)
	fixedScript   = redis.NewScript(scripts.FixedWindow)
	slidingScript = redis.NewScript(scripts.SlidingWindow)
	leaseScript   = redis.NewScript(scripts.Concurrency)
	budgetScript  = redis.NewScript(scripts.Budget)
	allScript     = redis.NewScript(scripts.All)
)

// native is the command and twin of each algorithm but the sliding log.
var native = map[Algorithm]struct {
	cmd, spec string
	script    *redis.Script
}{
	GCRA:          {"RL.GCRA", "GCRA", gcraScript},
	TokenBucket:   {"RL.TOKEN", "TOKEN", tokenScript},
	FixedWindow:   {"RL.FIXED", "FIXED", fixedScript},
	SlidingWindow: {"RL.SLIDING", "SLIDING", slidingScript},
}

// allowAlgorithm charges n on key: the RL command on limitkv, its twin
// (EVALSHA, EVAL on NOSCRIPT) elsewhere; both reply the same six figures.
func (l *Limiter) allowAlgorithm(ctx context.Context, b Backend, key string, n int) (Result, error) {
	nat := native[l.alg]
	var args []any
	if l.hasNow() {
		args = append(args, l.nowArg())
	}
	args = append(args, l.params()...)
	var v any
	var err error
	if b == BackendLimitkv {
		cmd := append([]any{nat.cmd, key}, args...)
		v, err = l.rdb.Do(ctx, append(cmd, "COST", n)...).Result()
	} else {
		v, err = nat.script.Run(ctx, l.rdb, []string{key}, append(args, n, "check")...).Result()
	}
	if err != nil {
		return Result{}, err
	}
	r, _, err := parseSix(v)
	return r, err
}

// parseSix reads the common reply {allowed, count, limit, remaining,
// retry_after_ms, reset_after_ms [, extra...]}: the RL commands' and their
// twins'. extra is what follows the six (the budget's window_start).
func parseSix(v any) (Result, []int64, error) {
	a, ok := v.([]any)
	if !ok || len(a) < 6 {
		return Result{}, nil, fmt.Errorf("ratelimit: unexpected reply %v", v)
	}
	n := make([]int64, len(a))
	for i, x := range a {
		if n[i], ok = replyInt(x); !ok {
			return Result{}, nil, fmt.Errorf("ratelimit: reply figure %d is not an integer: %v", i+1, x)
		}
	}
	r := Result{
		Allowed: n[0] == 1, Count: int(n[1]), Limit: int(n[2]), Remaining: int(n[3]),
		RetryAfter: ms(n[4]), Reset: ms(n[5]),
	}
	if n[4] < 0 {
		r.RetryAfter = Never
	}
	return r, n[6:], nil
}

// spec is the limiter's RL.ALL spec charging n: "TOKEN 10 1 1000 COST 2".
func (l *Limiter) spec(n int) (string, error) {
	nat, ok := native[l.alg]
	if !ok {
		return "", fmt.Errorf("ratelimit: %v cannot take part in AllowAll (RL.ALL has no sliding log)", l.alg)
	}
	var b strings.Builder
	b.WriteString(nat.spec)
	for _, p := range l.params() {
		fmt.Fprintf(&b, " %v", p)
	}
	fmt.Fprintf(&b, " COST %d", n)
	return b.String(), nil
}

// scriptKind is the limiter's kind and parameters for scripts.All.
func (l *Limiter) scriptKind(n int) []any {
	kind := map[Algorithm]string{GCRA: "gcra", TokenBucket: "token", FixedWindow: "fixed", SlidingWindow: "sliding"}[l.alg]
	return append(append([]any{kind}, l.params()...), n)
}

// policyWindow is the w of the RateLimit-Policy header: the window, or for
// GCRA and the token bucket the time an empty bucket takes to fill again
// (Burst at Limit per Window), so q (the burst) per w holds from full.
func (l *Limiter) policyWindow() time.Duration {
	if l.alg == GCRA || l.alg == TokenBucket {
		return time.Duration(int64(l.burst) * l.windowMs * int64(time.Millisecond) / int64(l.limit))
	}
	return l.Window()
}
