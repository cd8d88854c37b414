--[[
  member: a message's member in PENDING, INFLIGHT and DEAD is <seq as 16 hex digits><id>. Members sort by score,
  then bytewise, so the fixed-width sequence prefix keeps equal due times in offer order.
]]

local function member(seq, id)
    return string.format('%016x', seq) .. id
end

local function id_of(m)
    return string.sub(m, 17)
end

-- Whether a META value whose sequence is seq belongs to member m (the same scheduling: m's prefix is its seq).
local function owns(m, seq)
    return seq ~= nil and tonumber(string.sub(m, 1, 16), 16) == seq
end
