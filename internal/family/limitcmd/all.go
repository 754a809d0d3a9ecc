package limitcmd

import (
	"strconv"
	"strings"

	engine "github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/limiter"
)

// RL.ALL now_ms|* key spec [key spec ...]
//
// Several limits in one atomic step (per user, per IP, per tenant): all
// are charged or none is. Each spec is one argument, the algorithm and its
// parameters as the single commands take them:
//
//	"GCRA max_burst count period_s [COST n]"   "TOKEN capacity refill period_ms [COST n]"
//	"FIXED window_ms limit [COST n]"           "SLIDING window_ms limit [COST n]"
//	"LEASE limit lease_ms lease_id"            "BUDGET window_ms limit estimate"
//
// Keys and specs alternate so the keys sit at fixed positions (first 2,
// step 2), which COMMAND GETKEYS, ACL key patterns and cluster routing read
// without parsing the specs. The reply is {allowed, refused, results}:
// refused is the 0-based position of the first limit that refused (-1 when
// all passed), results each limit's six figures as its own command replies.

// errRLAllArgs is the arity error RL.ALL's pairs cannot express in Arity.
const errRLAllArgs = "ERR wrong number of arguments for 'rl.all' command"

// ErrRLAllSpec and ErrRLAllDup are RL.ALL's own messages.
const (
	ErrRLAllSpec = "ERR unknown limit spec: use GCRA, TOKEN, FIXED, SLIDING, LEASE or BUDGET with their parameters"
	ErrRLAllDup  = "ERR RL.ALL: a key may be given only once"
)

func cmdRLAll(x *engine.Ctx) {
	a := x.Args
	if len(a)%2 != 0 {
		x.W.Error(errRLAllArgs)
		return
	}
	now, ok := parseNow(x, a[1])
	if !ok {
		return
	}
	n := (len(a) - 2) / 2
	limits := make([]limiter.Limit, n)
	styles := make([]style, n)
	seen := make(map[string]bool, n)
	for i := range n {
		key := string(a[2+2*i])
		if seen[key] {
			x.W.Error(ErrRLAllDup)
			return
		}
		seen[key] = true
		check, st, msg := parseSpec(string(a[3+2*i]))
		if msg == "" {
			// Parameters are checked on an absent key, which reads nothing.
			if _, _, _, err := check(limiter.Value{}, now); err != nil && err != limiter.ErrCellExpire {
				msg = err.Error()
			}
		}
		if msg != "" {
			x.W.Error(limitErr(i, msg))
			return
		}
		limits[i].Check, styles[i] = check, st
	}
	for i := range limits {
		v, err := readValue(x, a[2+2*i], true)
		if err != nil {
			x.W.Error(limitErr(i, err.Error()))
			return
		}
		limits[i].Value = v
	}
	m, writes, err := limiter.DecideAll(limits, now)
	if err != nil {
		// DecideAll names the limit; the message keeps its error code.
		msg := err.Error()
		if i := strings.Index(msg, ": "); i >= 0 {
			idx, _ := strconv.Atoi(strings.TrimPrefix(msg[:i], "limit "))
			msg = limitErr(idx, msg[i+2:])
		}
		x.W.Error(msg)
		return
	}
	// Each limit counts its own verdict: in a refused step the limits that
	// would have passed count as allowed though nothing was charged, so
	// the refusals name the limits that refused.
	for i, r := range m.Results {
		decided(x, styles[i], r)
	}
	for i, w := range writes {
		if w.Changed {
			writeTwin(x, a[2+2*i], limits[i].Value, w.Value, styles[i], m.Results[i], now)
		}
	}
	allowed := int64(0)
	if m.Allowed {
		allowed = 1
	}
	x.W.Array(3)
	x.W.Int(allowed)
	x.W.Int(int64(m.Refused))
	x.W.Array(len(m.Results))
	for _, r := range m.Results {
		replyResult(x, r, false)
	}
}

// limitErr names the limit (0-based, as the reply's refused) in an error,
// keeping its code (ERR, WRONGTYPE) first.
func limitErr(i int, msg string) string {
	code, rest, found := strings.Cut(msg, " ")
	if !found || strings.ToUpper(code) != code || code == "" {
		code, rest = "ERR", msg
	}
	return code + " limit " + strconv.Itoa(i) + ": " + rest
}

// parseSpec reads one limit's spec, and the twin its writes follow; msg
// is the error to answer.
func parseSpec(spec string) (limiter.Check, style, string) {
	w := strings.Fields(spec)
	if len(w) == 0 {
		return nil, styleDiff, ErrRLAllSpec
	}
	arg := func(i int, bad int64) int64 { return intArg([]byte(w[i]), bad) }
	// cost reads an optional "COST n" after the first k words.
	cost := func(k int) (int64, bool) {
		switch {
		case len(w) == k:
			return 1, true
		case len(w) == k+2 && strings.EqualFold(w[k], "cost"):
			return arg(k+1, -1), true
		}
		return 0, false
	}
	switch strings.ToUpper(w[0]) {
	case "GCRA":
		q := "1"
		if len(w) == 6 && strings.EqualFold(w[4], "cost") {
			q = w[5]
		} else if len(w) != 4 {
			return nil, styleDiff, ErrRLAllSpec
		}
		_, p, quantity, err := limiter.ParseThrottleArgs([]string{"", w[1], w[2], w[3], q})
		if err != nil {
			return nil, styleDiff, err.Error()
		}
		return p.Check(quantity), styleGCRA, ""
	case "TOKEN":
		if c, ok := cost(4); ok && len(w) >= 4 {
			return limiter.TokenBucket{Capacity: arg(1, 0), Refill: arg(2, 0), PeriodMs: arg(3, 0)}.Check(c), styleToken, ""
		}
	case "FIXED":
		if c, ok := cost(3); ok && len(w) >= 3 {
			return limiter.FixedWindow{WindowMs: arg(1, 0), Limit: arg(2, 0)}.Check(c), styleFixed, ""
		}
	case "SLIDING":
		if c, ok := cost(3); ok && len(w) >= 3 {
			return limiter.SlidingWindow{WindowMs: arg(1, 0), Limit: arg(2, 0)}.Check(c), styleSliding, ""
		}
	case "LEASE":
		if len(w) == 4 {
			return limiter.Concurrency{Limit: arg(1, 0)}.Check(w[3], arg(2, 0)), styleAcquire, ""
		}
	case "BUDGET":
		if len(w) == 4 {
			return limiter.Budget{WindowMs: arg(1, 0), Limit: arg(2, 0)}.Check(arg(3, -1)), styleBudget, ""
		}
	}
	return nil, styleDiff, ErrRLAllSpec
}
