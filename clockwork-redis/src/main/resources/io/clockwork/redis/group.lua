--[[
  group: marks the partition grouped (groups.lua): from then on its polls file due messages in their groups' ready
  sets and take them round robin between groups. A client runs it before its first offer of a message with a group to
  the partition; a client built with group options runs it on every partition when it is built, with the options,
  which replace the ones stored (the last client built with options sets them for every client), in GCONF and in
  GROUPED's value (group_settings). Idempotent.

  KEYS[1] pending   ZSET   names GROUPED, GCONF, GFLIGHT, GWAIT, RING, READY and the groups' sets (group_keys.lua)
  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[2]           mode: '' to mark the partition only, '1' to store the group options that follow as well
  ARGV[3..]         the options as field, value pairs of GCONF: max, rate "<permits> <interval ms>", weighted 1 and
                    w:<group> <weight>

  Reply: 1.
  Cost: O(log n) to mark (the first mark brings the messages without a group already in READY into the turns);
        storing options O(w + f log n), w the weights, f the groups with deliveries in flight (and, without a rate
        limit, those waiting for a permit), each brought in line with the new options (groups.lua's group_sync).
]]
local PENDING = KEYS[1]
-- include: group_keys, groups
local first
if ARGV[2] == '1' then
    -- GROUPED's value copies max, rate and weighted (group_settings): "2 <max> <permits> <interval ms> <weighted>".
    local given = {max = '0', rate = '0 0', weighted = '0'}
    for i = 3, #ARGV, 2 do
        if given[ARGV[i]] then
            given[ARGV[i]] = ARGV[i + 1]
        end
    end
    local copy = NO_SETTINGS
    if #ARGV > 2 then
        copy = NO_SETTINGS .. ' ' .. given.max .. ' ' .. given.rate .. ' ' .. given.weighted
    end
    first = redis.call('SET', GROUPED, copy, 'GET') == false
else
    first = redis.call('SET', GROUPED, NO_SETTINGS, 'NX')
end
if first then
    group_sync('') -- messages without a group in READY before the mark take their turn from now on
end
if ARGV[2] == '1' then
    redis.call('DEL', GCONF)
    if #ARGV > 2 then
        redis.call('HSET', GCONF, unpack(ARGV, 3))
    end
    group_conf = false -- read the new options
    -- A group with deliveries in flight may be at the old limit and out of RING, or below the new one; without a
    -- rate limit no group waits for a permit.
    local flight = redis.call('HKEYS', GFLIGHT)
    if not group_settings().permits then
        local waiting = redis.call('ZRANGE', GWAIT, '0', '-1')
        redis.call('DEL', GWAIT)
        for i = 1, #waiting do
            flight[#flight + 1] = waiting[i]
        end
    end
    for i = 1, #flight do
        group_sync(flight[i])
    end
end
return 1
