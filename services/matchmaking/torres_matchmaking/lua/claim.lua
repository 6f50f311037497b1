-- Claim a whole group for one game, all or nothing: every ticket must still be queued and unexpired.
-- The group gets an id that outlives this matcher: its game's Idempotency-Key derives from it and its
-- seating is stored with it, so whoever places the group later — this matcher retrying, another taking
-- over after a crash or a timeout — asks the game service for the very same game.
-- Every ticket must also share the first one's scope: whatever a matcher formed, players of tenants that are not
-- in one pool never get one game.
-- KEYS: pool keys, group, ticket1, ticket2, ...
-- ARGV: now, group_id, due (when another matcher may take over), seats_json, group_ttl, id1, id2, ...
-- Each human seat of seats_json gets its ticket's name (the player token's name claim) as its display_name, so the
-- group's stored seating -- what every placement of it sends the game service -- carries the players' names.
-- Returns {1, tenants, seats_json} (the tickets' tenant segments, comma-separated, in their order, and the seating
-- with the names) or {0, first_unavailable_id, its_status} (its status 'scope' when its scope differs).
local now, gid = ARGV[1], ARGV[2]
local ids, players, tenants, names, scope = {}, {}, {}, {}, nil
for i = 6, #ARGV do
  local f = redis.call('HMGET', KEYS[i + 1], 'status', 'expires_at', 'player_id', 'scope', 'tenant', 'name')
  if not is_live_queued(f, now) then return {0, ARGV[i], f[1] or 'missing'} end
  local s = f[4] or 'default'
  scope = scope or s
  if s ~= scope then return {0, ARGV[i], 'scope'} end
  ids[#ids + 1] = ARGV[i]
  players[#players + 1] = f[3]
  tenants[#tenants + 1] = f[5] or 'default'
  if f[6] and f[6] ~= '' then names[f[3]] = f[6] end
end
local seats = ARGV[4]
if next(names) ~= nil then
  local seating = cjson.decode(seats)
  for _, seat in ipairs(seating) do
    if seat.kind == 'human' and names[seat.player_id] then seat.display_name = names[seat.player_id] end
  end
  seats = cjson.encode(seating)
end
for i = 6, #ARGV do
  unqueue(ARGV[i])
  redis.call('HSET', KEYS[i + 1], 'status', 'claimed', 'group', gid, 'claimed_at', now)
end
redis.call('HSET', KEYS[6], 'state', 'claimed', 'tickets', table.concat(ids, ','),
  'players', table.concat(players, ','), 'tenants', table.concat(tenants, ','), 'seats', seats,
  'created_at', now)
redis.call('EXPIRE', KEYS[6], ARGV[5])
redis.call('ZADD', CLAIMS, ARGV[3], gid)
return {1, table.concat(tenants, ','), seats}
