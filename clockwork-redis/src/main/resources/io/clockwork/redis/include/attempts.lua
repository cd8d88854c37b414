--[[
  attempts: the queue's maxAttempts, ARGV[1] of every script that takes a partition's keys.
]]
local MAX_ATTEMPTS = tonumber(ARGV[1])

local function max_attempts_reason()
    return string.format('maxAttempts (%d) reached', MAX_ATTEMPTS)
end
