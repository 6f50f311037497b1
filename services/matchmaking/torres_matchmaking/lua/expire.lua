-- Expire queued tickets whose deadline has passed; drop non-queued ones from the expiry index.
-- KEYS: pool keys, then one ticket key per id.   ARGV: now, result_ttl, id1, id2, ...
-- Returns the number expired.
local now, result_ttl, n = ARGV[1], ARGV[2], 0
for i = 3, #ARGV do
  local id, t = ARGV[i], KEYS[i + 3]
  local f = redis.call('HMGET', t, 'status', 'expires_at', 'callback_url')
  if f[1] == 'queued' and not is_live_queued(f, now) then
    finish(t, id, 'expired', now, result_ttl, f[3], true)
    n = n + 1
  elseif f[1] ~= 'queued' then
    unqueue(id)
  end
end
return n
