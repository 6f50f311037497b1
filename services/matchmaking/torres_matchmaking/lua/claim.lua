-- Claim a whole group for one game, all or nothing: every ticket must still be queued and unexpired.
-- Claimed tickets leave every queue, so no other matcher can put them in a second game.
-- ARGV: prefix, now, claim_id, id1, id2, ...
-- Returns {1} or {0, first_unavailable_id, its_status}.
local now, claim = ARGV[2], ARGV[3]
for i = 4, #ARGV do
  local f = redis.call('HMGET', tkey(ARGV[i]), 'status', 'expires_at')
  if not is_live_queued(f, now) then return {0, ARGV[i], f[1] or 'missing'} end
end
for i = 4, #ARGV do
  local id = ARGV[i]
  each_queue(id, function(q) redis.call('ZREM', q, id) end)  -- its expiry entry goes when confirmed
  redis.call('HSET', tkey(id), 'status', 'claimed', 'claim', claim, 'claimed_at', now)
  redis.call('ZADD', CLAIMS, now, id)
end
return {1}
