-- A matcher's hold on some (pool, band) units of ONE pool (their keys share the pool's slot): acquire or renew
-- each (ARGV[3] = 'hold'), or give them up ('drop').
-- KEYS: lease keys.   ARGV: owner, ttl_ms, mode.   Returns, per key, 1 if the caller holds it afterwards.
local out = {}
for i = 1, #KEYS do
  local cur = redis.call('GET', KEYS[i])
  if ARGV[3] == 'drop' then
    if cur == ARGV[1] then redis.call('DEL', KEYS[i]) end
    out[i] = 0
  elseif cur and cur ~= ARGV[1] then
    out[i] = 0
  else
    redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2])
    out[i] = 1
  end
end
return out
