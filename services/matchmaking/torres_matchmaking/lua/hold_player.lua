-- Point a player at their new ticket, unless the pointer names another ticket than the expected one
-- (the caller read that ticket and found it finished, or left pending by a crash).
-- KEYS: player.   ARGV: new_id, expected ('' = no pointer), ttl.   Returns {1} or {0, current}.
local cur = redis.call('GET', KEYS[1])
if (cur or '') ~= ARGV[2] then return {0, cur} end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
return {1}
