--[[
  pause: pauses, resumes or reads one partition. While its pause flag exists, polls of the partition take nothing
  (take_due.lua) and wait for a wake-up, while offers, acks, nacks, cancels, reschedules and the sweep of expired
  deliveries go on. The flag is a key of the queue, so a pause holds for every client and across their restarts.

  KEYS[1] paused    STRING set by a pause, deleted by a resume
  KEYS[2] signal    LIST   pushed by a resume that deleted the flag, to wake a poller (absent in a cluster's other
                           partitions)

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[2]           the action: 'p' pause, 'r' resume, '?' read

  Reply: {paused 0/1 after the call, clientMustSignal 0/1}: clientMustSignal is 1 when a resume must wake a poller
         and SIGNAL is in another slot.
  Cost: O(1).
]]
local PAUSED = KEYS[1]
local SIGNAL = KEYS[2]
-- include: wake
local action = ARGV[2]
if action == 'p' then
    redis.call('SET', PAUSED, '1')
    return {1, 0}
elseif action == 'r' then
    if redis.call('DEL', PAUSED) == 1 then
        return {0, wake()}
    end
    return {0, 0}
end
return {redis.call('EXISTS', PAUSED), 0}
