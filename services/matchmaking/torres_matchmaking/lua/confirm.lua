-- Record a group's game on its tickets, all or nothing; idempotent (a second matcher that got the same
-- game from the game service is told it is already recorded).
-- KEYS: pool keys, group, ticket1, ...   ARGV: now, result_ttl, group_id, game_id, then (seat, token) per
-- ticket in the group's order.
-- Returns {1} recorded, {2} already recorded, {0, state} the group is dissolved (the game is an orphan).
local now, result_ttl, gid, game = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local g = redis.call('HMGET', KEYS[6], 'state', 'game_id')
if g[1] == 'confirmed' and g[2] == game then return {2} end
if g[1] ~= 'claimed' then return {0, g[1] or 'missing'} end
local fields = {}
for i = 7, #KEYS do
  local f = redis.call('HMGET', KEYS[i], 'status', 'group', 'id', 'callback_url')
  if f[1] ~= 'claimed' or f[2] ~= gid then return {0, 'ticket ' .. (f[1] or 'missing')} end
  fields[i] = f
end
for i = 7, #KEYS do
  local j = 5 + 2 * (i - 7)
  finish(KEYS[i], fields[i][3], 'matched', now, result_ttl, fields[i][4], false,
    'game_id', game, 'seat', ARGV[j], 'token', ARGV[j + 1])
end
redis.call('HSET', KEYS[6], 'state', 'confirmed', 'game_id', game)
redis.call('ZREM', CLAIMS, gid)
return {1}
