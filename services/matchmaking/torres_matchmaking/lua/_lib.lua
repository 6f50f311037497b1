-- Shared prelude, prepended to every script. Scripts that move tickets get the pool's keys first:
-- KEYS[1] expiry index, KEYS[2] queued tickets (id -> snapshot row), KEYS[3] claims, KEYS[4] callbacks due,
-- KEYS[5] the rating index of the queued tickets (id -> mu: a matcher reads the rating bands it holds);
-- every other key a script touches is declared after them. All of them carry the pool's hash tag.
-- (Scripts that do not move tickets — lease, hold_player, takeover, apply_rating — ignore these names.)
local EXPIRY, QUEUED, CLAIMS, HOOKS, RATED = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]

local function is_live_queued(f, now)  -- f = {status, expires_at}
  return f[1] == 'queued' and tonumber(f[2]) > tonumber(now)
end

-- Into the matching set and the expiry index (the ticket hash says its status). The row ends with the ticket's
-- scope: tickets only meet tickets of theirs (a ticket written before tenants existed is the default tenant's).
local function requeue(tkey, id)
  local f = redis.call('HMGET', tkey, 'player_id', 'rating', 'counts', 'created_at', 'max_wait', 'expires_at',
    'scope')
  redis.call('HSET', QUEUED, id, f[1] .. '|' .. f[2] .. '|' .. f[3] .. '|' .. f[4] .. '|' .. f[5] .. '|' .. f[6]
    .. '|' .. (f[7] or 'default'))
  redis.call('ZADD', EXPIRY, f[6], id)
  redis.call('ZADD', RATED, f[2], id)
end

local function unqueue(id)
  redis.call('HDEL', QUEUED, id)
  redis.call('ZREM', EXPIRY, id)
  redis.call('ZREM', RATED, id)
end


-- A ticket's public status changed: wake the processes waiting on it. Sharded pub/sub on the pool's channel
-- "<prefix>{pool}:wake" (Keys.wake): it shares the pool's hash tag, so on a cluster the notice stays on this
-- shard, and it leaves only if the script commits (an error before this line sends nothing). Its name is the
-- expiry key's with "wake" for "expiry": a channel is not a key, so it is not among KEYS.
local function wake(id)
  redis.call('SPUBLISH', string.sub(EXPIRY, 1, -7) .. 'wake', id)
end

-- A terminal state (cancelled/expired/matched): out of every index (``queued``: it is still in them; a claimed
-- ticket left them at its claim), readable for result_ttl, its callback due now if it has one (``callback``: the
-- ticket's callback_url, read by the caller with its other fields), waiters woken. ``...``: more fields to set.
local function finish(tkey, id, status, now, result_ttl, callback, queued, ...)
  if queued then unqueue(id) end
  redis.call('HSET', tkey, 'status', status, 'ended_at', now, ...)
  redis.call('EXPIRE', tkey, result_ttl)
  if (callback or '') ~= '' then redis.call('ZADD', HOOKS, now, id) end
  wake(id)
end
