--[[
  sched_fire: one scheduler pass's work for some of a partition's schedules: stores each schedule's occurrences in
  the queue and moves the schedule on, in one atomic step, by compare-and-set on the version the scheduler read
  (sched_due.lua). A schedule another scheduler (or an administrator) changed since is left alone, so however many
  schedulers run, each fire time is stored once: fire times only move forward, and an occurrence at or before the
  last fire time is never stored again, even after its message was acked. An occurrence is stored as offer.lua
  stores a fresh message ("D 0 <seq><tail>", due at its due time), unless its id is already in the queue.
  A rate or cron schedule ('r') comes with the fire times the client planned (FirePlan: misfire policy applied) and
  its next fire time. A fixed-delay schedule ('d') is decided here, on the server's clock: while its outstanding
  occurrence is live (its META value is 'D ...') it is looked at again after the poll interval; once that occurrence
  is gone (acked, cancelled, purged) or dead, its next fire time is now + delay; when that time has come its
  occurrence is stored and becomes the outstanding one.

  KEYS[1] pending     ZSET   occurrences are added
  KEYS[2] meta        HASH   read (is an id known; is an outstanding occurrence live) and written for occurrences
  KEYS[3] seq         STRING incremented per occurrence
  KEYS[4] counters    HASH   offered incremented by the occurrences stored (one HINCRBY)
  KEYS[5] sched_msg   HASH   read: the occurrences' tail
  KEYS[6] sched_state HASH   compared and written
  KEYS[7] sched_due   ZSET   each schedule's next look time is set

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[2]           the poll interval, ms: when a fixed-delay schedule with a live occurrence is looked at again
  ARGV[3..]         per schedule, either
                    'r', name, version, next ('-': never again), k, then k times (fire ms, id, due ms), or
                    'd', name, version, delay ms, id, due ms (the id and due time of an occurrence at its stored
                    next fire time)

  Reply: {stored per schedule (-1: its version had moved on, nothing done), mustSignal (1 if an occurrence is due
         now or earlier than the queue's previous head: the client wakes a poller)}.
  Cost: O(m log n) for m occurrences stored, plus O(log s) per schedule.
]]
local PENDING = KEYS[1]
local META = KEYS[2]
local SEQ = KEYS[3]
local COUNTERS = KEYS[4]
local SCHED_MSG = KEYS[5]
local SCHED_STATE = KEYS[6]
local SCHED_DUE = KEYS[7]
-- include: clock, schedule, sched_state, counters
local now = now_ms()
local poll_ms = tonumber(ARGV[2])
local reply = {}
local signal = 0
local i = 3
local offered = 0

local function store(id, due, tail)
    if redis.call('HEXISTS', META, id) == 1 then
        return 0
    end
    if schedule(id, 0, due, now, tail) then
        signal = 1
    end
    return 1
end

while i <= #ARGV do
    local kind, name, version = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
    local s = read_state(name)
    local ok = s and s.version == version and s.paused == '0'
    local stored = 0
    if kind == 'r' then
        local k = tonumber(ARGV[i + 4])
        if ok then
            local tail = redis.call('HGET', SCHED_MSG, name)
            local last = tonumber(s.last) or -1
            local j = i + 5
            for _ = 1, k do
                local fire = tonumber(ARGV[j])
                if fire > last then
                    stored = stored + store(ARGV[j + 1], tonumber(ARGV[j + 2]), tail)
                    last = fire
                    s.last = ARGV[j]
                end
                j = j + 3
            end
            s.next = ARGV[i + 3]
            write_state(name, s)
            if s.next == '-' then
                redis.call('ZREM', SCHED_DUE, name)
            else
                redis.call('ZADD', SCHED_DUE, s.next, name)
            end
        end
        i = i + 5 + 3 * k
    else
        if ok then
            local look = nil
            if s.outstanding ~= '' then
                local v = redis.call('HGET', META, s.outstanding)
                if v and string.byte(v, 1) == 68 then -- 'D': live
                    look = now + poll_ms
                else
                    s.outstanding = ''
                    s.next = string.format('%d', now + tonumber(ARGV[i + 3]))
                    look = tonumber(s.next)
                end
            end
            if s.outstanding == '' and s.next ~= '-' and tonumber(s.next) <= now then
                local tail = redis.call('HGET', SCHED_MSG, name)
                if tonumber(s.next) > (tonumber(s.last) or -1) then
                    stored = store(ARGV[i + 4], tonumber(ARGV[i + 5]), tail)
                end
                s.outstanding = ARGV[i + 4]
                s.last = s.next
                s.next = '-'
                look = now + poll_ms
            end
            if look then
                write_state(name, s)
                redis.call('ZADD', SCHED_DUE, look, name)
            end
        end
        i = i + 6
    end
    if ok then
        offered = offered + stored
        reply[#reply + 1] = stored
    else
        reply[#reply + 1] = -1
    end
end
count_events('offered', offered)
reply[#reply + 1] = signal
return reply
