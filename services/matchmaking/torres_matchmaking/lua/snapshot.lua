-- Read the queued tickets of one pool whose rating lies in [lo, hi] (a matcher's rating bands and their margins)
-- in one round trip: {ids, rows}, each row "player_id|rating|counts|created_at|max_wait|expires_at" as `requeue`
-- wrote it. Read-only, and no string work here: the matcher (which scales out) drops the expired rows, Redis
-- (which does not) only reads.
-- KEYS: pool keys.   ARGV: lo, hi (numbers, or -inf / +inf).
local ids = redis.call('ZRANGEBYSCORE', RATED, ARGV[1], ARGV[2])
local rows = {}
for first = 1, #ids, 4000 do  -- HMGET in slices: Lua's unpack has a stack limit
  local part = redis.call('HMGET', QUEUED, unpack(ids, first, math.min(first + 3999, #ids)))
  for i = 1, #part do rows[#rows + 1] = part[i] end
end
return {ids, rows}
