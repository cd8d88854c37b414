--[[
  sched_keys: names for a partition's schedule keys, passed after its nine queue keys (KEYS[10] to KEYS[13]), all in
  the partition's hash tag, so that a script may store occurrences and move a schedule in one atomic step. A
  schedule lives in the partition its name hashes to, and its occurrences' ids are chosen to hash there too.
]]
local SCHED_DEF = KEYS[10]    -- HASH  name -> "<rule spec>\n<misfire spec>\n<spread ms>"
local SCHED_MSG = KEYS[11]   -- HASH  name -> the occurrences' tail "[#<h>#<headers>]:<payload>" (see meta.lua)
local SCHED_STATE = KEYS[12] -- HASH  name -> "<version> <paused 0|1> <next ms|-> <last ms|-> <outstanding id>"
local SCHED_DUE = KEYS[13]   -- ZSET  name -> when a scheduler should next look at it (server ms); absent if paused
