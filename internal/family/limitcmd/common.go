package limitcmd

import (
	engine "github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/limiter"
	"github.com/limitkv/limitkv/internal/num"
)

// What the native limiters share: the server clock for "*", the COST and
// INFO options, and one reply shape, the Lua twins' (ratelimit/scripts)
// array {allowed, count, limit, remaining, retry_after_ms, reset_after_ms},
// or with INFO the same figures named, as RL.CHECK's INFO (a map in RESP3).

// exact bounds every integer argument as the Lua twins bound theirs, so
// both compute the same numbers in doubles.
const exact = limiter.MaxExact

// parseNow reads now_ms|*; "*" is the server's clock. The bounds are the
// twins' (|now| < 2^53).
func parseNow(x *engine.Ctx, a []byte) (int64, bool) {
	if len(a) == 1 && a[0] == '*' {
		return x.Now, true
	}
	n, ok := num.ParseInt(a)
	if !ok || n <= -exact || n >= exact {
		x.W.Error(ErrRLNow)
		return 0, false
	}
	return n, true
}

// intArg reads an integer parameter; one that is no integer becomes bad,
// a value the limiter's validation refuses with that parameter's own
// message, so every argument error comes out in the limiter's order.
func intArg(a []byte, bad int64) int64 {
	n, ok := num.ParseInt(a)
	if !ok || n <= -exact || n >= exact {
		return bad
	}
	return n
}

// options are the trailing options of a limiter command.
type options struct {
	cost int64
	info bool
}

// parseOptions reads [COST n] [INFO] (any order, any case); cost is
// refused by the limiter's own check when out of range.
func parseOptions(x *engine.Ctx, args [][]byte, withCost bool) (options, bool) {
	o := options{cost: 1}
	for i := 0; i < len(args); i++ {
		switch {
		case withCost && engine.AsciiEq(args[i], "cost") && i+1 < len(args):
			o.cost = intArg(args[i+1], -1)
			i++
		case engine.AsciiEq(args[i], "info"):
			o.info = true
		default:
			x.W.Error(engine.ErrSyntax)
			return o, false
		}
	}
	return o, true
}

// field is one more named figure of a reply (the budget's window_start).
type field struct {
	name string
	val  int64
}

var resultNames = [...]string{"allowed", "count", "limit", "remaining", "retry_after_ms", "reset_after_ms"}

func resultInts(r limiter.Result) [6]int64 {
	a := int64(0)
	if r.Allowed {
		a = 1
	}
	return [6]int64{a, r.Count, r.Limit, r.Remaining, r.RetryAfterMs, r.ResetAfterMs}
}

// replyResult answers r as the twins do, or named with INFO.
func replyResult(x *engine.Ctx, r limiter.Result, info bool, extra ...field) {
	vals := resultInts(r)
	if !info {
		x.W.Array(len(vals) + len(extra))
		for _, v := range vals {
			x.W.Int(v)
		}
		for _, f := range extra {
			x.W.Int(f.val)
		}
		return
	}
	x.W.Map(len(vals) + len(extra))
	for i, v := range vals {
		x.W.BulkString(resultNames[i])
		x.W.Int(v)
	}
	for _, f := range extra {
		x.W.BulkString(f.name)
		x.W.Int(f.val)
	}
}

// decide runs one limiter command (its writes propagated as st's twin
// calls them): validate (the decision on an absent
// key, which reads nothing, reports any argument error), read the key,
// decide, write what changed. peek reads the key as a read command and
// writes nothing.
func decide(x *engine.Ctx, key []byte, peek bool, st style, check limiter.Check, now int64) (limiter.Result, bool) {
	if _, _, _, err := check(limiter.Value{}, now); err != nil && err != limiter.ErrCellExpire {
		x.W.Error(err.Error())
		return limiter.Result{}, false
	}
	before, err := readValue(x, key, !peek)
	if err != nil {
		x.W.Error(err.Error())
		return limiter.Result{}, false
	}
	r, after, changed, err := check(before, now)
	if err != nil && err != limiter.ErrCellExpire {
		x.W.Error(err.Error())
		return limiter.Result{}, false
	}
	if changed && !peek {
		writeTwin(x, key, before, after, st, r, now)
	}
	if err != nil {
		x.W.Error(err.Error())
		return limiter.Result{}, false
	}
	return r, true
}

// Algorithm labels of limitkv_ratelimit_decisions_total: a fixed set, so
// the metric's series stay bounded whatever clients send.
const (
	algSlidingLog    = "sliding_log"
	algGCRA          = "gcra"
	algTokenBucket   = "token_bucket"
	algFixedWindow   = "fixed_window"
	algSlidingWindow = "sliding_window"
	algConcurrency   = "concurrency"
	algBudget        = "budget"
)

// algorithmOf is the algorithm a twin style decides with.
func algorithmOf(st style) string {
	switch st {
	case styleGCRA:
		return algGCRA
	case styleToken:
		return algTokenBucket
	case styleFixed:
		return algFixedWindow
	case styleSliding:
		return algSlidingWindow
	case styleAcquire, styleRelease:
		return algConcurrency
	case styleBudget:
		return algBudget
	}
	return "other"
}

// decided counts one decision of the running command in the metrics, by
// the algorithm st decides with and the limit the reply names.
func decided(x *engine.Ctx, st style, r limiter.Result) {
	x.E.RlDecision(x.Cmd.Name, algorithmOf(st), r.Limit, r.Allowed)
}
