--[[
  ack_poll: acks m deliveries as ack.lua does, then takes up to m due messages as poll.lua does, in one call: a
  worker's handler that finished a job settles it and takes its next (m >= 1: a group commit of concurrent handlers
  of this partition). The acks run first, so a message acked here is never taken again here.

  KEYS[1] pending   ZSET   due messages are taken from its head; the sweep reschedules into it
  KEYS[2] inflight  ZSET   the acked deliveries' members are removed, the taken ones added
  KEYS[3] dead      ZSET   the sweep buries into it
  KEYS[4] meta      HASH   the acked messages' fields are deleted; the taken messages' values are read
  KEYS[5] reason    HASH   written by the sweep for what it buries
  KEYS[6] seq       STRING incremented by the sweep
  KEYS[7] lost      STRING incremented per message found with its state evicted
  KEYS[8] counters  HASH   acked incremented by the messages acked, delivered by those taken; retried and dead by
                           the sweep (one HINCRBY each at most)
  KEYS[9] paused    STRING read (with ORDERED, ready.lua, and GROUPED, groups.lua) by one MGET before the acks: while
                           it exists nothing is taken (pause.lua)
  KEYS[10] signal   LIST   pushed to pass a wake-up on when more is ready (absent in a cluster's other partitions)
  (REVOKED, the partition's <prefix>revoked: read for acked deliveries whose message is gone, written by the sweep:
  revoked.lua)

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": maxAttempts
  ARGV[2]           sweep limit: at most this many expired deliveries are handled
  ARGV[3]           visibility ms of the taken messages
  ARGV[4]           n: at most this many messages are taken
  ARGV[2 + 3j]      id of acked delivery j, for j = 1..m
  ARGV[3 + 3j]      its in-flight member <receipt as 16 hex digits><id>
  ARGV[4 + 3j]      its message's group as the delivery read it, '' for none (ack.lua)

  Reply: {code1, ..., codem, <poll.lua's reply>}: ack.lua's code per delivery, then poll.lua's reply for n.
  Cost: ack.lua's plus poll.lua's, in one round trip.
]]
local PENDING = KEYS[1]
local INFLIGHT = KEYS[2]
local DEAD = KEYS[3]
local META = KEYS[4]
local REASON = KEYS[5]
local SEQ = KEYS[6]
local LOST = KEYS[7]
local COUNTERS = KEYS[8]
local PAUSED = KEYS[9]
local SIGNAL = KEYS[10]
-- include: ack_held, take_due, groups, group_keys, ready_keys
-- The poll's flags, read first: in a grouped partition the acks take the group settings from them (groups.lua).
local flags = redis.call('MGET', PAUSED, ORDERED, GROUPED)
if flags[3] then
    group_settings(flags[3])
end
local result = ack_held(5)
local m = #result
local taken = take_due(tonumber(ARGV[4]), ARGV[2], tonumber(ARGV[3]), nil, flags)
for i = 1, #taken do
    result[m + i] = taken[i]
end
return result
