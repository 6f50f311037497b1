-- Make a pending ticket matchable, unless it has been pending so long that a concurrent create took its
-- player's pointer over (it then stays out of every queue and expires away).
-- KEYS: pool keys, ticket.   ARGV: now, id, stale_after.   Returns 1 or 0.
local t, now, id = KEYS[6], tonumber(ARGV[1]), ARGV[2]
local f = redis.call('HMGET', t, 'status', 'created_at')
if f[1] ~= 'pending' or now - tonumber(f[2]) > tonumber(ARGV[3]) then return 0 end
redis.call('HSET', t, 'status', 'queued')
requeue(t, id)
return 1
