-- A matcher's hold on one pool: acquire or renew (ARGV[3] = 'hold'), or give it up ('drop').
-- KEYS: lease.   ARGV: owner, ttl_ms, mode.   Returns 1 if the caller holds the lease afterwards.
local cur = redis.call('GET', KEYS[1])
if ARGV[3] == 'drop' then
  if cur == ARGV[1] then redis.call('DEL', KEYS[1]) end
  return 0
end
if cur and cur ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
