-- Read one pool (edition, master) in one round trip: every queued, unexpired ticket in any of its
-- queues, once, as "id|player_id|rating|counts|created_at|max_wait". Read-only apart from dropping
-- queue entries whose ticket hash has already expired away.
-- ARGV: prefix, now, edition, master.
local now, seen, out = tonumber(ARGV[2]), {}, {}
for n = 2, 4 do
  local q = P .. 'q:' .. ARGV[3] .. ':' .. ARGV[4] .. ':' .. n
  for _, id in ipairs(redis.call('ZRANGE', q, 0, -1)) do
    if not seen[id] then
      seen[id] = true
      local f = redis.call('HMGET', tkey(id), 'status', 'expires_at', 'player_id', 'rating', 'counts',
        'created_at', 'max_wait')
      if not f[1] then
        redis.call('ZREM', q, id)
      elseif f[1] == 'queued' and tonumber(f[2]) > now then
        out[#out + 1] = id .. '|' .. f[3] .. '|' .. f[4] .. '|' .. f[5] .. '|' .. f[6] .. '|' .. f[7]
      end
    end
  end
end
return out
