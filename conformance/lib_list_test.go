package conformance

import (
	"crypto/sha1"
	"encoding/hex"
	"strconv"
	"testing"
)

// Real libraries' list scripts, run verbatim against both servers with
// fixed timestamps, in the order and with the arguments the libraries send.

// limits' moving-window strategy (alisaifee/limits, commit 9dc96658 of
// limits/resources/redis/lua_scripts/acquire_moving_window.lua and 5f693f38
// of limits/resources/redis/lua_scripts/moving_window.lua). Its storage
// (limits/storage/redis.py) registers both as redis-py Scripts (EVALSHA,
// then SCRIPT LOAD and EVALSHA again on NOSCRIPT), keys "LIMITS:<key>";
// acquire_entry sends [time.time(), limit, expiry, amount] and
// get_moving_window sends [time.time() - expiry, limit].
const limitsAcquireMovingWindow = `local timestamp = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local expiry = tonumber(ARGV[3])
local amount = tonumber(ARGV[4])

if amount > limit then
    return false
end

local entry = redis.call('lindex', KEYS[1], limit - amount)

if entry and tonumber(entry) >= timestamp - expiry then
    return false
end
local entries = {}
for i = 1, amount do
    entries[i] = timestamp
end

for i=1,#entries,5000 do
    redis.call('lpush', KEYS[1], unpack(entries, i, math.min(i+4999, #entries)))
end
redis.call('ltrim', KEYS[1], 0, limit - 1)
redis.call('expire', KEYS[1], expiry)

return true
`

const limitsMovingWindow = `local items = redis.call('lrange', KEYS[1], 0, tonumber(ARGV[2]))
local expiry = tonumber(ARGV[1])
local a = 0
local oldest = nil

for idx=1,#items do
    if tonumber(items[idx]) >= expiry then
        a = a + 1

        local value = tonumber(items[idx])
        if oldest == nil or value < oldest then
            oldest = value
        end
    else
        break
    end
end

return {oldest, a}
`

// sidekiq-throttled's threshold strategy (ixti/sidekiq-throttled, commit
// b875c4e1 of lib/sidekiq/throttled/strategy/threshold.lua). threshold.rb
// runs it through redis-prescription (EVALSHA, EVAL on NOSCRIPT) with keys
// ["<strategy_key>:threshold"] and argv [limit, period.to_f, Time.now.to_f].
const sidekiqThreshold = `local key = KEYS[1]
local lmt = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local now = tonumber(ARGV[3])

if lmt <= redis.call("LLEN", key) and now - redis.call("LINDEX", key, -1) < ttl then
  return 1
end

redis.call("LPUSH", key, now)
redis.call("LTRIM", key, 0, lmt - 1)
redis.call("EXPIRE", key, ttl)

return 0
`

func scriptSHA(s string) string {
	h := sha1.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}

// pyTime formats a time.time() value as redis-py sends a float (repr).
func pyTime(base float64, off float64) string {
	return strconv.FormatFloat(base+off, 'f', -1, 64)
}

func TestLibLimitsMovingWindow(t *testing.T) {
	acq, win := scriptSHA(limitsAcquireMovingWindow), scriptSHA(limitsMovingWindow)
	const key = "LIMITS:LIMITER/127.0.0.1/api/3/10/second"
	const base = 1700000000.25
	acquire := func(off float64, limit, expiry, amount int) Cmd {
		c := C("EVALSHA", acq, "1", key, pyTime(base, off), strconv.Itoa(limit), strconv.Itoa(expiry), strconv.Itoa(amount))
		c.where = caller()
		return c
	}
	window := func(off float64, limit, expiry int) Cmd {
		c := C("EVALSHA", win, "1", key, pyTime(base, off-float64(expiry)), strconv.Itoa(limit))
		c.where = caller()
		return c
	}
	cmds := []Cmd{
		C("SCRIPT", "FLUSH"),
		// redis-py's Script: the first EVALSHA misses, it loads and retries.
		acquire(0, 3, 10, 1), C("SCRIPT", "LOAD", limitsAcquireMovingWindow), C("SCRIPT", "LOAD", limitsMovingWindow),
		window(0, 3, 10), // no key yet: {nil, 0} is an empty array
		acquire(0, 3, 10, 1), acquire(0.125, 3, 10, 1), window(0.2, 3, 10), acquire(1.5, 3, 10, 1),
		acquire(2, 3, 10, 1), // full
		window(2, 3, 10), lAll(key), C("TTL", key),
		// The oldest entry leaves the window; then an amount over the limit.
		acquire(10.2, 3, 10, 1), acquire(10.3, 3, 10, 1), window(10.3, 3, 10), acquire(11.6, 3, 10, 2), acquire(12, 3, 10, 4),
		acquire(25, 3, 10, 3), window(25, 3, 10), lAll(key),
		// A large limit and amount exercise the 5000-element LPUSH batches.
		acquire(30, 12000, 60, 6000), C("LLEN", key), acquire(31, 12000, 60, 6000), acquire(32, 12000, 60, 1),
		C("LLEN", key), C("LINDEX", key, "0"), C("LINDEX", key, "-1"), window(33, 12000, 60), C("OBJECT", "ENCODING", key), C("TTL", key),
		acquire(100, 12000, 60, 12000), window(100, 12000, 60), C("LLEN", key),
		C("SCRIPT", "FLUSH"),
	}
	runCases(t, []Case{{Name: "acquire and window", Cmds: cmds}})
}

func TestLibSidekiqThreshold(t *testing.T) {
	sha := scriptSHA(sidekiqThreshold)
	const key = "throttled:MyJob:threshold"
	const base = 1700000000.1234567
	throttled := func(off float64, limit int, period string) Cmd {
		// Ruby's Float#to_s is the shortest round-trip form, as Go's.
		c := C("EVALSHA", sha, "1", key, strconv.Itoa(limit), period, strconv.FormatFloat(base+off, 'f', -1, 64))
		c.where = caller()
		return c
	}
	evalFallback := C("EVAL", sidekiqThreshold, "1", key, "2", "10.0", strconv.FormatFloat(base, 'f', -1, 64))
	cmds := []Cmd{
		C("SCRIPT", "FLUSH"),
		throttled(0, 2, "10.0"), // NOSCRIPT: redis-prescription falls back to EVAL
		evalFallback,
		throttled(0.5, 2, "10.0"), throttled(1, 2, "10.0"), // throttled: 2 jobs in 10 s
		C("LLEN", key), lAll(key), C("TTL", key),
		throttled(9.9, 2, "10.0"), throttled(10.2, 2, "10.0"), throttled(10.3, 2, "10.0"), lAll(key),
		throttled(30, 3, "2.5"), throttled(30.5, 3, "2.5"), throttled(31, 3, "2.5"), throttled(31.2, 3, "2.5"), lAll(key), C("TTL", key),
		C("LLEN", key), C("DEL", key), throttled(40, 1, "60.0"), throttled(41, 1, "60.0"), lAll(key),
		C("SCRIPT", "FLUSH"),
	}
	runCases(t, []Case{{Name: "threshold", Cmds: cmds}})
}
