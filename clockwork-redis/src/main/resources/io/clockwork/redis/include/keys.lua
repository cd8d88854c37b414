--[[
  keys: names for a partition's keys. Every script that takes a partition's keys gets them all, in this order
  (KeyLayout), all in the partition's hash tag except SIGNAL.
]]
local PENDING = KEYS[1]   -- ZSET  member <seq:16 hex><id>, score due time (server ms): delayed and ready messages
local INFLIGHT = KEYS[2]  -- ZSET  member <seq:16 hex><id>, score visibility deadline (server ms)
local DEAD = KEYS[3]      -- ZSET  member <seq:16 hex><id>, score time of death (server ms)
local META = KEYS[4]      -- HASH  id -> "<state> <attempts> <seq>:<payload>", see meta.lua
local REASON = KEYS[5]    -- HASH  id -> why it died
local SEQ = KEYS[6]       -- STRING per-partition counter: FIFO tie-break within a due time, and delivery receipts
local LOST = KEYS[7]      -- STRING messages found with part of their state evicted by Redis, and dropped
local COUNTERS = KEYS[8]  -- HASH  offered, delivered, acked, retried, dead: cumulative event counts, see counters.lua
local SIGNAL = KEYS[9]    -- LIST  wake-up for blocked pollers; nil when it lives in another cluster slot
