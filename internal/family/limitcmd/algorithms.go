package limitcmd

import (
	engine "github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/limiter"
)

// The four rate limiters as commands over internal/limiter, each the twin
// of a script in ratelimit/scripts (same reply, same value and TTL left):
//
//	CL.THROTTLE key max_burst count period_s [quantity]             redis-cell's reply
//	RL.GCRA     key now_ms|* max_burst count period_s [COST n] [INFO]
//	RL.TOKEN    key now_ms|* capacity refill period_ms [COST n] [INFO]
//	RL.FIXED    key window_ms limit [COST n] [INFO]
//	RL.SLIDING  key now_ms|* window_ms limit [COST n] [INFO]
//
// and RL.GCRA.PEEK, RL.TOKEN.PEEK, RL.FIXED.PEEK, RL.SLIDING.PEEK with the
// same arguments, which answer the same and record nothing.

// cmdCLThrottle is redis-cell's CL.THROTTLE: its argument checks and
// messages (no ERR prefix), its clock (nanoseconds), its five integers.
func cmdCLThrottle(x *engine.Ctx) {
	args := make([]string, len(x.Args)-1)
	for i, a := range x.Args[1:] {
		args[i] = string(a)
	}
	_, p, quantity, err := limiter.ParseThrottleArgs(args)
	if err != nil {
		x.W.Error(err.Error())
		return
	}
	nowNs := x.E.Clock.Now().UnixNano()
	var reply limiter.CellReply
	check := func(v limiter.Value, _ int64) (limiter.Result, limiter.Value, bool, error) {
		r, after, changed, err := limiter.Throttle(v, nowNs, p, quantity)
		reply = r
		return r.Result(), after, changed, err
	}
	r, ok := decide(x, x.Args[1], false, styleGCRA, check, x.Now)
	if !ok {
		return
	}
	decided(x, styleGCRA, r)
	ints := reply.Ints()
	x.W.Array(len(ints))
	for _, n := range ints {
		x.W.Int(n)
	}
}

// gcraCheck parses RL.GCRA's parameters as CL.THROTTLE does (same
// messages) and binds them, with the cost, to the clock: a given now_ms,
// or the server's nanoseconds for "*".
func gcraCheck(x *engine.Ctx, peek bool) (check limiter.Check, now int64, o options, ok bool) {
	a := x.Args
	if now, ok = parseNow(x, a[2]); !ok {
		return
	}
	nowNs := now * 1e6
	if len(a[2]) == 1 && a[2][0] == '*' {
		nowNs = x.E.Clock.Now().UnixNano()
	}
	// COST is read first so that ParseThrottleArgs sees it as quantity.
	cost := "1"
	for i := 6; i < len(a); i++ {
		if engine.AsciiEq(a[i], "cost") && i+1 < len(a) {
			cost = string(a[i+1])
			i++
		}
	}
	if o, ok = parseOptions(x, a[6:], true); !ok {
		return
	}
	_, p, quantity, err := limiter.ParseThrottleArgs([]string{string(a[1]), string(a[3]), string(a[4]), string(a[5]), cost})
	if err != nil {
		x.W.Error(err.Error())
		return nil, 0, o, false
	}
	check = func(v limiter.Value, _ int64) (limiter.Result, limiter.Value, bool, error) {
		if peek {
			r, err := limiter.PeekThrottle(v, nowNs, p, quantity)
			return r.Result(), v, false, err
		}
		r, after, changed, err := limiter.Throttle(v, nowNs, p, quantity)
		return r.Result(), after, changed, err
	}
	return check, now, o, true
}

func cmdRLGCRA(x *engine.Ctx)     { rlGCRA(x, false) }
func cmdRLGCRAPeek(x *engine.Ctx) { rlGCRA(x, true) }

func rlGCRA(x *engine.Ctx, peek bool) {
	check, now, o, ok := gcraCheck(x, peek)
	if !ok {
		return
	}
	if r, ok := decide(x, x.Args[1], peek, styleGCRA, check, now); ok {
		decided(x, styleGCRA, r)
		replyResult(x, r, o.info)
	}
}

func cmdRLToken(x *engine.Ctx)     { rlToken(x, false) }
func cmdRLTokenPeek(x *engine.Ctx) { rlToken(x, true) }

func rlToken(x *engine.Ctx, peek bool) {
	a := x.Args
	now, ok := parseNow(x, a[2])
	if !ok {
		return
	}
	p := limiter.TokenBucket{Capacity: intArg(a[3], 0), Refill: intArg(a[4], 0), PeriodMs: intArg(a[5], 0)}
	o, ok := parseOptions(x, a[6:], true)
	if !ok {
		return
	}
	check := p.Check(o.cost)
	if peek {
		check = func(v limiter.Value, now int64) (limiter.Result, limiter.Value, bool, error) {
			r, err := p.Peek(v, now, o.cost)
			return r, v, false, err
		}
	}
	if r, ok := decide(x, a[1], peek, styleToken, check, now); ok {
		decided(x, styleToken, r)
		replyResult(x, r, o.info)
	}
}

func cmdRLFixed(x *engine.Ctx)     { rlFixed(x, false) }
func cmdRLFixedPeek(x *engine.Ctx) { rlFixed(x, true) }

func rlFixed(x *engine.Ctx, peek bool) {
	a := x.Args
	p := limiter.FixedWindow{WindowMs: intArg(a[2], 0), Limit: intArg(a[3], 0)}
	o, ok := parseOptions(x, a[4:], true)
	if !ok {
		return
	}
	check := p.Check(o.cost)
	if peek {
		check = func(v limiter.Value, _ int64) (limiter.Result, limiter.Value, bool, error) {
			r, err := p.Peek(v, o.cost)
			return r, v, false, err
		}
	}
	if r, ok := decide(x, a[1], peek, styleFixed, check, x.Now); ok {
		decided(x, styleFixed, r)
		replyResult(x, r, o.info)
	}
}

func cmdRLSliding(x *engine.Ctx)     { rlSliding(x, false) }
func cmdRLSlidingPeek(x *engine.Ctx) { rlSliding(x, true) }

func rlSliding(x *engine.Ctx, peek bool) {
	a := x.Args
	now, ok := parseNow(x, a[2])
	if !ok {
		return
	}
	p := limiter.SlidingWindow{WindowMs: intArg(a[3], 0), Limit: intArg(a[4], 0)}
	o, ok := parseOptions(x, a[5:], true)
	if !ok {
		return
	}
	check := p.Check(o.cost)
	if peek {
		check = func(v limiter.Value, now int64) (limiter.Result, limiter.Value, bool, error) {
			r, err := p.Peek(v, now, o.cost)
			return r, v, false, err
		}
	}
	if r, ok := decide(x, a[1], peek, styleSliding, check, now); ok {
		decided(x, styleSliding, r)
		replyResult(x, r, o.info)
	}
}
