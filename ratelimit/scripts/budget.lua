-- Reserve-then-settle budget, twin of internal/limiter Budget.
-- KEYS[1]; ARGV: now_ms|*, reserve|settle|peek, window_ms, limit, estimate
--                [, actual, window_start]   (settle only)
-- Reply: {allowed (applied, for settle), count, limit, remaining,
--         retry_after_ms, reset_after_ms, window_start}
-- State: hash {start, used}, PX = end of the window.
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
local op, w, limit, est = ARGV[2], int(ARGV[3], 1), int(ARGV[4], 1), int(ARGV[5], 0)
if not w then return redis.error_reply('ERR window must be a positive integer number of milliseconds') end
if not limit then return redis.error_reply('ERR limit must be a positive integer') end
local actual, ws = 0, 0
if op == 'settle' then
  actual, ws = int(ARGV[6], 0), int(ARGV[7], -BIG + 1)
  if not ws then return redis.error_reply('ERR window start must be an integer') end
end
if not est or not actual then return redis.error_reply('ERR estimate and actual cost must be non-negative integers') end

local start, used = math.floor(now / w) * w, 0
if redis.call('EXISTS', KEYS[1]) == 1 then
  local h = redis.call('HMGET', KEYS[1], 'start', 'used')
  local st, u = int(h[1], -BIG + 1), int(h[2], 0)
  if not st or not u then return redis.error_reply('ERR rate limit state is corrupt') end
  if start <= st then start, used = st, u end
end
local endt = start + w - now
local allowed, retry = 0, 0
local old = used
if op == 'settle' then
  if start == ws then
    allowed = 1
    used = used + actual - est
    if used < 0 then used = 0 end
  end
elseif op == 'reserve' or op == 'peek' then
  if used + est <= limit then
    allowed = 1
    used = used + est
  elseif est > limit then
    retry = -1
  else
    retry = endt
  end
else
  return redis.error_reply('ERR unknown operation ' .. tostring(op))
end
if op ~= 'peek' and used ~= old then
  redis.call('HSET', KEYS[1], 'start', start, 'used', used)
  redis.call('PEXPIRE', KEYS[1], endt)
end
local remaining, reset = limit - used, 0
if remaining < 0 then remaining = 0 end
if used > 0 then reset = endt end
return {allowed, used, limit, remaining, retry, reset, start}
