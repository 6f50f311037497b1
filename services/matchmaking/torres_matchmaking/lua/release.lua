-- Put claimed tickets back into their queues unharmed (the game could not be created).
-- Only tickets still held by this claim move ("*" = any claim: recovery of a dead matcher's claims).
-- ARGV: prefix, claim_id, id1, id2, ...   Returns the number of tickets re-queued.
local claim, n = ARGV[2], 0
for i = 3, #ARGV do
  local id = ARGV[i]
  local f = redis.call('HMGET', tkey(id), 'status', 'claim')
  if f[1] == 'claimed' and (claim == '*' or f[2] == claim) then
    redis.call('HSET', tkey(id), 'status', 'queued')
    redis.call('HDEL', tkey(id), 'claim', 'claimed_at')
    redis.call('HINCRBY', tkey(id), 'attempts', 1)
    requeue(id)
    n = n + 1
  end
  if f[1] ~= 'claimed' or claim == '*' or f[2] == claim then redis.call('ZREM', CLAIMS, id) end
end
return n
