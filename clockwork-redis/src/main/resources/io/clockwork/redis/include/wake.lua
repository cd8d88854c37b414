--[[
  wake: wakes one blocked poller through SIGNAL, a list that never holds more than one token.
]]

-- Returns 1 when the signal key is out of this slot (a cluster's other partitions) and the client must push it.
local function wake()
    if SIGNAL then
        -- At most one token: push only when none is there. Under load one usually is (no poller is blocked to take
        -- it), and the check then replaces a push and a trim.
        if redis.call('LLEN', SIGNAL) == 0 then
            redis.call('LPUSH', SIGNAL, '1')
        end
        return 0
    end
    return 1
end
