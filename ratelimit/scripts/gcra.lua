-- GCRA in the common reply, twin of RL.GCRA / RL.GCRA.PEEK: redis-cell's
-- arithmetic and key (cell.lua's), with now in ms and the figures in ms.
-- KEYS[1]; ARGV: now_ms|*, max_burst, count, period_s, cost, check|peek
-- Reply: {allowed, count, limit, remaining, retry_after_ms, reset_after_ms}
-- State: a string, the TAT in decimal Unix nanoseconds, PX = whole ms to it.
--
-- As in cell.lua, a nanosecond timestamp is kept as seconds and
-- nanoseconds and the arithmetic is relative to now, exact while every
-- duration stays under 2^53 ns.
if redis.replicate_commands then redis.replicate_commands() end

local BIG = 9007199254740992
local function unsupported() return redis.error_reply('ERR gcra.lua: durations or integers beyond 2^53 are not supported') end

-- Rust's i64 parse (a leading '+' allowed), exact only below 2^53.
local function parse(s)
  local t = s
  if string.sub(t, 1, 1) == '+' then t = string.sub(t, 2) end
  local sign, digits = string.match(t, '^(%-?)(%d+)$')
  if not digits then return nil end
  digits = string.gsub(digits, '^0+', '')
  local lim = '9223372036854775807'
  if sign == '-' then lim = '9223372036854775808' end
  if #digits > 19 or (#digits == 19 and digits > lim) then return nil end
  local n = tonumber(t)
  if math.abs(n) >= BIG then return nil, true end
  return n
end

local function trunc(x) if x >= 0 then return math.floor(x) end return math.ceil(x) end

local nows, nown
if ARGV[1] == '*' then
  local t = redis.call('TIME')
  nows, nown = tonumber(t[1]), tonumber(t[2]) * 1000
elseif string.match(ARGV[1], '^%d+$') and #ARGV[1] <= 15 then
  local ms = tonumber(ARGV[1])
  nows = math.floor(ms / 1000)
  nown = (ms - nows * 1000) * 1e6
else
  return redis.error_reply("ERR now must be an integer number of milliseconds or '*'")
end
local v = {0, 0, 0, 1}
for i = 2, 5 do
  local n, big = parse(ARGV[i])
  if big then return unsupported() end
  if not n then return redis.error_reply('Cell error: Couldn\'t parse as integer: ' .. tostring(ARGV[i])) end
  v[i - 1] = n
end
local burst, count, period, quantity = v[1], v[2], v[3], v[4]
local peek = ARGV[6] == 'peek'

local ei = 0
if count ~= 0 and period ~= 0 then ei = trunc(period * 1e9 / count) end
if ei == 0 then return redis.error_reply('Cell error: Zero rates are not supported') end
local dvt = ei * (burst + 1)
local inc = ei * quantity
if math.abs(ei) >= BIG or math.abs(dvt) >= BIG or math.abs(inc) >= BIG or math.abs(ei) < 1000 then
  return unsupported()
end

local rel = 0 -- tat - now
local cur = redis.call('GET', KEYS[1])
if cur then
  if not string.match(cur, '^%d+$') then return redis.error_reply('Cell error: invalid digit found in string') end
  local ts, tn = 0, tonumber(cur)
  if #cur > 9 then ts, tn = tonumber(string.sub(cur, 1, -10)), tonumber(string.sub(cur, -9)) end
  if math.abs(ts - nows) > 9e6 then return unsupported() end
  rel = (ts - nows) * 1e9 + (tn - nown)
end

local new = math.max(rel, 0) + inc
if math.abs(new) >= BIG then return unsupported() end
local diff = dvt - new
local limited, retry, ttl = false, -1, 0
if diff < 0 then
  limited = true
  if inc <= dvt then retry = -diff end
  ttl = rel
else
  ttl = new
  local ns = nown + new
  local carry = math.floor(ns / 1e9)
  local s, n = nows + carry, ns - carry * 1e9
  if s < 0 then return redis.error_reply('Cell error: time out of range') end
  if not peek then
    local str = string.format('%d', n)
    if s > 0 then str = string.format('%d%09d', s, n) end
    local ms = trunc(ttl / 1e6)
    if ms > 0 then
      redis.call('SET', KEYS[1], str, 'PX', ms)
    elseif ms == 0 then
      redis.call('DEL', KEYS[1])
    else
      redis.call('SET', KEYS[1], str)
      if ms < -1 then return redis.error_reply('Cell error: Error while setting key expire') end
    end
  end
end

local remaining = 0
local nxt = dvt - ttl
if nxt > -ei then remaining = trunc(trunc(nxt / 1000) / trunc(ei / 1000)) end

-- whole milliseconds, rounded up (exact: both products stay below 2^53)
local function ceilms(d)
  if d <= 0 then return 0 end
  local q = math.floor(d / 1e6)
  if q * 1e6 > d then q = q - 1 end
  if q * 1e6 < d then q = q + 1 end
  return q
end
local allowed, retryms = 1, 0
if limited then
  allowed, retryms = 0, -1
  if retry >= 0 then retryms = ceilms(retry) end
end
local limit = burst + 1
local used = limit - remaining
if used < 0 then used = 0 end
return {allowed, used, limit, remaining, retryms, ceilms(ttl)}
