--[[
  ready_keys: the names of the priority order's keys (ready.lua), in the partition's hash tag: READY and ORDERED,
  PENDING's key with "ready" and "ordered" for "pending", and the span of one priority's scores.
]]
local READY
local ORDERED
local ready_of -- the PENDING key the names were built for: a function library builds them when it changes
-- per call {
if PENDING ~= ready_of then
    ready_of = PENDING
    READY = string.sub(PENDING, 1, #PENDING - 7) .. 'ready' -- PENDING is <prefix>pending
    ORDERED = string.sub(PENDING, 1, #PENDING - 7) .. 'ordered'
end
-- per call }
local PRIORITY_SPAN = 4398046511104 -- 2^42: one priority's span of due times, in ms
