package limitcmd

import (
	engine "github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/limiter"
	"github.com/limitkv/limitkv/internal/num"
)

// Concurrency leases and budgets, twins of ratelimit/scripts'
// concurrency.lua and budget.lua:
//
//	RL.ACQUIRE key now_ms|* limit lease_ms lease_id [INFO]
//	RL.RELEASE key now_ms|* limit lease_id [INFO]
//	RL.HOLDERS key now_ms|*
//	RL.RESERVE key now_ms|* window_ms limit estimate [INFO]
//	RL.RESERVE.PEEK (the same arguments)
//	RL.SETTLE  key now_ms|* window_ms limit estimate actual window_start [INFO]

func cmdRLAcquire(x *engine.Ctx) {
	a := x.Args
	now, ok := parseNow(x, a[2])
	if !ok {
		return
	}
	p := limiter.Concurrency{Limit: intArg(a[3], 0)}
	lease, id := intArg(a[4], 0), string(a[5])
	o, ok := parseOptions(x, a[6:], false)
	if !ok {
		return
	}
	if r, ok := decide(x, a[1], false, styleAcquire, p.Check(id, lease), now); ok {
		decided(x, styleAcquire, r)
		replyResult(x, r, o.info)
	}
}

func cmdRLRelease(x *engine.Ctx) {
	a := x.Args
	now, ok := parseNow(x, a[2])
	if !ok {
		return
	}
	p := limiter.Concurrency{Limit: intArg(a[3], 0)}
	id := string(a[4])
	o, ok := parseOptions(x, a[5:], false)
	if !ok {
		return
	}
	if r, ok := decide(x, a[1], false, styleRelease, func(v limiter.Value, now int64) (limiter.Result, limiter.Value, bool, error) {
		return p.Release(v, now, id)
	}, now); ok {
		decided(x, styleRelease, r)
		replyResult(x, r, o.info)
	}
}

// cmdRLHolders lists the leases held at now, soonest expiry first, as
// lease id and expiry (Unix ms) pairs: a map in RESP3.
func cmdRLHolders(x *engine.Ctx) {
	now, ok := parseNow(x, x.Args[2])
	if !ok {
		return
	}
	v, err := readValue(x, x.Args[1], false)
	if err == nil {
		var hs []limiter.ZMember
		if hs, err = limiter.Holders(v, now); err == nil {
			x.W.Map(len(hs))
			for _, h := range hs {
				x.W.BulkString(h.Member)
				x.W.Int(int64(h.Score))
			}
			return
		}
	}
	x.W.Error(err.Error())
}

// budgetArgs reads the budget's window, limit and estimate.
func budgetArgs(a [][]byte) (limiter.Budget, int64) {
	return limiter.Budget{WindowMs: intArg(a[3], 0), Limit: intArg(a[4], 0)}, intArg(a[5], -1)
}

func cmdRLReserve(x *engine.Ctx)     { rlReserve(x, false) }
func cmdRLReservePeek(x *engine.Ctx) { rlReserve(x, true) }

// rlReserve answers the twin's seven figures: the six of every limiter and
// window_start, which RL.SETTLE needs back.
func rlReserve(x *engine.Ctx, peek bool) {
	a := x.Args
	now, ok := parseNow(x, a[2])
	if !ok {
		return
	}
	p, est := budgetArgs(a)
	o, ok := parseOptions(x, a[6:], false)
	if !ok {
		return
	}
	var start int64
	check := func(v limiter.Value, now int64) (limiter.Result, limiter.Value, bool, error) {
		if peek {
			r, s, err := p.PeekReserve(v, now, est)
			start = s
			return r, v, false, err
		}
		r, s, after, changed, err := p.Reserve(v, now, est)
		start = s
		return r, after, changed, err
	}
	if r, ok := decide(x, a[1], peek, styleBudget, check, now); ok {
		decided(x, styleBudget, r)
		replyResult(x, r, o.info, field{"window_start", start})
	}
}

// ErrRLWindowStart is the budget twin's message for a window_start that is
// not an integer.
const ErrRLWindowStart = "ERR window start must be an integer"

func cmdRLSettle(x *engine.Ctx) {
	a := x.Args
	now, ok := parseNow(x, a[2])
	if !ok {
		return
	}
	p, est := budgetArgs(a)
	actual := intArg(a[6], -1)
	ws, wsOK := num.ParseInt(a[7])
	o, ok := parseOptions(x, a[8:], false)
	if !ok {
		return
	}
	if !wsOK || ws <= -exact || ws >= exact {
		// The twin checks the window and limit first, then window_start.
		if _, _, err := p.PeekReserve(limiter.Value{}, now, 0); err != nil {
			x.W.Error(err.Error())
		} else {
			x.W.Error(ErrRLWindowStart)
		}
		return
	}
	var start int64
	check := func(v limiter.Value, now int64) (limiter.Result, limiter.Value, bool, error) {
		r, after, changed, err := p.Settle(v, now, ws, est, actual)
		start = budgetStart(p, v, now)
		return r, after, changed, err
	}
	if r, ok := decide(x, a[1], false, styleBudget, check, now); ok {
		decided(x, styleBudget, r)
		replyResult(x, r, o.info, field{"window_start", start})
	}
}

// budgetStart is the window the budget is in at now: the stored one unless
// a later one has begun (the twin's reply names it).
func budgetStart(p limiter.Budget, v limiter.Value, now int64) int64 {
	_, s, err := p.PeekReserve(v, now, 0)
	if err != nil {
		return 0
	}
	return s
}
