-- Expire queued tickets whose deadline has passed; drop non-queued ones from the expiry index.
-- ARGV: prefix, now, result_ttl, id1, id2, ...   Returns the number expired.
local now, result_ttl, n = ARGV[2], ARGV[3], 0
for i = 4, #ARGV do
  local id = ARGV[i]
  local f = redis.call('HMGET', tkey(id), 'status', 'expires_at')
  if f[1] == 'queued' and not is_live_queued(f, now) then
    finish(id, 'expired', now, result_ttl)
    n = n + 1
  elseif f[1] ~= 'queued' then
    redis.call('ZREM', EXPIRY, id)
  end
end
return n
