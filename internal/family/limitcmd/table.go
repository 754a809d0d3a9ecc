// Package limitcmd is limitkv's rate-limit family: redis-cell's
// CL.THROTTLE, the RL.* commands over internal/limiter's algorithms, and
// the native twins of the limiter scripts internal/lua recognises. Every
// command keeps its state in one ordinary Redis value (see limiter's
// package doc for each algorithm's), which DEL resets, and propagates the
// plain commands that make that value, never itself: those its Lua twin
// (ratelimit/scripts) calls for the same decision, so the write stream is
// the one Redis replicates for the twin (twin.go).
package limitcmd

import (
	engine "github.com/limitkv/limitkv/internal/engine"

	"github.com/limitkv/limitkv/internal/lua"
)

const (
	group = "ratelimit"
	since = "limitkv 0.2.0"
	wr    = engine.FlagWrite | engine.FlagDenyOOM | engine.FlagFast
	ro    = engine.FlagReadOnly | engine.FlagFast
)

// Argument documentation pieces (COMMAND DOCS; redis-cli's hints).
func arg(name, typ string) engine.DocArg { return engine.DocArg{Name: name, Type: typ} }

var (
	aKey  = arg("key", "key")
	aNow  = engine.DocArg{Name: "now", Type: "oneof", Args: []engine.DocArg{arg("now_ms", "integer"), {Name: "server-time", Type: "pure-token", Token: "*"}}}
	aCost = engine.DocArg{Name: "cost", Type: "integer", Token: "COST", Flags: []string{"optional"}}
	aInfo = engine.DocArg{Name: "info", Type: "pure-token", Token: "INFO", Flags: []string{"optional"}}
)

func docs(args ...engine.DocArg) []engine.DocArg { return args }

const resultSummary = " Replies {allowed, count, limit, remaining, retry_after_ms, reset_after_ms}, named with INFO."

// Commands is the family's command table.
var Commands = []*engine.Command{
	{
		Name: "rl.check", Arity: -6, Flags: wr, FirstKey: 1, LastKey: 1, Step: 1,
		ScriptTwins: map[string]engine.ScriptTwin{lua.TwinSlidingLog: slidingWindowNative},
		Group:       group, Since: "limitkv 0.1.0", Complexity: "O(log(N)+M) with N the entries in the window and M the entries that left it",
		Summary: "Sliding-window rate limit check: drops entries older than the window, refuses at the limit, else records the request. Replies the count before this request, or with INFO the allowed flag, count, limit, remaining, retry_after_ms and reset_after_ms.",
		Args: docs(aKey, aNow, arg("window_ms", "integer"), arg("limit", "integer"),
			engine.DocArg{Name: "member", Type: "oneof", Args: []engine.DocArg{arg("member", "string"), {Name: "unique", Type: "pure-token", Token: "*"}}}, aCost, aInfo),
		Handler: cmdRLCheck,
	},
	{
		Name: "rl.peek", Arity: -5, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1,
		Group: group, Since: "limitkv 0.1.0", Complexity: "O(log(N)+M)",
		Summary: "Reports what RL.CHECK would answer now without recording or removing anything.",
		Args:    docs(aKey, aNow, arg("window_ms", "integer"), arg("limit", "integer"), aCost, aInfo),
		Handler: cmdRLPeek,
	},
	{
		// Arity -1 as a module command's: redis-cell answers its own usage
		// error for a wrong count.
		Name: "cl.throttle", Arity: -1, Flags: wr, FirstKey: 1, LastKey: 1, Step: 1,
		Group: group, Since: since, Complexity: "O(1)",
		Summary: "redis-cell's GCRA rate limit. Replies {limited, limit, remaining, retry_after_s, reset_after_s}; the key holds the theoretical arrival time in Unix nanoseconds.",
		Args: docs(aKey, arg("max_burst", "integer"), arg("count", "integer"), arg("period", "integer"),
			engine.DocArg{Name: "quantity", Type: "integer", Flags: []string{"optional"}}),
		Handler: cmdCLThrottle,
	},
	{
		Name: "rl.gcra", Arity: -6, Flags: wr, FirstKey: 1, LastKey: 1, Step: 1,
		ScriptTwins: map[string]engine.ScriptTwin{
			lua.TwinRedisRateAllowN: redisRateTwin(false), lua.TwinRedisRateAllowMost: redisRateTwin(true),
		},
		Group: group, Since: since, Complexity: "O(1)",
		Summary: "GCRA (redis-cell's arithmetic and state): count requests per period_s seconds with bursts of max_burst+1." + resultSummary,
		Args:    gcraArgs, Handler: cmdRLGCRA,
	},
	{
		Name: "rl.gcra.peek", Arity: -6, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1,
		Group: group, Since: since, Complexity: "O(1)",
		Summary: "Reports what RL.GCRA would answer now without recording anything.",
		Args:    gcraArgs, Handler: cmdRLGCRAPeek,
	},
	{
		Name: "rl.token", Arity: -6, Flags: wr, FirstKey: 1, LastKey: 1, Step: 1,
		Group: group, Since: since, Complexity: "O(1)",
		Summary: "Token bucket: capacity tokens, refill more every period_ms, continuously; a request takes COST tokens." + resultSummary,
		Args:    tokenArgs, Handler: cmdRLToken,
	},
	{
		Name: "rl.token.peek", Arity: -6, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1,
		Group: group, Since: since, Complexity: "O(1)",
		Summary: "Reports what RL.TOKEN would answer now without taking anything.",
		Args:    tokenArgs, Handler: cmdRLTokenPeek,
	},
	{
		Name: "rl.fixed", Arity: -4, Flags: wr, FirstKey: 1, LastKey: 1, Step: 1,
		ScriptTwins: map[string]engine.ScriptTwin{lua.TwinRLFConsume: rlfTwin},
		Group:       group, Since: since, Complexity: "O(1)",
		Summary: "Fixed window: limit units per window_ms starting at the window's first request (a counter with a TTL)." + resultSummary,
		Args:    fixedArgs, Handler: cmdRLFixed,
	},
	{
		Name: "rl.fixed.peek", Arity: -4, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1,
		Group: group, Since: since, Complexity: "O(1)",
		Summary: "Reports what RL.FIXED would answer without counting anything.",
		Args:    fixedArgs, Handler: cmdRLFixedPeek,
	},
	{
		Name: "rl.sliding", Arity: -5, Flags: wr, FirstKey: 1, LastKey: 1, Step: 1,
		Group: group, Since: since, Complexity: "O(1)",
		Summary: "Sliding-window counter: the current window's count plus the previous window's, weighted by its share still in the last window_ms." + resultSummary,
		Args:    slidingArgs, Handler: cmdRLSliding,
	},
	{
		Name: "rl.sliding.peek", Arity: -5, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1,
		Group: group, Since: since, Complexity: "O(1)",
		Summary: "Reports what RL.SLIDING would answer now without counting anything.",
		Args:    slidingArgs, Handler: cmdRLSlidingPeek,
	},
	{
		Name: "rl.acquire", Arity: -6, Flags: wr, FirstKey: 1, LastKey: 1, Step: 1,
		Group: group, Since: since, Complexity: "O(log(N)) with N the leases held",
		Summary: "Concurrency limit: takes (or renews) lease lease_id until now+lease_ms if fewer than limit leases are held." + resultSummary,
		Args:    docs(aKey, aNow, arg("limit", "integer"), arg("lease_ms", "integer"), arg("lease_id", "string"), aInfo),
		Handler: cmdRLAcquire,
	},
	{
		Name: "rl.release", Arity: -5, Flags: engine.FlagWrite | engine.FlagFast, FirstKey: 1, LastKey: 1, Step: 1,
		Group: group, Since: since, Complexity: "O(log(N)) with N the leases held",
		Summary: "Ends lease lease_id (allowed is 1 if it was held)." + resultSummary,
		Args:    docs(aKey, aNow, arg("limit", "integer"), arg("lease_id", "string"), aInfo),
		Handler: cmdRLRelease,
	},
	{
		Name: "rl.holders", Arity: 3, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1,
		Group: group, Since: since, Complexity: "O(N) with N the leases held",
		Summary: "Lists the leases held at now: lease id and expiry (Unix ms) pairs, soonest expiry first.",
		Args:    docs(aKey, aNow),
		Handler: cmdRLHolders,
	},
	{
		Name: "rl.reserve", Arity: -6, Flags: wr, FirstKey: 1, LastKey: 1, Step: 1,
		Group: group, Since: since, Complexity: "O(1)",
		Summary: "Budget: reserves estimate units of limit per window_ms if they fit; settle the actual cost later with RL.SETTLE." + resultSummary + " Then window_start, for RL.SETTLE.",
		Args:    reserveArgs, Handler: cmdRLReserve,
	},
	{
		Name: "rl.reserve.peek", Arity: -6, Flags: ro, FirstKey: 1, LastKey: 1, Step: 1,
		Group: group, Since: since, Complexity: "O(1)",
		Summary: "Reports what RL.RESERVE would answer now without reserving anything.",
		Args:    reserveArgs, Handler: cmdRLReservePeek,
	},
	{
		// A settlement can create the key (an actual cost above a lost
		// estimate), so it is deny-oom as the charging commands are.
		Name: "rl.settle", Arity: -8, Flags: wr, FirstKey: 1, LastKey: 1, Step: 1,
		Group: group, Since: since, Complexity: "O(1)",
		Summary: "Replaces a reservation's estimate with the actual cost, if its window (window_start) is still the current one (allowed 1)." + resultSummary + " Then window_start.",
		Args: docs(aKey, aNow, arg("window_ms", "integer"), arg("limit", "integer"), arg("estimate", "integer"),
			arg("actual", "integer"), arg("window_start", "integer"), aInfo),
		Handler: cmdRLSettle,
	},
	{
		Name: "rl.all", Arity: -4, Flags: wr, FirstKey: 2, LastKey: -2, Step: 2,
		Group: group, Since: since, Complexity: "O(N) with N the limits",
		Summary: "Several limits in one atomic step: all charged or none. Each spec is one argument: GCRA max_burst count period_s, TOKEN capacity refill period_ms, FIXED window_ms limit, SLIDING window_ms limit (each [COST n]), LEASE limit lease_ms lease_id or BUDGET window_ms limit estimate. Replies {allowed, refused (first refusing limit, 0-based, or -1), the limits' results}.",
		Args: docs(aNow, engine.DocArg{Name: "limit", Type: "block", Flags: []string{"multiple"}, Args: []engine.DocArg{
			aKey, arg("spec", "string"),
		}}),
		Handler: cmdRLAll,
	},
}

var (
	gcraArgs    = docs(aKey, aNow, arg("max_burst", "integer"), arg("count", "integer"), arg("period_s", "integer"), aCost, aInfo)
	tokenArgs   = docs(aKey, aNow, arg("capacity", "integer"), arg("refill", "integer"), arg("period_ms", "integer"), aCost, aInfo)
	fixedArgs   = docs(aKey, arg("window_ms", "integer"), arg("limit", "integer"), aCost, aInfo)
	slidingArgs = docs(aKey, aNow, arg("window_ms", "integer"), arg("limit", "integer"), aCost, aInfo)
	reserveArgs = docs(aKey, aNow, arg("window_ms", "integer"), arg("limit", "integer"), arg("estimate", "integer"), aInfo)
)
