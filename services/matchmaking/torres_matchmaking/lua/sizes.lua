-- How many queued tickets of one scope would take a 2-, 3- and 4-player game in this pool.
-- KEYS: pool keys.   ARGV: scope (the last field of a row).   Returns {n2, n3, n4}.
local n = {0, 0, 0}
for _, row in ipairs(redis.call('HVALS', QUEUED)) do
  local counts, scope = string.match(row, '^[^|]*|[^|]*|([^|]*)|.*|([^|]*)$')
  if scope == ARGV[1] then
    for c in string.gmatch(counts, '%d') do n[tonumber(c) - 1] = n[tonumber(c) - 1] + 1 end
  end
end
return n
