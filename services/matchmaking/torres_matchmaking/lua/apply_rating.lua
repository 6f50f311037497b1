-- Advance the ratings consumer and apply one game's rating changes in one atomic step, guarded by
-- the stored position (compare-and-set) and the set of games already rated: each game counts once.
-- KEYS: position, rated games, then per player its rating key and its tenant's leaderboard (a game of the
--       shared pool has players of several tenants; each tenant has its own board).
-- ARGV: expected_position, new_position, game_id ('' = only advance), then
--       (player_id, mu, sigma, ordinal) quadruples in the order of the players' keys.
-- Returns {1} applied, {2} game already rated (position advanced), {0, stored_position} CAS failed.
local POS, RATED = KEYS[1], KEYS[2]
local stored = redis.call('GET', POS) or '0'
if stored ~= ARGV[1] then return {0, stored} end
redis.call('SET', POS, ARGV[2])
local game = ARGV[3]
if game == '' then return {1} end
if redis.call('SISMEMBER', RATED, game) == 1 then return {2} end
for i = 4, #ARGV, 4 do
  local n = (i - 4) / 4
  local key, board = KEYS[3 + 2 * n], KEYS[4 + 2 * n]
  redis.call('HSET', key, 'mu', ARGV[i + 1], 'sigma', ARGV[i + 2])
  redis.call('HINCRBY', key, 'games', 1)
  redis.call('ZADD', board, ARGV[i + 3], ARGV[i])
end
redis.call('SADD', RATED, game)
return {1}
