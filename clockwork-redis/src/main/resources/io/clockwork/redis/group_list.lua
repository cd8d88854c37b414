--[[
  group_list: the partition's groups with ready or in-flight messages (groups.lua), for largestGroups: every group
  in RING, in GWAIT and in GFLIGHT, at most 10,000 of each (group_names.lua), with the messages in its ready set and its deliveries
  in flight. A due message joins its group's set at the partition's next poll (or at once when offered due), so it
  counts from then on. Reads only.

  KEYS[1] pending   ZSET   names RING, GWAIT, GFLIGHT and the groups' sets (group_keys.lua)
  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used

  Reply: {group1, ready1, inFlight1, ...}, each group once, in no particular order.
  Cost: O(g log n), g the groups listed: a ZRANGE of RING and of GWAIT, an HSCAN of GFLIGHT, then a ZCARD and an
        HGET per group.
]]
local PENDING = KEYS[1]
-- include: group_keys, group_names
local names = group_names(10000)
local result = {}
for i = 1, #names do
    local g = names[i]
    result[3 * i - 2] = g
    result[3 * i - 1] = redis.call('ZCARD', GROUP_PREFIX .. g)
    result[3 * i] = tonumber(redis.call('HGET', GFLIGHT, g) or '0')
end
return result
