--[[
  rate_limit: the queue's rate limit (rate.lua's log), CONFIG's field rate, "<permits> <interval ms>", stored with the
  queue (StoredRateLimit); without it nothing is limited.
]]

-- The stored limit: permits, interval ms; nil without one.
local function rate_limit()
    local v = redis.call('HGET', CONFIG, 'rate')
    if not v then
        return nil
    end
    local permits, interval = string.match(v, '^(%d+) (%d+)$')
    return tonumber(permits), tonumber(interval)
end
