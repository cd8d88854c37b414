--[[
  cold_keys: the names of the compact store's fixed keys (cold.lua), all in the partition's hash tag: its prefix is
  PENDING's key without "pending". A chunk's key is that prefix and "c:<name>", an index shard's "x:<number>".
]]
local COLD_BASE
local COLD
local CHUNKS
local OPEN
local PLACED
local cold_keys_of -- the PENDING key the names were built for: a function library builds them when it changes
-- per call {
if PENDING ~= cold_keys_of then
    cold_keys_of = PENDING
    COLD_BASE = string.sub(PENDING, 1, #PENDING - 7) -- PENDING is <prefix>pending
    COLD = COLD_BASE .. 'cold'
    CHUNKS = COLD_BASE .. 'chunks'
    OPEN = COLD_BASE .. 'open'
    PLACED = COLD_BASE .. 'placed'
end
-- per call }
