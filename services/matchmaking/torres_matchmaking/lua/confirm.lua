-- Record the created game on every ticket of a claim, all or nothing.
-- ARGV: prefix, now, result_ttl, claim_id, game_id, game_json, game_ttl, then (id, seat, token) triples.
-- Returns {1} or {0, id_no_longer_held} (the claim was recovered meanwhile: the game is orphaned).
local now, result_ttl, claim, game = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local players = {}
for i = 8, #ARGV, 3 do
  local f = redis.call('HMGET', tkey(ARGV[i]), 'status', 'claim', 'player_id')
  if f[1] ~= 'claimed' or f[2] ~= claim then return {0, ARGV[i]} end
  players[i] = f[3]
end
for i = 8, #ARGV, 3 do
  local id = ARGV[i]  -- already out of every queue since the claim
  redis.call('HSET', tkey(id), 'status', 'matched', 'ended_at', now, 'game_id', game, 'seat', ARGV[i + 1],
    'token', ARGV[i + 2], 'claim', '')
  redis.call('EXPIRE', tkey(id), result_ttl)
  redis.call('ZREM', CLAIMS, id)
  redis.call('ZREM', EXPIRY, id)
  release_player(id, players[i])
end
redis.call('SET', P .. 'g:' .. game, ARGV[6], 'EX', ARGV[7])
return {1}
