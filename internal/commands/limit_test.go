package commands

import (
	"strings"
	"testing"

	"github.com/limitkv/limitkv/internal/family/limitcmd"
	"github.com/limitkv/limitkv/internal/limiter"
)

// ints is an array of integers, the limiters' reply.
func ints(ns ...int64) string {
	items := make([]string, len(ns))
	for i, n := range ns {
		items[i] = integer(n)
	}
	return array(items...)
}

func atoiT(t *testing.T, s string) int {
	n := 0
	sign := 1
	for i, c := range s {
		if i == 0 && (c == '+' || c == '-') {
			if c == '-' {
				sign = -1
			}
			continue
		}
		n = n*10 + int(c-'0')
	}
	return sign * n
}

func TestCLThrottle(t *testing.T) {
	// 10 per 60 s: one every 6 s, bursts of 3; the clock is 1.7e9 s.
	tat := func(sec int64) string { return itoa((1_700_000_000 + sec) * 1e9) }
	runStreamSteps(t, []step{
		ss([]string{"CL.THROTTLE", "u", "2", "10", "60"}, ints(0, 3, 2, -1, 6), "0: SET u "+tat(6)+" PXAT {T+6000}"),
		ss([]string{"GET", "u"}, bulk(tat(6)), ""),
		ss([]string{"PTTL", "u"}, integer(6000), ""),
		ss([]string{"CL.THROTTLE", "u", "2", "10", "60", "2"}, ints(0, 3, 0, -1, 18), "0: SET u "+tat(18)+" PXAT {T+18000}"),
		// Refused: nothing written; retry when a token's worth (6 s) has passed.
		ss([]string{"CL.THROTTLE", "u", "2", "10", "60"}, ints(1, 3, 0, 6, 18), ""),
		// More than the burst can ever pass: retry -1.
		ss([]string{"CL.THROTTLE", "v", "2", "10", "60", "4"}, ints(1, 3, 3, -1, 0), ""),
		// Quantity 0 is redis-cell's peek, which still rewrites the TAT.
		ss([]string{"CL.THROTTLE", "w", "2", "10", "60", "0"}, ints(0, 3, 3, -1, 0), ""),
		ss([]string{"EXISTS", "w"}, integer(0), ""),
		ss([]string{"CL.THROTTLE", "+x", "+2", "10", "60"}, ints(0, 3, 2, -1, 6), "0: SET +x "+tat(6)+" PXAT {T+6000}"),
		ss([]string{"DEL", "u"}, integer(1), "0: DEL u"),
		ss([]string{"CL.THROTTLE", "u", "2", "10", "60"}, ints(0, 3, 2, -1, 6), "0: SET u "+tat(6)+" PXAT {T+6000}"),
	})
}

func TestCLThrottleErrors(t *testing.T) {
	usage := "Cell error: Usage: cl.throttle <key> <max_burst> <count per period> <period> [<quantity>]"
	runStreamSteps(t, []step{
		ss([]string{"CL.THROTTLE"}, errReply(usage), ""),
		ss([]string{"CL.THROTTLE", "k", "1", "2"}, errReply(usage), ""),
		ss([]string{"CL.THROTTLE", "k", "1", "2", "3", "4", "5"}, errReply(usage), ""),
		ss([]string{"CL.THROTTLE", "k", "1", "2", "x"}, errReply("Cell error: Couldn't parse as integer: x"), ""),
		ss([]string{"CL.THROTTLE", "k", "1", "2", "1.5"}, errReply("Cell error: Couldn't parse as integer: 1.5"), ""),
		ss([]string{"CL.THROTTLE", "k", "1", "0", "60"}, errReply("Cell error: Zero rates are not supported"), ""),
		ss([]string{"SET", "s", "abc"}, okReply, "0: SET s abc"),
		ss([]string{"CL.THROTTLE", "s", "1", "2", "3"}, errReply("Cell error: invalid digit found in string"), ""),
		ss([]string{"HSET", "h", "f", "v"}, integer(1), "0: HSET h f v"),
		ss([]string{"CL.THROTTLE", "h", "1", "2", "3"}, errReply("WRONGTYPE Operation against a key holding the wrong kind of value"), ""),
		ss([]string{"EXISTS", "k"}, integer(0), ""),
	})
}

func TestRLLimiters(t *testing.T) {
	info := func(allowed, count, limit, remaining, retry, reset int64) string {
		return array(bulk("allowed"), integer(allowed), bulk("count"), integer(count), bulk("limit"), integer(limit),
			bulk("remaining"), integer(remaining), bulk("retry_after_ms"), integer(retry), bulk("reset_after_ms"), integer(reset))
	}
	runStreamSteps(t, []step{
		// GCRA: redis-cell's state, in the common reply.
		ss([]string{"RL.GCRA", "g", "{T}", "2", "10", "60"}, ints(1, 1, 3, 2, 0, 6000), "0: SET g {T+6000}000000 PXAT {T+6000}"),
		ss([]string{"RL.GCRA.PEEK", "g", "{T}", "2", "10", "60", "COST", "3", "INFO"}, info(0, 1, 3, 2, 6000, 6000), ""),
		ss([]string{"RL.GCRA", "g", "{T}", "2", "10", "60", "cost", "2", "info"}, info(1, 3, 3, 0, 0, 18000), "0: SET g {T+18000}000000 PXAT {T+18000}"),
		ss([]string{"RL.GCRA", "g", "{T+1000}", "2", "10", "60"}, ints(0, 3, 3, 0, 5000, 17000), ""),
		ss([]string{"CL.THROTTLE", "g", "2", "10", "60"}, ints(1, 3, 0, 6, 18), ""), // one key, both commands

		// Token bucket: a hash {tokens, ts}, TTL until full.
		ss([]string{"RL.TOKEN", "t", "{T}", "5", "1", "1000", "COST", "2"}, ints(1, 2, 5, 3, 0, 2000),
			"0: MULTI|0: HSET t tokens 3 ts {T}|0: PEXPIREAT t {T+2000}|0: EXEC"),
		ss([]string{"RL.TOKEN", "t", "{T+500}", "5", "1", "1000", "COST", "2"}, ints(1, 4, 5, 1, 0, 3500),
			"0: MULTI|0: DEL t|0: HSET t tokens 1.5 ts {T+500}|0: PEXPIREAT t {T+3500}|0: EXEC"),
		ss([]string{"RL.TOKEN.PEEK", "t", "{T+500}", "5", "1", "1000", "COST", "2"}, ints(0, 4, 5, 1, 500, 3500), ""),
		ss([]string{"RL.TOKEN", "t", "{T+500}", "5", "1", "1000", "COST", "6"}, ints(0, 4, 5, 1, -1, 3500), ""),
		ss([]string{"RL.TOKEN", "t", "{T+500}", "5", "1", "1000", "COST", "0"}, ints(1, 4, 5, 1, 0, 3500), ""),
		ss([]string{"HGETALL", "t"}, array(bulk("tokens"), bulk("1.5"), bulk("ts"), bulk(itoaT(500))), ""),

		// Fixed window: a counter whose TTL is the window.
		ss([]string{"RL.FIXED", "f", "1000", "3", "COST", "2"}, ints(1, 2, 3, 1, 0, 1000), "0: MULTI|0: INCRBY f 2|0: PEXPIREAT f {T+1000}|0: EXEC"),
		ss([]string{"RL.FIXED.PEEK", "f", "1000", "3", "INFO"}, info(1, 3, 3, 0, 0, 1000), ""),
		ss([]string{"RL.FIXED", "f", "1000", "3", "COST", "2"}, ints(0, 2, 3, 1, 1000, 1000), ""),
		ss([]string{"RL.FIXED", "f", "1000", "3"}, ints(1, 3, 3, 0, 0, 1000), "0: INCRBY f 1"),
		ss([]string{"PERSIST", "f"}, integer(1), "0: PERSIST f"),
		ss([]string{"RL.FIXED", "f", "1000", "3"}, ints(0, 3, 3, 0, -1, -1), ""),

		// Sliding-window counter: a hash {start, cur, prev}. TTLs count
		// from the now given, on the server's clock (here T), as the Lua
		// twin's PEXPIRE does.
		ss([]string{"RL.SLIDING", "s", "{T}", "1000", "2"}, ints(1, 1, 2, 1, 0, 2000),
			"0: MULTI|0: HSET s start {T} cur 1 prev 0|0: PEXPIREAT s {T+2000}|0: EXEC"),
		ss([]string{"RL.SLIDING", "s", "{T+100}", "1000", "2"}, ints(1, 2, 2, 0, 0, 1900),
			"0: MULTI|0: HSET s start {T} cur 2 prev 0|0: PEXPIREAT s {T+1900}|0: EXEC"),
		ss([]string{"RL.SLIDING", "s", "{T+1500}", "1000", "2"}, ints(1, 2, 2, 0, 0, 1500),
			"0: MULTI|0: HSET s start {T+1000} cur 1 prev 2|0: PEXPIREAT s {T+1500}|0: EXEC"),
		// The previous window's 2 weigh 1.5 at T+1750: 2.5 rounds up to 3 > 2.
		ss([]string{"RL.SLIDING.PEEK", "s", "{T+1750}", "1000", "2"}, ints(0, 2, 2, 0, 250, 1250), ""),
		ss([]string{"DEL", "s"}, integer(1), "0: DEL s"),
	})
}

func TestRLLeasesAndBudgets(t *testing.T) {
	runStreamSteps(t, []step{
		// Two leases at most; a sorted set of id -> expiry.
		ss([]string{"RL.ACQUIRE", "l", "{T}", "2", "1000", "a"}, ints(1, 1, 2, 1, 0, 1000),
			"0: MULTI|0: ZADD l {T+1000} a|0: PEXPIREAT l {T+1000}|0: EXEC"),
		ss([]string{"RL.ACQUIRE", "l", "{T}", "2", "2000", "b"}, ints(1, 2, 2, 0, 0, 2000),
			"0: MULTI|0: ZADD l {T+2000} b|0: PEXPIREAT l {T+2000}|0: EXEC"),
		ss([]string{"RL.ACQUIRE", "l", "{T}", "2", "1000", "c"}, ints(0, 2, 2, 0, 1000, 2000), ""),
		// Renewing a lease held always passes.
		ss([]string{"RL.ACQUIRE", "l", "{T}", "2", "3000", "a"}, ints(1, 2, 2, 0, 0, 3000),
			"0: MULTI|0: ZADD l {T+3000} a|0: PEXPIREAT l {T+3000}|0: EXEC"),
		ss([]string{"RL.HOLDERS", "l", "{T}"}, array(bulk("b"), integer(itoaN(2000)), bulk("a"), integer(itoaN(3000))), ""),
		ss([]string{"RL.RELEASE", "l", "{T}", "2", "b"}, ints(1, 1, 2, 1, 0, 3000), "0: MULTI|0: ZREM l b|0: PEXPIREAT l {T+3000}|0: EXEC"),
		ss([]string{"RL.RELEASE", "l", "{T}", "2", "b"}, ints(0, 1, 2, 1, 0, 3000), ""),
		ss([]string{"RL.RELEASE", "l", "{T}", "2", "a", "INFO"}, array(bulk("allowed"), integer(1), bulk("count"), integer(0),
			bulk("limit"), integer(2), bulk("remaining"), integer(2), bulk("retry_after_ms"), integer(0), bulk("reset_after_ms"), integer(0)), "0: ZREM l a"),
		ss([]string{"EXISTS", "l"}, integer(0), ""),
		// An expired lease frees its slot, and goes at the next acquire.
		ss([]string{"RL.ACQUIRE", "m", "{T}", "1", "100", "a"}, ints(1, 1, 1, 0, 0, 100),
			"0: MULTI|0: ZADD m {T+100} a|0: PEXPIREAT m {T+100}|0: EXEC"),
		ss([]string{"RL.ACQUIRE", "m", "{T+100}", "1", "100", "b"}, ints(1, 1, 1, 0, 0, 100),
			"0: MULTI|0: ZREMRANGEBYSCORE m -inf {T+100}|0: ZADD m {T+200} b|0: PEXPIREAT m {T+100}|0: EXEC"),
		ss([]string{"RL.HOLDERS", "m", "{T+150}"}, array(bulk("b"), integer(itoaN(200))), ""),

		// A budget of 100 per minute: reserve 30, settle at 10.
		ss([]string{"RL.RESERVE", "b", "{T}", "60000", "100", "30"}, ints(1, 30, 100, 70, 0, 40000, itoaN(-20000)),
			"0: MULTI|0: HSET b start {T-20000} used 30|0: PEXPIREAT b {T+40000}|0: EXEC"),
		ss([]string{"RL.RESERVE.PEEK", "b", "{T}", "60000", "100", "80"}, ints(0, 30, 100, 70, 40000, 40000, itoaN(-20000)), ""),
		ss([]string{"RL.SETTLE", "b", "{T}", "60000", "100", "30", "10", "{T-20000}"}, ints(1, 10, 100, 90, 0, 40000, itoaN(-20000)),
			"0: MULTI|0: HSET b start {T-20000} used 10|0: PEXPIREAT b {T+40000}|0: EXEC"),
		// A settlement for a window that has ended changes nothing.
		ss([]string{"RL.SETTLE", "b", "{T+40000}", "60000", "100", "10", "50", "{T-20000}"}, ints(0, 0, 100, 100, 0, 0, itoaN(40000)), ""),
		ss([]string{"RL.RESERVE", "b", "{T}", "60000", "100", "101", "INFO"}, array(bulk("allowed"), integer(0), bulk("count"), integer(10),
			bulk("limit"), integer(100), bulk("remaining"), integer(90), bulk("retry_after_ms"), integer(-1),
			bulk("reset_after_ms"), integer(40000), bulk("window_start"), integer(itoaN(-20000))), ""),
	})
}

// RL.ALL charges every limit or none, and says which refused.
func TestRLAll(t *testing.T) {
	runStreamSteps(t, []step{
		ss([]string{"RL.ALL", "{T}", "u", "TOKEN 5 1 1000", "ip", "FIXED 1000 1 COST 2"},
			array(integer(0), integer(1), array(ints(1, 1, 5, 4, 0, 1000), ints(0, 0, 1, 1, -1, 0))), ""),
		ss([]string{"EXISTS", "u", "ip"}, integer(0), ""),
		ss([]string{"RL.ALL", "{T}", "u", "TOKEN 5 1 1000", "ip", "fixed 1000 2", "l", "LEASE 1 500 job1"},
			array(integer(1), integer(-1), array(ints(1, 1, 5, 4, 0, 1000), ints(1, 1, 2, 1, 0, 1000), ints(1, 1, 1, 0, 0, 500))),
			"0: MULTI|0: HSET u tokens 4 ts {T}|0: PEXPIREAT u {T+1000}|0: INCRBY ip 1|0: PEXPIREAT ip {T+1000}|"+
				"0: ZADD l {T+500} job1|0: PEXPIREAT l {T+500}|0: EXEC"),
		// The lease is taken: nothing else is charged.
		ss([]string{"RL.ALL", "{T}", "u", "TOKEN 5 1 1000", "l", "LEASE 1 500 job2"},
			array(integer(0), integer(1), array(ints(1, 2, 5, 3, 0, 2000), ints(0, 1, 1, 0, 500, 500))), ""),
		ss([]string{"RL.ALL", "{T}", "g", "GCRA 0 1 60", "b", "BUDGET 1000 10 3", "s", "SLIDING 1000 5 COST 5"},
			array(integer(1), integer(-1), array(ints(1, 1, 1, 0, 0, 60000), ints(1, 3, 10, 7, 0, 1000), ints(1, 5, 5, 0, 0, 2000))),
			"0: MULTI|0: SET g {T+60000}000000 PXAT {T+60000}|0: HSET b start {T} used 3|0: PEXPIREAT b {T+1000}|"+
				"0: HSET s start {T} cur 5 prev 0|0: PEXPIREAT s {T+2000}|0: EXEC"),
		// Errors name the limit and keep their code; nothing is charged.
		ss([]string{"RL.ALL", "{T}", "u", "TOKEN 5 1 1000", "x", "FIXED 0 1"},
			errReply("ERR limit 1: window must be a positive integer number of milliseconds"), ""),
		ss([]string{"RL.ALL", "{T}", "u", "TOKEN 5 1 1000", "x", "LEAKY 1 2"}, errReply("ERR limit 1: "+strings.TrimPrefix(limitcmd.ErrRLAllSpec, "ERR ")), ""),
		ss([]string{"RL.ALL", "{T}", "u", "TOKEN 5 1 1000", "x", "FIXED 10 1 COST"}, errReply("ERR limit 1: "+strings.TrimPrefix(limitcmd.ErrRLAllSpec, "ERR ")), ""),
		ss([]string{"RL.ALL", "{T}", "u", "TOKEN 5 1 1000", "u", "FIXED 10 1"}, errReply(limitcmd.ErrRLAllDup), ""),
		ss([]string{"RL.ALL", "{T}", "u", "TOKEN 5 1 1000", "ip"}, errReply("ERR wrong number of arguments for 'rl.all' command"), ""),
		ss([]string{"RL.ALL", "{T}", "g", "TOKEN 5 1 1000"},
			errReply("WRONGTYPE limit 0: Operation against a key holding the wrong kind of value"), ""),
		ss([]string{"HGET", "u", "tokens"}, bulk("4"), ""),
		ss([]string{"COMMAND", "GETKEYS", "RL.ALL", "*", "a", "FIXED 1 1", "b", "FIXED 1 1"}, array(bulk("a"), bulk("b")), ""),
	})
}

func TestRLErrors(t *testing.T) {
	wrong := "WRONGTYPE Operation against a key holding the wrong kind of value"
	runStreamSteps(t, []step{
		ss([]string{"SET", "str", "x"}, okReply, "0: SET str x"),
		ss([]string{"LPUSH", "list", "x"}, integer(1), "0: LPUSH list x"),
		ss([]string{"RL.TOKEN", "k", "x", "5", "1", "1000"}, errReply(limitcmd.ErrRLNow), ""),
		ss([]string{"RL.TOKEN", "k", "9007199254740992", "5", "1", "1000"}, errReply(limitcmd.ErrRLNow), ""),
		ss([]string{"RL.TOKEN", "k", "*", "5", "1", "0"}, errReply(limiter.ErrWindow.Error()), ""),
		ss([]string{"RL.TOKEN", "k", "*", "x", "1", "x"}, errReply(limiter.ErrWindow.Error()), ""),
		ss([]string{"RL.TOKEN", "k", "*", "0", "1", "10"}, errReply(limiter.ErrLimit.Error()), ""),
		ss([]string{"RL.TOKEN", "k", "*", "5", "1", "10", "COST", "-1"}, errReply(limiter.ErrCost.Error()), ""),
		ss([]string{"RL.TOKEN", "k", "*", "5", "1", "10", "COST"}, errReply("ERR syntax error"), ""),
		ss([]string{"RL.TOKEN", "k", "*", "5", "1", "10", "BOGUS"}, errReply("ERR syntax error"), ""),
		ss([]string{"RL.TOKEN", "str", "*", "5", "1", "10"}, errReply(wrong), ""),
		ss([]string{"RL.TOKEN", "list", "*", "5", "1", "10"}, errReply(wrong), ""),
		ss([]string{"RL.TOKEN", "k", "*", "5", "1"}, errReply("ERR wrong number of arguments for 'rl.token' command"), ""),
		ss([]string{"RL.FIXED", "k", "1000", "0"}, errReply(limiter.ErrLimit.Error()), ""),
		ss([]string{"RL.FIXED", "k", "1.5", "1"}, errReply(limiter.ErrWindow.Error()), ""),
		ss([]string{"RL.FIXED", "list", "1000", "1"}, errReply(wrong), ""),
		ss([]string{"RL.SLIDING", "k", "*", "9007199254740", "1000"}, errReply(limiter.ErrRange.Error()), ""),
		ss([]string{"RL.SLIDING", "str", "*", "1000", "5"}, errReply(wrong), ""),
		ss([]string{"RL.GCRA", "k", "*", "1", "0", "60"}, errReply("Cell error: Zero rates are not supported"), ""),
		ss([]string{"RL.GCRA", "k", "*", "1", "1", "x"}, errReply("Cell error: Couldn't parse as integer: x"), ""),
		ss([]string{"RL.GCRA", "k", "*", "1", "1", "1", "COST", "y"}, errReply("Cell error: Couldn't parse as integer: y"), ""),
		ss([]string{"RL.ACQUIRE", "k", "*", "0", "10", "a"}, errReply(limiter.ErrLimit.Error()), ""),
		ss([]string{"RL.ACQUIRE", "k", "*", "1", "0", "a"}, errReply(limiter.ErrLease.Error()), ""),
		ss([]string{"RL.ACQUIRE", "k", "*", "1", "10", ""}, errReply(limiter.ErrLeaseID.Error()), ""),
		ss([]string{"RL.ACQUIRE", "str", "*", "1", "10", "a"}, errReply(wrong), ""),
		ss([]string{"RL.HOLDERS", "str", "*"}, errReply(wrong), ""),
		ss([]string{"RL.RESERVE", "k", "*", "1000", "10", "-1"}, errReply(limiter.ErrEstimate.Error()), ""),
		ss([]string{"RL.SETTLE", "k", "*", "1000", "10", "1", "2", "x"}, errReply(limitcmd.ErrRLWindowStart), ""),
		ss([]string{"RL.SETTLE", "k", "*", "0", "10", "1", "2", "x"}, errReply(limiter.ErrWindow.Error()), ""),
		ss([]string{"RL.SETTLE", "k", "*", "1000", "10", "1", "-2", "0"}, errReply(limiter.ErrEstimate.Error()), ""),
		ss([]string{"HSET", "h", "tokens", "many", "ts", "1"}, integer(2), "0: HSET h tokens many ts 1"),
		ss([]string{"RL.TOKEN", "h", "*", "5", "1", "10"}, errReply(limiter.ErrCorrupt.Error()), ""),
		ss([]string{"EXISTS", "k"}, integer(0), ""),
	})
}

// The writes are the Lua twin's commands (token_bucket.lua replaces the
// hash: DEL, HSET, PEXPIRE), or, where those would not leave the value the
// limiter decided (a field the twin's HSET would keep), the plain
// commands that do: HDEL of the stray field. A TTL removed by hand comes
// back.
func TestRLWritesPlainCommands(t *testing.T) {
	runStreamSteps(t, []step{
		ss([]string{"HSET", "t", "tokens", "5", "ts", "{T}", "note", "x"}, integer(3), "0: HSET t tokens 5 ts {T} note x"),
		ss([]string{"RL.TOKEN", "t", "{T}", "5", "1", "1000"}, ints(1, 1, 5, 4, 0, 1000),
			"0: MULTI|0: DEL t|0: HSET t tokens 4 ts {T}|0: PEXPIREAT t {T+1000}|0: EXEC"),
		ss([]string{"PERSIST", "t"}, integer(1), "0: PERSIST t"),
		ss([]string{"RL.TOKEN", "t", "{T}", "5", "1", "1000"}, ints(1, 2, 5, 3, 0, 2000),
			"0: MULTI|0: DEL t|0: HSET t tokens 3 ts {T}|0: PEXPIREAT t {T+2000}|0: EXEC"),
		ss([]string{"HSET", "s", "start", "{T}", "cur", "0", "prev", "0", "note", "x"}, integer(4), "0: HSET s start {T} cur 0 prev 0 note x"),
		ss([]string{"RL.SLIDING", "s", "{T}", "1000", "2"}, ints(1, 1, 2, 1, 0, 2000),
			"0: MULTI|0: HDEL s note|0: HSET s cur 1|0: PEXPIREAT s {T+2000}|0: EXEC"),
		// A counter SET without a TTL gets the window, as the twin's
		// PEXPIRE gives it.
		ss([]string{"SET", "f", "1"}, okReply, "0: SET f 1"),
		ss([]string{"RL.FIXED", "f", "1000", "3"}, ints(1, 2, 3, 1, 0, 1000), "0: MULTI|0: INCRBY f 1|0: PEXPIREAT f {T+1000}|0: EXEC"),
		// A refused request writes nothing, not even a TTL.
		ss([]string{"RL.TOKEN", "t", "{T}", "5", "1", "1000", "COST", "4"}, ints(0, 2, 5, 3, 1000, 2000), ""),
		ss([]string{"PTTL", "t"}, integer(2000), ""),
	})
}

func itoaN(off int64) int64 { return 1_700_000_000_000 + off }

func itoaT(off int64) string { return itoa(1_700_000_000_000 + off) }

// Every command of the family is documented with its arguments (redis-cli
// builds its hints from them) and flagged as a write or a read.
func TestRateLimitFamilyDocs(t *testing.T) {
	tt := newTester(t)
	for _, c := range limitcmd.Commands {
		docs := tt.Do("COMMAND", "DOCS", c.Name)
		if !strings.Contains(docs, "$9\r\narguments\r\n") || !strings.Contains(docs, "$5\r\ngroup\r\n$9\r\nratelimit\r\n") {
			t.Errorf("COMMAND DOCS %s has no arguments or group: %q", c.Name, docs)
		}
		info := tt.Do("COMMAND", "INFO", c.Name)
		write := strings.Contains(info, "+write\r\n")
		if write == strings.Contains(info, "+readonly\r\n") || write != strings.Contains(info, "+@write\r\n") ||
			!strings.Contains(info, "+fast\r\n") || readOnly(c.Name) == write {
			t.Errorf("COMMAND INFO %s: %q", c.Name, info)
		}
	}
	// The key's documentation points at its key spec, as Redis's do.
	if docs := tt.Do("COMMAND", "DOCS", "rl.check"); !strings.Contains(docs, "$4\r\nname\r\n$3\r\nkey\r\n$4\r\ntype\r\n$3\r\nkey\r\n$14\r\nkey_spec_index\r\n:0\r\n") {
		t.Errorf("COMMAND DOCS rl.check: %q", docs)
	}
}

// readOnly: the family's commands that record nothing.
func readOnly(name string) bool {
	return strings.HasSuffix(name, ".peek") || name == "rl.peek" || name == "rl.holders"
}

// In RESP3, INFO is a map and RL.HOLDERS a map of lease id to expiry.
func TestRLInfoRESP3(t *testing.T) {
	tt := newTester(t)
	c := trackingClient(tt, 3)
	now := itoa(tt.Clock.Now().UnixMilli())
	for _, s := range []struct {
		want string
		args []string
	}{
		{"%6\r\n$7\r\nallowed\r\n:1\r\n$5\r\ncount\r\n:1\r\n$5\r\nlimit\r\n:2\r\n$9\r\nremaining\r\n:1\r\n" +
			"$14\r\nretry_after_ms\r\n:0\r\n$14\r\nreset_after_ms\r\n:1000\r\n", []string{"RL.ACQUIRE", "l", now, "2", "1000", "a", "INFO"}},
		{"%1\r\n$1\r\na\r\n:" + itoa(itoaN(1000)) + "\r\n", []string{"RL.HOLDERS", "l", now}},
		{"*6\r\n:1\r\n:1\r\n:2\r\n:1\r\n:0\r\n:1000\r\n", []string{"RL.FIXED", "f", "1000", "2"}},
	} {
		doOn(tt, c, s.args...)
		if got := takeOut(c); got != s.want {
			t.Errorf("%q: got %q, want %q", s.args, got, s.want)
		}
	}
}
