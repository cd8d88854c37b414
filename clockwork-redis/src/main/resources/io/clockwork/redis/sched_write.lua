--[[
  sched_write: creates, updates or deletes a schedule by compare-and-set on its version, so that an administrator's
  change and a scheduler's pass never interleave: whichever acts on a state another already changed does nothing and
  reads again. The client computes the new state (next fire time from the rule) from what sched_get.lua returned.

  KEYS[1] sched_def   HASH   written or deleted
  KEYS[2] sched_msg   HASH   written or deleted
  KEYS[3] sched_state HASH   compared, written or deleted
  KEYS[4] sched_due   ZSET   the schedule's look time is set or removed

  ARGV[1]           the name
  ARGV[2]           the version read ('' if the schedule must not exist yet)
  ARGV[3]           operation: 'put' or 'delete'
  ARGV[4]           put: the def "<rule>\n<misfire>\n<spread ms>"
  ARGV[5]           put: the tail
  ARGV[6]           put: paused, '0' or '1'
  ARGV[7]           put: the next fire time, epoch ms, or '-'
  ARGV[8]           put: the last fire time, or '-'
  ARGV[9]           put: the outstanding occurrence id, or ''
  ARGV[10]          put: when a scheduler should look at it (ms), '' to remove it from SCHED_DUE, '=' to keep
                    its look time as it is

  Reply: the new version (1 for a deleted schedule), or 0 if the version did not match (nothing changed).
  Cost: O(log s), s the partition's schedules.
]]
local SCHED_DEF = KEYS[1]
local SCHED_MSG = KEYS[2]
local SCHED_STATE = KEYS[3]
local SCHED_DUE = KEYS[4]
-- include: sched_state
local name = ARGV[1]
local s = read_state(name)
if ARGV[2] == '' then
    if s then
        return 0
    end
    s = {version = 0}
elseif not s or s.version ~= tonumber(ARGV[2]) then
    return 0
end
if ARGV[3] == 'delete' then
    redis.call('HDEL', SCHED_DEF, name)
    redis.call('HDEL', SCHED_MSG, name)
    redis.call('HDEL', SCHED_STATE, name)
    redis.call('ZREM', SCHED_DUE, name)
    return 1
end
redis.call('HSET', SCHED_DEF, name, ARGV[4])
redis.call('HSET', SCHED_MSG, name, ARGV[5])
s.paused = ARGV[6]
s.next = ARGV[7]
s.last = ARGV[8]
s.outstanding = ARGV[9]
write_state(name, s)
if ARGV[10] == '' then
    redis.call('ZREM', SCHED_DUE, name)
elseif ARGV[10] ~= '=' then
    redis.call('ZADD', SCHED_DUE, ARGV[10], name)
end
return s.version
