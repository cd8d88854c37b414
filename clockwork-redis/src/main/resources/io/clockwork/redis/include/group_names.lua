--[[
  group_names: the partition's named groups that have ready messages or deliveries in flight (groups.lua): every
  group with ready messages is in RING, waits in GWAIT or is at its in-flight limit in GFLIGHT. For operators' reads
  (largestGroups, the browser), bounded: at most `limit` from each of the three.
]]
-- include: group_keys

-- The names, each once, in RING's turn order, then GWAIT's, then GFLIGHT's.
local function group_names(limit)
    local seen, names = {}, {}
    local function add(g)
        if g ~= '' and not seen[g] then
            seen[g] = true
            names[#names + 1] = g
        end
    end
    for _, key in ipairs({RING, GWAIT}) do
        for _, g in ipairs(redis.call('ZRANGE', key, '0', string.format('%d', limit - 1))) do
            add(g)
        end
    end
    local flight = redis.call('HSCAN', GFLIGHT, '0', 'COUNT', string.format('%d', limit))[2]
    for i = 1, #flight, 2 do
        add(flight[i])
    end
    return names
end
