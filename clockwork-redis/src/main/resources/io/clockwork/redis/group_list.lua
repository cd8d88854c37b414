--[[
  group_list: the partition's groups with ready or in-flight messages (groups.lua), for largestGroups: every group
  in RING, in GWAIT and in GFLIGHT, at most LIST_LIMIT of each, with the messages in its ready set and its deliveries
  in flight. A due message joins its group's set at the partition's next poll (or at once when offered due), so it
  counts from then on. Reads only.

  KEYS[1] pending   ZSET   names RING, GWAIT, GFLIGHT and the groups' sets (group_keys.lua)
  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used

  Reply: {group1, ready1, inFlight1, ...}, each group once, in no particular order.
  Cost: O(g log n), g the groups listed: a ZRANGE of RING and of GWAIT, an HSCAN of GFLIGHT, then a ZCARD and an
        HGET per group.
]]
local PENDING = KEYS[1]
-- include: group_keys
local LIST_LIMIT = 10000
local seen = {}
local names = {}
local function add(g)
    if g ~= '' and not seen[g] then
        seen[g] = true
        names[#names + 1] = g
    end
end
for _, key in ipairs({RING, GWAIT}) do
    local members = redis.call('ZRANGE', key, '0', string.format('%d', LIST_LIMIT - 1))
    for i = 1, #members do
        add(members[i])
    end
end
local flight = redis.call('HSCAN', GFLIGHT, '0', 'COUNT', string.format('%d', LIST_LIMIT))[2]
for i = 1, #flight, 2 do
    add(flight[i])
end
local result = {}
for i = 1, #names do
    local g = names[i]
    result[3 * i - 2] = g
    result[3 * i - 1] = redis.call('ZCARD', GROUP_PREFIX .. g)
    result[3 * i] = tonumber(redis.call('HGET', GFLIGHT, g) or '0')
end
return result
