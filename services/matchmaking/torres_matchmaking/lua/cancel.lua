-- Cancel a ticket, only while it is queued: a ticket claimed by a matcher cannot be cancelled, so a
-- cancel racing a match never leaves a cancelled player in a game.
-- ARGV: prefix, now, result_ttl, id.   Returns {1, 'cancelled'} or {0, current_status}.
local now, result_ttl, id = ARGV[2], ARGV[3], ARGV[4]
local f = redis.call('HMGET', tkey(id), 'status', 'expires_at')
if not f[1] then return {0, 'missing'} end
if f[1] == 'queued' and not is_live_queued(f, now) then
  finish(id, 'expired', now, result_ttl)
  return {0, 'expired'}
end
if f[1] ~= 'queued' then return {0, f[1]} end
finish(id, 'cancelled', now, result_ttl)
return {1, 'cancelled'}
