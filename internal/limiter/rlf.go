package limiter

import (
	"errors"
	"math"
	"strconv"
)

// node-rate-limiter-flexible's RateLimiterRedis consume (RLFConsumeScript):
//
//	SET key 0 EX duration NX; INCRBY key points; PTTL key;
//	if no TTL: EXPIRE key duration, ttl = 1000*duration
//	reply {consumed, ttl}
//
// State: a string counter with the TTL the first consume of the window
// set (EX duration seconds). It counts every consume, refused ones too:
// the library decides afterwards (consumed > points refuses), so the
// counter keeps growing past the limit within a window. The model takes
// the TTL as the key holds it (v.TTL, what PTTL answers); time plays no
// other part.

// RLFArgs are the script's ARGV[1] (points to consume) and ARGV[2] (the
// window in whole seconds). ARGV[3] and ARGV[4] (the limiter's points and
// duration) are passed but the script never reads them.
type RLFArgs struct {
	Points, Duration int64
}

var (
	errNotInt        = errors.New("ERR value is not an integer or out of range")
	errInvalidExpire = errors.New("ERR invalid expire time in 'set' command")
	errIncrOverflow  = errors.New("ERR increment or decrement would overflow")
)

// ParseRLFArgs checks ARGV as the script's commands do: SET ... EX parses
// ARGV[2] first, INCRBY ARGV[1] next.
func ParseRLFArgs(argv []string) (RLFArgs, error) {
	if len(argv) < 2 {
		return RLFArgs{}, errNotInt
	}
	d, ok := parseInt64(argv[1])
	if !ok {
		return RLFArgs{}, errNotInt
	}
	if d <= 0 || d > math.MaxInt64/1000 {
		return RLFArgs{}, errInvalidExpire
	}
	p, ok := parseInt64(argv[0])
	if !ok {
		return RLFArgs{}, errNotInt
	}
	return RLFArgs{Points: p, Duration: d}, nil
}

// RLFConsume is one run of the script on v. An error can still leave a
// changed value: SET ... NX has run when INCRBY fails.
func RLFConsume(v Value, a RLFArgs) (consumed, ttlMs int64, after Value, err error) {
	after = v
	if v.Kind == Absent {
		after = Value{Kind: String, Str: "0", TTL: a.Duration * 1000}
	}
	if after.Kind != String {
		return 0, 0, after, ErrWrongType
	}
	cur, ok := parseInt64(after.Str)
	if !ok {
		return 0, 0, after, errNotInt
	}
	if (a.Points > 0 && cur > math.MaxInt64-a.Points) || (a.Points < 0 && cur < math.MinInt64-a.Points) {
		return 0, 0, after, errIncrOverflow
	}
	consumed = cur + a.Points
	after.Str = strconv.FormatInt(consumed, 10)
	ttlMs = after.TTL
	if ttlMs == -1 {
		after.TTL = a.Duration * 1000
		ttlMs = luaInt(1000 * float64(a.Duration))
	}
	return consumed, ttlMs, after, nil
}

// RLFResult is the library's reading of the reply for a limiter of limit
// points: refused once consumed passes the limit.
func RLFResult(consumed, ttlMs, limit int64) Result {
	r := Result{
		Allowed: consumed <= limit, Count: consumed, Limit: limit,
		Remaining: max(limit-consumed, 0), ResetAfterMs: ttlMs,
	}
	if !r.Allowed {
		r.RetryAfterMs = ttlMs
	}
	return r
}
