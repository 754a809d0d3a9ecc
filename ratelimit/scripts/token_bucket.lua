-- Token bucket, twin of internal/limiter TokenBucket.Take/Peek.
-- KEYS[1]; ARGV: now_ms|*, capacity, refill, period_ms, cost, check|peek
-- Reply: {allowed, count, limit, remaining, retry_after_ms, reset_after_ms}
-- State: hash {tokens (%.17g float), ts (ms)}, PX = until full again.
if redis.replicate_commands then redis.replicate_commands() end
local BIG = 9007199254740992
local function int(s, lo)
  if not s or not string.match(s, '^%-?%d+$') then return nil end
  local n = tonumber(s)
  if n < lo or n >= BIG then return nil end
  return n
end
local now
if ARGV[1] == '*' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = int(ARGV[1], -BIG + 1)
  if not now then return redis.error_reply("ERR now must be an integer number of milliseconds or '*'") end
end
local cap, refill, period, cost = int(ARGV[2], 1), int(ARGV[3], 1), int(ARGV[4], 1), int(ARGV[5], 0)
if not period then return redis.error_reply('ERR window must be a positive integer number of milliseconds') end
if not cap or not refill then return redis.error_reply('ERR limit must be a positive integer') end
if not cost then return redis.error_reply('ERR cost must be a non-negative integer') end
local peek = ARGV[6] == 'peek'

local tokens, ts = cap, now
local h = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
if redis.call('EXISTS', KEYS[1]) == 1 then
  tokens, ts = tonumber(h[1]), tonumber(h[2])
  if not tokens or not ts then return redis.error_reply('ERR rate limit state is corrupt') end
end
local rate = refill / period
if now > ts then
  tokens = tokens + (now - ts) * rate
  if tokens > cap then tokens = cap end
  ts = now
end
local wait = 0
if ts > now then wait = ts - now end
local allowed, retry = 0, 0
if cost <= tokens then
  allowed = 1
  tokens = tokens - cost
elseif cost > cap then
  retry = -1
else
  retry = wait + math.ceil((cost - tokens) / rate)
end
local remaining = math.floor(tokens)
local reset = wait + math.ceil((cap - tokens) / rate)
if allowed == 1 and not peek and cost > 0 then
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'tokens', tokens, 'ts', ts)
  redis.call('PEXPIRE', KEYS[1], reset)
end
return {allowed, cap - remaining, cap, remaining, retry, reset}
