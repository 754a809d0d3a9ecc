-- Fixed window (INCRBY, PEXPIRE on a new key), twin of internal/limiter
-- FixedWindow.Hit/Peek. The window follows the key's TTL.
-- KEYS[1]; ARGV: window_ms, limit, cost, check|peek
-- Reply: {allowed, count, limit, remaining, retry_after_ms, reset_after_ms}
-- State: string counter, PX = rest of the window.
local BIG = 9007199254740992
local function int(s, lo)
  if not s or not string.match(s, '^%-?%d+$') then return nil end
  local n = tonumber(s)
  if n < lo or n >= BIG then return nil end
  return n
end
local window, limit, cost = int(ARGV[1], 1), int(ARGV[2], 1), int(ARGV[3], 0)
if not window then return redis.error_reply('ERR window must be a positive integer number of milliseconds') end
if not limit then return redis.error_reply('ERR limit must be a positive integer') end
if not cost then return redis.error_reply('ERR cost must be a non-negative integer') end
local peek = ARGV[4] == 'peek'

local count, ttl, exists = 0, 0, false
local cur = redis.call('GET', KEYS[1])
if cur then
  exists = true
  count = int(cur, 0)
  if not count or not string.match(cur, '^[1-9]%d*$') and cur ~= '0' then
    return redis.error_reply('ERR rate limit state is corrupt')
  end
  ttl = redis.call('PTTL', KEYS[1])
end
local allowed, retry = 0, 0
if count + cost <= limit then
  allowed = 1
  count = count + cost
  if not peek and cost > 0 then
    redis.call('INCRBY', KEYS[1], cost)
    if not exists or ttl == -1 then
      ttl = window
      redis.call('PEXPIRE', KEYS[1], window)
    end
  end
elseif cost > limit or ttl == -1 then
  retry = -1
else
  retry = ttl
end
local remaining = limit - count
if remaining < 0 then remaining = 0 end
return {allowed, count, limit, remaining, retry, ttl}
