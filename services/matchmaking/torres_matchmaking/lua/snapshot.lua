-- Read one pool in one round trip: every queued, unexpired ticket as
-- "id|player_id|rating|counts|created_at|max_wait" (the rows `requeue` wrote). Read-only.
-- KEYS: pool keys.   ARGV: now.
local now, out = tonumber(ARGV[1]), {}
local rows = redis.call('HGETALL', QUEUED)
for i = 1, #rows, 2 do
  local row = rows[i + 1]
  local cut = string.find(row, '|[^|]*$')
  if tonumber(string.sub(row, cut + 1)) > now then out[#out + 1] = rows[i] .. '|' .. string.sub(row, 1, cut - 1) end
end
return out
