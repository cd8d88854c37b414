--[[
  keep: a META field no message can have (ids are never empty) whose value is longer than hash-max-listpack-value
  (64 by default). Written along with other fields of META, it keeps the hash in hashtable encoding, so small queues
  get O(1) field access instead of listpack scans, and the hash is not deleted and recreated each time the queue runs
  empty. Counts of META leave it out.
  KEEP_MEMBER is the same for the PENDING and INFLIGHT sorted sets: a member no message can have (members start with
  16 hex digits), longer than zset-max-listpack-value, scored +inf (never due, never expired), added with every ZADD
  into them. It keeps them in skiplist encoding and never empty, so Redis does not build them as listpacks and
  convert them again each time a partition drains and refills (a cost that grows with the number of partitions).
  Reads leave it out with an exclusive '(+inf' bound, and counts with ZCOUNT -inf (+inf.
  The hot writes (a fresh offer into PENDING and META, a take into INFLIGHT) add them only on every KEEP_EVERY-th
  number of a count they advance anyway (SEQ, delivered), the first number among them: nothing but a deletion of the
  key removes them, so a key deleted (a purge, a DEL by hand) gets them back within KEEP_EVERY writes, and the other
  writes pass no more arguments than their messages'.
]]
local KEEP_FIELD = ''
local KEEP_VALUE = 'clockwork: keeps this hash in hashtable encoding (longer than hash-max-listpack-value)'
local KEEP_MEMBER = '~clockwork: keeps this sorted set in skiplist encoding (longer than zset-max-listpack-value)'
local KEEP_EVERY = 128

-- Whether a hot write that advanced a count from `was` to `now_count` (now_count > was) adds the keep entries: when
-- the count passed 1 or a multiple of KEEP_EVERY.
local function keeps(was, now_count)
    return was == 0 or math.floor(was / KEEP_EVERY) ~= math.floor(now_count / KEEP_EVERY)
end
