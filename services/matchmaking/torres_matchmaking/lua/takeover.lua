-- Take a due group (a retry, or a dead or stalled matcher's) for placing: push its due time on, but
-- only if it is still due, so one matcher at a time places it (safety does not depend on that: every
-- attempt asks for the same game). KEYS: claims, group.   ARGV: now, group_id, next_due.
-- Returns {state, tickets, players, seats, tenants (comma-separated tenant segments; false for a group claimed before
-- groups carried their tenants)} or false.
local due = redis.call('ZSCORE', KEYS[1], ARGV[2])
if not due or tonumber(due) > tonumber(ARGV[1]) then return false end
local g = redis.call('HMGET', KEYS[2], 'state', 'tickets', 'players', 'seats', 'tenants')
if not g[1] then
  redis.call('ZREM', KEYS[1], ARGV[2])
  return false
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
return g
