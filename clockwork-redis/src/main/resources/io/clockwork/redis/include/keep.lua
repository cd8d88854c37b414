--[[
  keep: a META field no message can have (ids are never empty) whose value is longer than hash-max-listpack-value
  (64 by default). Written along with other fields of META, it keeps the hash in hashtable encoding, so small queues
  get O(1) field access instead of listpack scans, and the hash is not deleted and recreated each time the queue runs
  empty. Counts of META leave it out.
]]
local KEEP_FIELD = ''
local KEEP_VALUE = 'clockwork: keeps this hash in hashtable encoding (longer than hash-max-listpack-value)'
