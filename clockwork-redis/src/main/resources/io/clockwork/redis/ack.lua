--[[
  ack: deletes each of m acked messages if its delivery still holds it (m >= 1: a group commit of concurrent acks to
  this partition, or one partition's share of an ackAll batch). A delivery holds its message exactly while its member
  <receipt><id> is in INFLIGHT: a receipt belongs to one delivery, and the member leaves INFLIGHT when the message is
  acked, cancelled, nacked, buried or expired. Lua builds no string here.

  KEYS[1] pending   ZSET   names REVOKED, the partition's <prefix>revoked (revoked.lua)
  KEYS[2] inflight  ZSET   the held deliveries' members are removed
  KEYS[3] meta      HASH   the acked messages' fields are deleted; read for the deliveries not held
  KEYS[4] seq       STRING read (EXISTS) for deliveries whose message is gone
  KEYS[5] counters  HASH   acked incremented by the messages deleted (one HINCRBY)
  KEYS[6] signal    LIST   pushed when an ack frees a slot of a group with ready messages (absent in a cluster's
                           other partitions: a waiting poller then finds it at its next recheck)
  (a grouped partition's GFLIGHT, RING and the groups' sets: groups.lua; an acked delivery of a named group, whose
  visibility deadline ends in a half millisecond, frees its group's slot)

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[3j-1]        id of delivery j, for j = 1..m
  ARGV[3j]          its in-flight member <receipt as 16 hex digits><id>
  ARGV[3j+1]        its message's group as the delivery read it (the header clockwork-group), '' for none

  Reply: {code1, ..., codem}, per delivery 1 if its message is deleted now, 2 if the message no longer exists and
         the delivery's hold was never revoked (REVOKED: revoked.lua), so that only its own ack can have deleted it (a
         retried ack whose first attempt ran counts that as done), 0 if another delivery holds it, the delivery's hold
         was revoked (its visibility deadline passed, or it was cancelled) or the queue was deleted.
  Cost: O(m log n); commands: for one delivery that holds its message ZREM, HDEL and HINCRBY; otherwise ZMSCORE
        (for one delivery, after its ZREM), and if any is deleted one ZREM, one HDEL and one HINCRBY; for those not
        held one HMGET (gone, or held by another delivery?), and for those gone one EXISTS and one ZMSCORE of REVOKED;
        for deliveries of named groups an HINCRBY per delivery and one HMGET of the group settings (groups.lua).
]]
local PENDING = KEYS[1]
local INFLIGHT = KEYS[2]
local META = KEYS[3]
local SEQ = KEYS[4]
local COUNTERS = KEYS[5]
local SIGNAL = KEYS[6]
-- include: ack_held
return ack_held(2)
