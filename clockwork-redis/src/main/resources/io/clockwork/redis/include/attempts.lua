--[[
  attempts: the queue's maxAttempts, the first word of ARGV[1] of every script that takes a partition's keys
  ("<maxAttempts> <dead-letter max age ms> <max count>", see retention.lua).
]]
local MAX_ATTEMPTS
local max_attempts_of -- the settings word it was read from: a function library reads it again when it changes
-- per call {
if ARGV[1] ~= max_attempts_of then
    max_attempts_of = ARGV[1]
    MAX_ATTEMPTS = tonumber(string.match(ARGV[1], '^%d+'))
end
-- per call }

local function max_attempts_reason()
    return string.format('maxAttempts (%d) reached', MAX_ATTEMPTS)
end
