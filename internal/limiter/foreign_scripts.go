package limiter

// The scripts other projects run, byte for byte, so a recogniser can know
// them by SHA1 and answer them natively with the models in this package.
// redisrate_test.go checks the redis_rate texts against the module source
// and every SHA1 against its text.

// RedisRateAllowNScript is go-redis/redis_rate v10's allowN (lua.go);
// RedisRateAllowNSHA1 is its SHA1.
const RedisRateAllowNScript = `
-- this script has side-effects, so it requires replicate commands mode
redis.replicate_commands()

local rate_limit_key = KEYS[1]
local burst = ARGV[1]
local rate = ARGV[2]
local period = ARGV[3]
local cost = tonumber(ARGV[4])

local emission_interval = period / rate
local increment = emission_interval * cost
local burst_offset = emission_interval * burst

-- redis returns time as an array containing two integers: seconds of the epoch
-- time (10 digits) and microseconds (6 digits). for convenience we need to
-- convert them to a floating point number. the resulting number is 16 digits,
-- bordering on the limits of a 64-bit double-precision floating point number.
-- adjust the epoch to be relative to Jan 1, 2017 00:00:00 GMT to avoid floating
-- point problems. this approach is good until "now" is 2,483,228,799 (Wed, 09
-- Sep 2048 01:46:39 GMT), when the adjusted value is 16 digits.
local jan_1_2017 = 1483228800
local now = redis.call("TIME")
now = (now[1] - jan_1_2017) + (now[2] / 1000000)

local tat = redis.call("GET", rate_limit_key)

if not tat then
  tat = now
else
  tat = tonumber(tat)
end

tat = math.max(tat, now)

local new_tat = tat + increment
local allow_at = new_tat - burst_offset

local diff = now - allow_at
local remaining = diff / emission_interval

if remaining < 0 then
  local reset_after = tat - now
  local retry_after = diff * -1
  return {
    0, -- allowed
    0, -- remaining
    tostring(retry_after),
    tostring(reset_after),
  }
end

local reset_after = new_tat - now
if reset_after > 0 then
  redis.call("SET", rate_limit_key, new_tat, "EX", math.ceil(reset_after))
end
local retry_after = -1
return {cost, remaining, tostring(retry_after), tostring(reset_after)}
`

const RedisRateAllowNSHA1 = "f52a5b566060d79fd321d695df55bc918339c4aa"

// RedisRateAllowAtMostScript is go-redis/redis_rate v10's allowAtMost.
const RedisRateAllowAtMostScript = `
-- this script has side-effects, so it requires replicate commands mode
redis.replicate_commands()

local rate_limit_key = KEYS[1]
local burst = ARGV[1]
local rate = ARGV[2]
local period = ARGV[3]
local cost = tonumber(ARGV[4])

local emission_interval = period / rate
local burst_offset = emission_interval * burst

-- redis returns time as an array containing two integers: seconds of the epoch
-- time (10 digits) and microseconds (6 digits). for convenience we need to
-- convert them to a floating point number. the resulting number is 16 digits,
-- bordering on the limits of a 64-bit double-precision floating point number.
-- adjust the epoch to be relative to Jan 1, 2017 00:00:00 GMT to avoid floating
-- point problems. this approach is good until "now" is 2,483,228,799 (Wed, 09
-- Sep 2048 01:46:39 GMT), when the adjusted value is 16 digits.
local jan_1_2017 = 1483228800
local now = redis.call("TIME")
now = (now[1] - jan_1_2017) + (now[2] / 1000000)

local tat = redis.call("GET", rate_limit_key)

if not tat then
  tat = now
else
  tat = tonumber(tat)
end

tat = math.max(tat, now)

local diff = now - (tat - burst_offset)
local remaining = diff / emission_interval

if remaining < 1 then
  local reset_after = tat - now
  local retry_after = emission_interval - diff
  return {
    0, -- allowed
    0, -- remaining
    tostring(retry_after),
    tostring(reset_after),
  }
end

if remaining < cost then
  cost = remaining
  remaining = 0
else
  remaining = remaining - cost
end

local increment = emission_interval * cost
local new_tat = tat + increment

local reset_after = new_tat - now
if reset_after > 0 then
  redis.call("SET", rate_limit_key, new_tat, "EX", math.ceil(reset_after))
end

return {
  cost,
  remaining,
  tostring(-1),
  tostring(reset_after),
}
`

const RedisRateAllowAtMostSHA1 = "054143318f521948424aa25df61d7f7ba835a9d7"

// RLFConsumeScript is node-rate-limiter-flexible's incrTtlLuaScript
// (lib/RateLimiterRedis.js), the script RateLimiterRedis's consume runs
// when the duration is at least a second. In the JS source every line ends
// in a backslash inside a template literal, a line continuation, so the
// text Redis sees is one line with no newlines. It has not changed from
// its introduction (f66dc67, 2020) to v9.1.1 and the tip of 2026-05.
const RLFConsumeScript = "redis.call('set', KEYS[1], 0, 'EX', ARGV[2], 'NX') " +
	"local consumed = redis.call('incrby', KEYS[1], ARGV[1]) " +
	"local ttl = redis.call('pttl', KEYS[1]) " +
	"if ttl == -1 then " +
	"  redis.call('expire', KEYS[1], ARGV[2]) " +
	"  ttl = 1000 * ARGV[2] " +
	"end " +
	"return {consumed, ttl} "

const RLFConsumeSHA1 = "a1de965f42e177aa339706bd580f049065eca79a"
