-- Shared prelude, prepended to every script. ARGV[1] is the key prefix; every key of a
-- deployment starts with it (use a hash-tagged prefix such as "{mm}:" on Redis Cluster).
local P = ARGV[1]
local function tkey(id) return P .. 't:' .. id end
local function pkey(player) return P .. 'p:' .. player end
local EXPIRY = P .. 'expiry'
local CLAIMS = P .. 'claims'

-- Call fn(queue_key) for each queue the ticket sits in (one per acceptable player count).
local function each_queue(id, fn)
  local f = redis.call('HMGET', tkey(id), 'edition', 'master', 'counts')
  if not f[3] then return end
  for n in string.gmatch(f[3], '%d') do fn(P .. 'q:' .. f[1] .. ':' .. f[2] .. ':' .. n) end
end

local function unqueue(id)
  each_queue(id, function(q) redis.call('ZREM', q, id) end)
  redis.call('ZREM', EXPIRY, id)
end

-- Forget the player's live-ticket pointer, but only if it still points at this ticket.
local function release_player(id, player)
  if player and redis.call('GET', pkey(player)) == id then redis.call('DEL', pkey(player)) end
end

local function requeue(id)
  local f = redis.call('HMGET', tkey(id), 'rating', 'expires_at')
  each_queue(id, function(q) redis.call('ZADD', q, f[1], id) end)
  redis.call('ZADD', EXPIRY, f[2], id)
end

-- A terminal state (cancelled/expired/matched): out of every queue, readable for result_ttl.
local function finish(id, status, now, result_ttl)
  unqueue(id)
  release_player(id, redis.call('HGET', tkey(id), 'player_id'))
  redis.call('HSET', tkey(id), 'status', status, 'ended_at', now)
  redis.call('EXPIRE', tkey(id), result_ttl)
end

local function is_live_queued(f, now)  -- f = {status, expires_at}
  return f[1] == 'queued' and tonumber(f[2]) > tonumber(now)
end
