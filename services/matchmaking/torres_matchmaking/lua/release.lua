-- End a group without a game (the game service refused it, or a cancel dissolved it and its game, if
-- any, has been aborted): its tickets still held go back to matching unharmed, under a new group later.
-- KEYS: pool keys, group, ticket1, ...   ARGV: group_id, final_state.   Returns the number re-queued.
local gid, n = ARGV[1], 0
for i = 7, #KEYS do
  local f = redis.call('HMGET', KEYS[i], 'status', 'group', 'id')
  if f[1] == 'claimed' and f[2] == gid then
    redis.call('HSET', KEYS[i], 'status', 'queued')
    redis.call('HDEL', KEYS[i], 'group', 'claimed_at')
    redis.call('HINCRBY', KEYS[i], 'attempts', 1)
    requeue(KEYS[i], f[3])
    n = n + 1
  end
end
redis.call('HSET', KEYS[6], 'state', ARGV[2])
redis.call('ZREM', CLAIMS, gid)
return n
