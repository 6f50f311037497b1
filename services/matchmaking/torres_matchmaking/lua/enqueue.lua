-- Write a new ticket as "pending": not matchable until `activate`, after its player's pointer is set.
-- KEYS: pool keys, ticket.   ARGV: id, player_id, edition, master, counts, rating, sigma, max_wait,
--       created_at, expires_at, key_ttl, callback_url, tenant (store.tenant_segment), scope (whom the ticket may meet: store.scope_of),
--       name (the player token's name claim, or empty: the seat's display name once matched).
local t = KEYS[6]
redis.call('HSET', t, 'id', ARGV[1], 'player_id', ARGV[2], 'edition', ARGV[3], 'master', ARGV[4],
  'counts', ARGV[5], 'rating', ARGV[6], 'sigma', ARGV[7], 'max_wait', ARGV[8], 'created_at', ARGV[9],
  'expires_at', ARGV[10], 'status', 'pending', 'attempts', 0, 'callback_url', ARGV[12], 'tenant', ARGV[13],
  'scope', ARGV[14], 'name', ARGV[15] or '')
redis.call('EXPIRE', t, ARGV[11])
return 1
