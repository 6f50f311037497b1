-- Enqueue a new ticket unless its player already has a live one (queued, or claimed by a matcher).
-- ARGV: prefix, now, result_ttl, id, player_id, edition, master, counts, rating, sigma, max_wait,
--       expires_at, key_ttl
-- Returns {1, id} or {0, existing_id}.
local now, result_ttl, id, player = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local existing = redis.call('GET', pkey(player))
if existing then
  local f = redis.call('HMGET', tkey(existing), 'status', 'expires_at')
  if f[1] == 'claimed' or is_live_queued(f, now) then return {0, existing} end
  if f[1] == 'queued' then finish(existing, 'expired', now, result_ttl) end
end
redis.call('HSET', tkey(id), 'id', id, 'player_id', player, 'edition', ARGV[6], 'master', ARGV[7],
  'counts', ARGV[8], 'rating', ARGV[9], 'sigma', ARGV[10], 'max_wait', ARGV[11], 'created_at', now,
  'expires_at', ARGV[12], 'status', 'queued', 'attempts', 0)
redis.call('EXPIRE', tkey(id), ARGV[13])
requeue(id)
redis.call('SET', pkey(player), id, 'EX', ARGV[13])
return {1, id}
