--[[
  dead_list: lists the oldest dead letters after sweeping expired deliveries and trimming dead letters beyond the
  retention (retention.lua). A dead letter whose state was evicted
  is removed and counted lost (see lost.lua), so the list may be shorter than `limit`.

  KEYS[1] pending   ZSET   the sweep reschedules expired deliveries into it
  KEYS[2] inflight  ZSET   the sweep reads and removes expired deliveries
  KEYS[3] dead      ZSET   read, oldest first; the sweep buries into it; members without state are removed
  KEYS[4] meta      HASH   read; written by the sweep
  KEYS[5] reason    HASH   read; written by the sweep
  KEYS[6] seq       STRING incremented by the sweep
  KEYS[7] lost      STRING incremented per message found with its state evicted
  KEYS[8] counters  HASH   retried and dead incremented by the sweep (one HINCRBY each at most)
  (REVOKED, the partition's <prefix>revoked: the sweep records the deliveries it expires, revoked.lua)

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": maxAttempts
  ARGV[2]           sweep limit: at most this many expired deliveries are handled
  ARGV[3]           limit: how many dead letters to list

  Reply: {id1, tail1, attempts1, reason1, diedAtMs1, id2, ...}: five elements per dead letter, oldest first; tail
         is "[#<h>#<headers>]:<payload>" (see meta.lua), from which the client reads headers and payload; attempts
         is how many deliveries it had, diedAtMs its time of death (server ms).
  Cost: O((2 sweep limit + limit) log n): the sweep, a retention trim of at most the sweep limit, the list.
]]
local PENDING = KEYS[1]
local INFLIGHT = KEYS[2]
local DEAD = KEYS[3]
local META = KEYS[4]
local REASON = KEYS[5]
local SEQ = KEYS[6]
local LOST = KEYS[7]
local COUNTERS = KEYS[8]
-- include: clock, member, meta, lost, sweep, retention
local now = now_ms()
sweep(now, ARGV[2])
trim_dead(now, tonumber(ARGV[2]))
local dead = redis.call('ZRANGE', DEAD, 0, tonumber(ARGV[3]) - 1, 'WITHSCORES')
local result = {}
for i = 1, #dead, 2 do
    local m = dead[i]
    local id = id_of(m)
    local state, attempts, seq, tail = get_meta(id)
    if state ~= 'X' or not owns(m, seq) then
        redis.call('ZREM', DEAD, m)
        lose()
    else
        result[#result + 1] = id
        result[#result + 1] = tail
        result[#result + 1] = attempts
        result[#result + 1] = redis.call('HGET', REASON, id) or ''
        result[#result + 1] = tonumber(dead[i + 1])
    end
end
return result
