--[[
  sched_scan: one page of the partition's schedules, for listing (an administrator's command, not a scheduler's
  pass).

  KEYS[1] sched_def   HASH   scanned
  KEYS[2] sched_state HASH   read

  ARGV[1]           the HSCAN cursor ('0' to start)
  ARGV[2]           the page size hint (HSCAN's COUNT)

  Reply: {next cursor ('0': done), then per schedule: name, def, state}.
  Cost: O(page size).
]]
local SCHED_DEF = KEYS[1]
local SCHED_STATE = KEYS[2]
local page = redis.call('HSCAN', SCHED_DEF, ARGV[1], 'COUNT', tonumber(ARGV[2]))
local reply = {page[1]}
local entries = page[2]
for i = 1, #entries, 2 do
    local n = #reply
    reply[n + 1] = entries[i]
    reply[n + 2] = entries[i + 1]
    reply[n + 3] = redis.call('HGET', SCHED_STATE, entries[i])
end
return reply
