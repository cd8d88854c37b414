--[[
  sched_keys: names for a partition's schedule keys, passed after its eight queue keys (KEYS[9] to KEYS[12]), all in
  the partition's hash tag, so that a script may store occurrences and move a schedule in one atomic step. A
  schedule lives in the partition its name hashes to, and its occurrences' ids are chosen to hash there too.
]]
local SCHED_DEF = KEYS[9]    -- HASH  name -> "<rule spec>\n<misfire spec>\n<spread ms>"
local SCHED_MSG = KEYS[10]   -- HASH  name -> the occurrences' tail "[#<h>#<headers>]:<payload>" (see meta.lua)
local SCHED_STATE = KEYS[11] -- HASH  name -> "<version> <paused 0|1> <next ms|-> <last ms|-> <outstanding id>"
local SCHED_DUE = KEYS[12]   -- ZSET  name -> when a scheduler should next look at it (server ms); absent if paused
