-- Read the queued, unexpired tickets of one pool whose rating lies in [lo, hi] (a matcher's rating bands and
-- their margins) in one round trip, as "id|player_id|rating|counts|created_at|max_wait" (the rows `requeue`
-- wrote). Read-only.
-- KEYS: pool keys.   ARGV: now, lo, hi (numbers, or -inf / +inf).
local now, out = tonumber(ARGV[1]), {}
local ids = redis.call('ZRANGEBYSCORE', RATED, ARGV[2], ARGV[3])
for first = 1, #ids, 4000 do  -- HMGET in slices: Lua's unpack has a stack limit
  local slice = {}
  for i = first, math.min(first + 3999, #ids) do slice[#slice + 1] = ids[i] end
  local rows = redis.call('HMGET', QUEUED, unpack(slice))
  for i, row in ipairs(rows) do
    if row then
      local cut = string.find(row, '|[^|]*$')
      if tonumber(string.sub(row, cut + 1)) > now then out[#out + 1] = slice[i] .. '|' .. string.sub(row, 1, cut - 1) end
    end
  end
end
return out
