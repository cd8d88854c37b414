--[[
  group_keys: the names of the fair groups' keys (groups.lua), in the partition's hash tag: PENDING's key with another
  suffix for "pending", like ready_keys.lua. GROUPED marks the partition; RING holds the groups whose turn may come;
  GFLIGHT counts each named group's deliveries in flight; GWAIT holds the groups waiting for a permit of their rate
  limit, scored by when it frees; GCONF holds the group settings; GCOUNT counts the messages in the named groups' ready
  sets, each GROUP_PREFIX .. <group> (the unnamed group's is READY); GTURN is the last ticket a turn in RING was given;
  a named group's rate log is GROUP_LOG .. <group>.
]]
local GROUPED
local RING
local GFLIGHT
local GWAIT
local GCONF
local GCOUNT
local GTURN
local GROUP_PREFIX
local GROUP_LOG
local groups_of -- the PENDING key the names were built for: a function library builds them when it changes
-- per call {
if PENDING ~= groups_of then
    groups_of = PENDING
    local prefix = string.sub(PENDING, 1, #PENDING - 7) -- PENDING is <prefix>pending
    GROUPED = prefix .. 'grouped'
    RING = prefix .. 'ring'
    GFLIGHT = prefix .. 'gflight'
    GWAIT = prefix .. 'gwait'
    GCONF = prefix .. 'gconf'
    GCOUNT = prefix .. 'gready'
    GTURN = prefix .. 'gturn'
    GROUP_PREFIX = prefix .. 'g:'
    GROUP_LOG = prefix .. 'l:'
end
-- per call }
