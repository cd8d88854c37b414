--[[
  wake: wakes one blocked poller through SIGNAL, a list that never holds more than one token.
]]

-- Returns 1 when the signal key is out of this slot (a cluster's other partitions) and the client must push it.
local function wake()
    if SIGNAL then
        -- At most one token: trim only when one was already there (usually nobody took it yet).
        if redis.call('LPUSH', SIGNAL, '1') > 1 then
            redis.call('LTRIM', SIGNAL, '0', '0')
        end
        return 0
    end
    return 1
end
