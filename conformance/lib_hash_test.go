package conformance

import (
	"strconv"
	"testing"
)

// Real rate-limit libraries that keep their state in hashes, each run with
// its own commands (its Lua scripts verbatim, or its exact command
// sequence) against both servers, with fixed "now" arguments where the
// library passes the time in, and every reply compared byte for byte. The
// scripts are quoted from the libraries (all MIT licensed) at the commits
// named, so that a change here is a change of what the library sends.

// Laravel's DurationLimiter: laravel/framework,
// src/Illuminate/Redis/Limiters/DurationLimiter.php (commit 050bd03),
// luaScript() (acquire) and tooManyAttemptsLuaScript(). Both are called as
// eval(script, 1, key, microtime(true), time(), decay, maxLocks).
const laravelAcquire = `local function reset()
    redis.call('HMSET', KEYS[1], 'start', ARGV[2], 'end', ARGV[2] + ARGV[3], 'count', 1)
    return redis.call('EXPIRE', KEYS[1], ARGV[3] * 2)
end

if redis.call('EXISTS', KEYS[1]) == 0 then
    return {reset(), ARGV[2] + ARGV[3], ARGV[4] - 1}
end

if ARGV[1] >= redis.call('HGET', KEYS[1], 'start') and ARGV[1] <= redis.call('HGET', KEYS[1], 'end') then
    return {
        tonumber(redis.call('HINCRBY', KEYS[1], 'count', 1)) <= tonumber(ARGV[4]),
        redis.call('HGET', KEYS[1], 'end'),
        ARGV[4] - redis.call('HGET', KEYS[1], 'count')
    }
end

return {reset(), ARGV[2] + ARGV[3], ARGV[4] - 1}`

const laravelTooMany = `
if redis.call('EXISTS', KEYS[1]) == 0 then
    return {0, ARGV[2] + ARGV[3]}
end

if ARGV[1] >= redis.call('HGET', KEYS[1], 'start') and ARGV[1] <= redis.call('HGET', KEYS[1], 'end') then
    return {
        redis.call('HGET', KEYS[1], 'end'),
        ARGV[4] - redis.call('HGET', KEYS[1], 'count')
    }
end

return {0, ARGV[2] + ARGV[3]}`

// Upstash ratelimit's token bucket: upstash/ratelimit-js,
// src/lua-scripts/single.ts (commit e00d222), tokenBucketLimitScript
// (KEYS: the bucket; ARGV: maxTokens, interval ms, refillRate, now ms,
// incrementBy) and tokenBucketRemainingTokensScript (ARGV: maxTokens).
const upstashTokenBucket = `
  local key         = KEYS[1]           -- identifier including prefixes
  local maxTokens   = tonumber(ARGV[1]) -- maximum number of tokens
  local interval    = tonumber(ARGV[2]) -- size of the window in milliseconds
  local refillRate  = tonumber(ARGV[3]) -- how many tokens are refilled after each interval
  local now         = tonumber(ARGV[4]) -- current timestamp in milliseconds
  local incrementBy = tonumber(ARGV[5]) -- how many tokens to consume, default is 1
        
  local bucket = redis.call("HMGET", key, "refilledAt", "tokens")
        
  local refilledAt
  local tokens

  if bucket[1] == false then
    refilledAt = now
    tokens = maxTokens
  else
    refilledAt = tonumber(bucket[1])
    tokens = tonumber(bucket[2])
  end
        
  if now >= refilledAt + interval then
    local numRefills = math.floor((now - refilledAt) / interval)
    tokens = math.min(maxTokens, tokens + numRefills * refillRate)

    refilledAt = refilledAt + numRefills * interval
  end

  if tokens == 0 then
    return {-1, refilledAt + interval}
  end

  local remaining = tokens - incrementBy
  local expireAt = math.ceil(((maxTokens - remaining) / refillRate)) * interval
        
  redis.call("HSET", key, "refilledAt", refilledAt, "tokens", remaining)
  redis.call("PEXPIRE", key, expireAt)
  return {remaining, refilledAt + interval}
`

const upstashTokenBucketRemaining = `
  local key         = KEYS[1]
  local maxTokens   = tonumber(ARGV[1])
        
  local bucket = redis.call("HMGET", key, "refilledAt", "tokens")

  if bucket[1] == false then
    return {maxTokens, -1}
  end
        
  return {tonumber(bucket[2]), tonumber(bucket[1])}
`

func TestLibHashLaravelDurationLimiter(t *testing.T) {
	const key, decay, maxLocks = "{jobs:send-mail}", "60", "3"
	acquire := func(micro, sec string) Cmd {
		c := C("EVAL", laravelAcquire, "1", key, micro, sec, decay, maxLocks)
		c.where = caller()
		return c
	}
	tooMany := func(micro, sec string) Cmd {
		c := C("EVAL", laravelTooMany, "1", key, micro, sec, decay, maxLocks)
		c.where = caller()
		return c
	}
	runCases(t, []Case{
		{Name: "acquire until full, then a new duration", Cmds: []Cmd{
			tooMany("1700000000.1234", "1700000000"),
			acquire("1700000000.1234", "1700000000"),
			C("HGETALL", key), C("TTL", key).TTLApprox(1), C("OBJECT", "ENCODING", key),
			acquire("1700000001.5", "1700000001"),
			tooMany("1700000001.6", "1700000001"),
			acquire("1700000030.25", "1700000030"),
			acquire("1700000059.999", "1700000059"),
			acquire("1700000060", "1700000060"),
			tooMany("1700000060", "1700000060"),
			C("HGETALL", key),
			acquire("1700000060.5", "1700000060"),
			tooMany("1700000060.5", "1700000060"),
			C("HGETALL", key), C("TTL", key).TTLApprox(1),
			acquire("1700000200.75", "1700000200"),
			tooMany("1700000200.75", "1700000200"),
			C("HGETALL", key), C("TTL", key).TTLApprox(1),
			C("DEL", key), // clear()
			tooMany("1700000201", "1700000201"),
		}},
	})
}

// TestLibHashRubyRatelimit sends what the ratelimit gem (ejfinneran/ratelimit,
// lib/ratelimit.rb, commit 36b5116) sends through redis-namespace
// ("ratelimit:" prefix), with its defaults (bucket_span 600, bucket_interval
// 5, bucket_expiry 600: 120 buckets): add is MULTI, HINCRBY subject bucket
// count, HDEL the next two buckets, EXPIRE, EXEC; count is HMGET of the
// last interval/5 buckets.
func TestLibHashRubyRatelimit(t *testing.T) {
	const span, interval, buckets = 600, 5, 120
	subject := "ratelimit:emails:user@foo.com"
	bucket := func(now int) int { return (now % span) / interval }
	mod := func(a int) string { return strconv.Itoa(((a % buckets) + buckets) % buckets) }
	add := func(now, count int) []Cmd {
		b := bucket(now)
		return []Cmd{C("MULTI"), C("HINCRBY", subject, strconv.Itoa(b), strconv.Itoa(count)), C("HDEL", subject, mod(b+1)),
			C("HDEL", subject, mod(b+2)), C("EXPIRE", subject, strconv.Itoa(span)), C("EXEC")}
	}
	countCmd := func(now, iv int) Cmd {
		b := bucket(now)
		args := []string{"HMGET", subject}
		for i := range max(iv, interval) / interval {
			args = append(args, mod(b-i))
		}
		c := C(args...)
		c.where = caller()
		return c
	}
	var cmds []Cmd
	now := 1700000000 // bucket 80 of 120
	for i, step := range []int{0, 1, 3, 5, 7, 60, 61, 200, 300, 301, 599, 600, 1500} {
		cmds = append(cmds, add(now+step, 1+i%3)...)
		cmds = append(cmds, countCmd(now+step, 30), countCmd(now+step, 600), countCmd(now+step, 1))
	}
	cmds = append(cmds, C("HGETALL", subject), C("HKEYS", subject), C("HLEN", subject), C("TTL", subject).TTLApprox(1), C("OBJECT", "ENCODING", subject))
	runCases(t, []Case{{Name: "add and count across the ring", Cmds: cmds}})
}

func TestLibHashUpstashTokenBucket(t *testing.T) {
	const key, maxTokens, intervalMs, refill = "@upstash/ratelimit:api:user42", "3", "1000", "1"
	const t0 = 1700000000000
	limit := func(at int, incr string) Cmd {
		c := C("EVAL", upstashTokenBucket, "1", key, maxTokens, intervalMs, refill, strconv.Itoa(t0+at), incr)
		c.where = caller()
		return c
	}
	remaining := func() Cmd {
		c := C("EVAL", upstashTokenBucketRemaining, "1", key, maxTokens)
		c.where = caller()
		return c
	}
	runCases(t, []Case{
		{Name: "drain and refill", Cmds: []Cmd{
			remaining(),
			limit(0, "1"), C("HGETALL", key), C("PTTL", key).TTLApprox(50), C("OBJECT", "ENCODING", key),
			limit(10, "1"), limit(20, "1"), limit(30, "1"), remaining(),
			limit(999, "1"), limit(1000, "1"), remaining(), C("HGETALL", key), C("PTTL", key).TTLApprox(50),
			limit(2500, "1"), limit(2600, "1"), limit(9000, "1"), C("HGETALL", key),
			limit(9001, "2"), limit(20000, "3"), remaining(), limit(20001, "1"), C("HGETALL", key), C("PTTL", key).TTLApprox(50),
		}},
		{Name: "fractional refill rate", Cmds: []Cmd{
			C("EVAL", upstashTokenBucket, "1", key, "10", "250", "3", strconv.Itoa(t0), "4"),
			C("EVAL", upstashTokenBucket, "1", key, "10", "250", "3", strconv.Itoa(t0+260), "4"),
			C("HGETALL", key), C("PTTL", key).TTLApprox(50),
			C("EVAL", upstashTokenBucket, "1", key, "10", "250", "3", strconv.Itoa(t0+900), "0.5"),
			C("HGETALL", key), C("PTTL", key).TTLApprox(50),
		}},
	})
}
