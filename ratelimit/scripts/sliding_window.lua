-- Sliding-window counter, twin of internal/limiter SlidingWindow.Hit/Peek.
-- KEYS[1]; ARGV: now_ms|*, window_ms, limit, cost, check|peek
-- Reply: {allowed, count, limit, remaining, retry_after_ms, reset_after_ms}
-- State: hash {start, cur, prev}, PX = end of the window after start's.
-- All arithmetic is on integers below 2^53 (limit*window is bounded), so
-- the doubles here compute what Go's int64 does.
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
local w, limit, cost = int(ARGV[2], 1), int(ARGV[3], 1), int(ARGV[4], 0)
if not w then return redis.error_reply('ERR window must be a positive integer number of milliseconds') end
if not limit then return redis.error_reply('ERR limit must be a positive integer') end
if limit >= math.floor(BIG / w) then return redis.error_reply('ERR limit times window (or period) must stay below 2^53') end
if not cost then return redis.error_reply('ERR cost must be a non-negative integer') end
local peek = ARGV[5] == 'peek'

local s = math.floor(now / w) * w
local start, cur, prev = s, 0, 0
if redis.call('EXISTS', KEYS[1]) == 1 then
  local h = redis.call('HMGET', KEYS[1], 'start', 'cur', 'prev')
  start, cur, prev = int(h[1], -BIG + 1), int(h[2], 0), int(h[3], 0)
  if not start or not cur or not prev then return redis.error_reply('ERR rate limit state is corrupt') end
end
if s > start then
  if s == start + w then prev = cur else prev = 0 end
  cur, start = 0, s
end
local el = now - start
if el < 0 then el = 0 end
local est = prev * (w - el) + cur * w
local allowed, retry = 0, 0
if est + cost * w <= limit * w then
  allowed = 1
  cur = cur + cost
  est = est + cost * w
elseif cost > limit then
  retry = -1
else
  local room = limit - cost
  local a = (room - cur) * w
  local at = nil
  if a >= 0 and prev > 0 then
    at = math.max(el, w - math.floor(a / prev))
    if at >= w then at = nil end
  end
  if at then
    retry = start + at - now
  else
    at = 0
    if cur > 0 then at = math.max(0, w - math.floor(room * w / cur)) end
    retry = start + w + at - now
  end
end
local count = math.ceil(est / w)
local remaining = limit - count
if remaining < 0 then remaining = 0 end
local reset = 0
if cur > 0 then
  reset = start + 2 * w - now
elseif prev > 0 and el < w then
  reset = start + w - now
end
if allowed == 1 and not peek and cost > 0 then
  redis.call('HSET', KEYS[1], 'start', start, 'cur', cur, 'prev', prev)
  redis.call('PEXPIRE', KEYS[1], start + 2 * w - now)
end
return {allowed, count, limit, remaining, retry, reset}
