package limiter

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// GCRA as go-redis/redis_rate v10 runs it: its allowN and allowAtMost
// scripts (lua.go), modelled operation for operation in float64, which is
// what Lua 5.1's numbers are, so a recogniser can answer those scripts
// natively with the same replies and leave the same value.
//
// State: a string holding the TAT as float seconds since 2017-01-01
// (Redis's %.17g of the Lua number), with EX ⌈reset_after⌉ seconds; it is
// written only when the request passes and reset_after > 0.
//
// Time is the server's TIME reply, seconds and microseconds, passed in.

// RedisRateEpoch is the scripts' epoch, Jan 1 2017 UTC.
const RedisRateEpoch = 1483228800

// RedisRateArgs are the scripts' ARGV: burst, rate, period (seconds) and
// cost, as Lua coerces them to numbers.
type RedisRateArgs struct {
	Burst, Rate, Period, Cost float64
}

// ErrRedisRateArgs stands for the Lua runtime error a script raises on an
// argument that is not a number (arithmetic on a string or nil).
var ErrRedisRateArgs = errors.New("ERR redis_rate script: argument is not a number")

// ParseRedisRateArgs coerces ARGV[1..4] as the scripts do (strtod-like).
func ParseRedisRateArgs(argv []string) (RedisRateArgs, error) {
	if len(argv) < 4 {
		return RedisRateArgs{}, ErrRedisRateArgs
	}
	var f [4]float64
	for i := range f {
		x, err := strconv.ParseFloat(strings.TrimSpace(argv[i]), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return RedisRateArgs{}, ErrRedisRateArgs
		}
		f[i] = x
	}
	return RedisRateArgs{f[0], f[1], f[2], f[3]}, nil
}

// RedisRateReply is the scripts' reply: {allowed, remaining, retry_after,
// reset_after}, the last two as Lua's tostring of seconds.
type RedisRateReply struct {
	Allowed, Remaining     int64
	RetryAfter, ResetAfter string
}

// Reply is the reply as a client sees it.
func (r RedisRateReply) Reply() []any {
	return []any{r.Allowed, r.Remaining, r.RetryAfter, r.ResetAfter}
}

// redisRateNow is the scripts' now from TIME's two fields.
func redisRateNow(sec, usec int64) float64 {
	return (float64(sec) - RedisRateEpoch) + float64(usec)/1000000
}

func redisRateTAT(v Value, now float64) (float64, error) {
	switch v.Kind {
	case Absent:
		return now, nil
	case String:
		t, err := strconv.ParseFloat(strings.TrimSpace(v.Str), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, ErrCorrupt
		}
		return t, nil
	}
	return 0, ErrWrongType
}

// RedisRateAllowN is redis_rate's allowN script at TIME (sec, usec).
func RedisRateAllowN(v Value, sec, usec int64, a RedisRateArgs) (RedisRateReply, Value, bool, error) {
	emission := a.Period / a.Rate
	increment := emission * a.Cost
	burstOffset := emission * a.Burst
	now := redisRateNow(sec, usec)
	tat, err := redisRateTAT(v, now)
	if err != nil {
		return RedisRateReply{}, v, false, err
	}
	tat = luaMax(tat, now)
	newTAT := tat + increment
	allowAt := newTAT - burstOffset
	diff := now - allowAt
	remaining := diff / emission
	if remaining < 0 {
		return RedisRateReply{0, 0, luaToString(diff * -1), luaToString(tat - now)}, v, false, nil
	}
	resetAfter := newTAT - now
	after, changed := redisRateSet(v, newTAT, resetAfter)
	return RedisRateReply{luaInt(a.Cost), luaInt(remaining), luaToString(-1), luaToString(resetAfter)}, after, changed, nil
}

// RedisRateAllowAtMost is redis_rate's allowAtMost script: it takes what
// is left, up to cost.
func RedisRateAllowAtMost(v Value, sec, usec int64, a RedisRateArgs) (RedisRateReply, Value, bool, error) {
	emission := a.Period / a.Rate
	burstOffset := emission * a.Burst
	now := redisRateNow(sec, usec)
	tat, err := redisRateTAT(v, now)
	if err != nil {
		return RedisRateReply{}, v, false, err
	}
	tat = luaMax(tat, now)
	diff := now - (tat - burstOffset)
	remaining := diff / emission
	if remaining < 1 {
		return RedisRateReply{0, 0, luaToString(emission - diff), luaToString(tat - now)}, v, false, nil
	}
	cost := a.Cost
	if remaining < cost {
		cost = remaining
		remaining = 0
	} else {
		remaining -= cost
	}
	newTAT := tat + emission*cost
	resetAfter := newTAT - now
	after, changed := redisRateSet(v, newTAT, resetAfter)
	return RedisRateReply{luaInt(cost), luaInt(remaining), luaToString(-1), luaToString(resetAfter)}, after, changed, nil
}

// redisRateSet is SET key new_tat EX math.ceil(reset_after), done only
// when reset_after > 0.
func redisRateSet(v Value, newTAT, resetAfter float64) (Value, bool) {
	if !(resetAfter > 0) {
		return v, false
	}
	return Value{Kind: String, Str: luaNum(newTAT), TTL: int64(math.Ceil(resetAfter)) * 1000}, true
}

// luaMax is Lua 5.1's math.max for two numbers: it keeps the first unless
// the second is greater, so a NaN first argument stays.
func luaMax(a, b float64) float64 {
	if b > a {
		return b
	}
	return a
}
