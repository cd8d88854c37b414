--[[
  attempts: the queue's maxAttempts, the first word of ARGV[1] of every script that takes a partition's keys
  ("<maxAttempts> <dead-letter max age ms> <max count>", see retention.lua).
]]
-- per call {
local MAX_ATTEMPTS = tonumber(string.match(ARGV[1], '^%d+'))
-- per call }

local function max_attempts_reason()
    return string.format('maxAttempts (%d) reached', MAX_ATTEMPTS)
end
