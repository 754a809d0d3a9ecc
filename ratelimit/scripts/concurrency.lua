-- Concurrency leases, twin of internal/limiter Concurrency.Acquire/Release.
-- KEYS[1]; ARGV: now_ms|*, acquire|release|peek, limit, lease_ms, lease_id
-- Reply: {allowed (released, for release), count, limit, remaining,
--         retry_after_ms, reset_after_ms}
-- State: sorted set, member = lease id, score = expiry (ms); PX = until
-- the last lease expires. Leases expired at now are dropped first.
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
local op, limit, lease, id = ARGV[2], int(ARGV[3], 1), int(ARGV[4], 1), ARGV[5]
if op == 'release' then lease = 1 end
if not limit then return redis.error_reply('ERR limit must be a positive integer') end
if not lease then return redis.error_reply('ERR lease must be a positive integer number of milliseconds') end
if not id or id == '' then return redis.error_reply('ERR lease id must not be empty') end
local key = KEYS[1]

local function last()
  local z = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if #z == 0 then return 0 end
  return tonumber(z[2]) - now
end

if op == 'peek' then
  local count = redis.call('ZCOUNT', key, '(' .. now, '+inf')
  local hs = redis.call('ZSCORE', key, id)
  local held = hs and tonumber(hs) > now
  local allowed, retry, reset = 0, 0, 0
  if held or count < limit then
    allowed = 1
    if not held then count = count + 1 end
    -- the renewed lease may have been the last to expire: the others' last
    reset = lease
    local z = redis.call('ZRANGE', key, -2, -1, 'WITHSCORES')
    for i = 1, #z, 2 do
      if z[i] ~= id and tonumber(z[i + 1]) - now > reset then reset = tonumber(z[i + 1]) - now end
    end
  else
    local z = redis.call('ZRANGEBYSCORE', key, '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
    retry = tonumber(z[2]) - now
    reset = last()
  end
  local remaining = limit - count
  if remaining < 0 then remaining = 0 end
  return {allowed, count, limit, remaining, retry, reset}
end

redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
local count = redis.call('ZCARD', key)
local allowed, retry = 0, 0
if op == 'release' then
  allowed = redis.call('ZREM', key, id)
  count = count - allowed
  if allowed == 1 and count > 0 then redis.call('PEXPIRE', key, last()) end
elseif op == 'acquire' then
  local held = redis.call('ZSCORE', key, id)
  if held or count < limit then
    allowed = 1
    if not held then count = count + 1 end
    redis.call('ZADD', key, now + lease, id)
    redis.call('PEXPIRE', key, last())
  else
    local z = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    retry = tonumber(z[2]) - now
  end
else
  return redis.error_reply('ERR unknown operation ' .. tostring(op))
end
local remaining = limit - count
if remaining < 0 then remaining = 0 end
return {allowed, count, limit, remaining, retry, last()}
