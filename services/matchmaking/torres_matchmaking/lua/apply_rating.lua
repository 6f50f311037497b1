-- Advance the ratings consumer and apply one game's rating changes in one atomic step, guarded by
-- the stored position (compare-and-set) and the set of games already rated: each game counts once.
-- KEYS: position, rated games, leaderboard, then one rating key per player.
-- ARGV: expected_position, new_position, game_id ('' = only advance), then
--       (player_id, mu, sigma, ordinal) quadruples in the order of the rating keys.
-- Returns {1} applied, {2} game already rated (position advanced), {0, stored_position} CAS failed.
local POS, RATED, BOARD = KEYS[1], KEYS[2], KEYS[3]
local stored = redis.call('GET', POS) or '0'
if stored ~= ARGV[1] then return {0, stored} end
redis.call('SET', POS, ARGV[2])
local game = ARGV[3]
if game == '' then return {1} end
if redis.call('SISMEMBER', RATED, game) == 1 then return {2} end
for i = 4, #ARGV, 4 do
  local key = KEYS[4 + (i - 4) / 4]
  redis.call('HSET', key, 'mu', ARGV[i + 1], 'sigma', ARGV[i + 2])
  redis.call('HINCRBY', key, 'games', 1)
  redis.call('ZADD', BOARD, ARGV[i + 3], ARGV[i])
end
redis.call('SADD', RATED, game)
return {1}
