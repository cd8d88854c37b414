--[[
  cold_keys: the names of the compact store's fixed keys (cold.lua), all in the partition's hash tag: its prefix is
  PENDING's key without "pending". A chunk's key is that prefix and "c:<name>", an index shard's "x:<number>".
]]
-- per call {
local COLD_BASE = string.sub(PENDING, 1, #PENDING - 7) -- PENDING is <prefix>pending
local COLD = COLD_BASE .. 'cold'
local CHUNKS = COLD_BASE .. 'chunks'
local OPEN = COLD_BASE .. 'open'
local PLACED = COLD_BASE .. 'placed'
-- per call }
