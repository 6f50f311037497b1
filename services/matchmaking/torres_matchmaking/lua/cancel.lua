-- Cancel a ticket while it is queued. A ticket claimed for a game is refused, except when its group has
-- been stuck for longer than stall_after (the game service is down, say): then the cancel dissolves the
-- group, which a matcher resolves — confirms nothing, aborts the group's game if one was created, and
-- re-queues the others. So a cancel racing a match never leaves a cancelled player in an active game.
-- KEYS: pool keys, ticket, group of the ticket as read before (or the ticket key again).
-- ARGV: now, result_ttl, id, group_id read before, stall_after.
-- Returns {1, 'cancelled'}, {0, current_status} or {0, 'retry'} (the group changed since it was read).
local t, g, now, result_ttl, id = KEYS[6], KEYS[7], ARGV[1], ARGV[2], ARGV[3]
local f = redis.call('HMGET', t, 'status', 'expires_at', 'group', 'claimed_at', 'callback_url')
if not f[1] or f[1] == 'pending' then return {0, 'missing'} end
if f[1] == 'queued' and not is_live_queued(f, now) then
  finish(t, id, 'expired', now, result_ttl, f[5], true)
  return {0, 'expired'}
end
if f[1] == 'claimed' then
  if f[3] ~= ARGV[4] then return {0, 'retry'} end
  if tonumber(now) - tonumber(f[4]) < tonumber(ARGV[5]) then return {0, 'claimed'} end
  redis.call('HSET', g, 'state', 'dissolved')
  redis.call('ZADD', CLAIMS, now, ARGV[4])
elseif f[1] ~= 'queued' then
  return {0, f[1]}
end
finish(t, id, 'cancelled', now, result_ttl, f[5], f[1] == 'queued')
return {1, 'cancelled'}
