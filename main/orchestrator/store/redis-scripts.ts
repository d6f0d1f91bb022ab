// The Redis store's Lua scripts. Every key a script names is passed in KEYS and every key is in the tenant's hash slot
// (`…{tenant}…`), so a script runs on one node of a Redis Cluster; the one exception, said where it is, touches keys
// of the same slot it builds from a prefix. User data (records' JSON) never goes through cjson: it is passed as ARGV
// texts and stored or concatenated as it is; only the script's own small op list is decoded.

/** Redis's clock, in ms: leases and the run window use it, so instances whose clocks differ agree. */
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * One change, all or nothing. KEYS: 1 seq, 2 log (the feed), 3 event ids, 4 index (record ids), 5 leases (zset
 * item → expiry), 6 owners (hash item → "<fence>|<instance>"), 7 fence counter, 8 task queue, 9 driver queue,
 * 10 finished tasks (zset id → seq), then the change's own keys. ARGV: 1 the op list (JSON), then texts it names.
 * Returns {1, seq, entry id, first event id, fence} or {0, 'claim'|'lease', claim index, holder, retry ms}.
 */
export const COMMIT = `${NOW}
local ops = cjson.decode(ARGV[1])
local claims = ops.c or {}
-- 1. every condition, before any effect
for i, c in ipairs(claims) do
  local key = KEYS[c.k]
  if c.t == 'name' or c.t == 'thread' then
    local cur = redis.call('GET', key)
    if cur and cur ~= c.v then return {0, 'claim', i, cur, 0} end
  elseif c.t == 'idem' then
    local cur = redis.call('GET', key)
    -- The task made under the key may be gone (retention, DELETE): the key is free again. (Same slot, built key.)
    if cur and cur ~= c.v and redis.call('EXISTS', ops.rp .. cur) == 1 then return {0, 'claim', i, cur, 0} end
  elseif c.t == 'window' then
    local ttl = redis.call('PTTL', key)
    if ttl > 0 then return {0, 'claim', i, '', ttl} end
  elseif c.t == 'status' then
    local cur = redis.call('HGET', key, 'status')
    local ok = false
    if cur then for _, s in ipairs(c['in']) do if cur == s then ok = true end end end
    if not ok then return {0, 'claim', i, cur or '', 0} end
  elseif c.t == 'room' then
    if redis.call('XLEN', key) >= c.n then return {0, 'claim', i, '', 0} end
  end
end
-- 2. the lease of the work this change is about: held (our fence still there), or taken now. Work is taken only by
-- the start of a task (ops.as.t: its status claim above says no one started it) or through this instance's delivery
-- of it (ops.as.d: the queue entry, acked here; an entry another instance acked first takes nothing), and only when
-- no other instance holds it; any other write about work this instance does not hold is refused.
local fence = 0
if ops.as then
  local item = ops.as.i
  local own = redis.call('HGET', KEYS[6], item)
  if ops.as.f then
    if own ~= (ops.as.f .. '|' .. ops.inst) then return {0, 'lease', 0, own or '', 0} end
    fence = ops.as.f
  else
    if not ops.as.t and not ops.as.d then return {0, 'lease', 0, own or '', 0} end
    if own then
      local mine = string.sub(own, -(#ops.inst + 1)) == ('|' .. ops.inst)
      local exp = tonumber(redis.call('ZSCORE', KEYS[5], item) or '0')
      if (not mine) and exp > now then return {0, 'lease', 0, own, 0} end
    end
    if not ops.as.t and redis.call('XACK', KEYS[ops.as.d.s], 'w', ops.as.d.id) == 0 then
      return {0, 'lease', 0, own or '', 0}
    end
    fence = redis.call('INCR', KEYS[7])
    redis.call('HSET', KEYS[6], item, fence .. '|' .. ops.inst)
    redis.call('ZADD', KEYS[5], now + ops.as.l, item)
  end
end
-- 3. the claims are taken
for _, c in ipairs(claims) do
  local key = KEYS[c.k]
  if c.t == 'name' then redis.call('SET', key, c.v)
  elseif c.t == 'thread' and c.v ~= '' then redis.call('SET', key, c.v)
  elseif c.t == 'window' then redis.call('SET', key, '1', 'PX', c.ms)
  elseif c.t == 'idem' then redis.call('SET', key, c.v, 'PX', c.ms) end
end
local seq = 0
if ops.f and #ops.f > 0 then seq = redis.call('INCR', KEYS[1]) end
-- 4. the records
for _, w in ipairs(ops.w or {}) do
  local key = KEYS[w.k]
  if w.op == 'put' or w.op == 'patch' then
    if w.op == 'put' then redis.call('DEL', key) end
    if w.op == 'put' or redis.call('EXISTS', key) == 1 then
      local args = {}
      for j = 1, #w.f, 2 do
        args[#args + 1] = w.f[j]
        args[#args + 1] = ARGV[w.f[j + 1]]
      end
      redis.call('HSET', key, unpack(args))
      redis.call('SADD', KEYS[4], w.id)
      if (w.ttl or 0) > 0 then redis.call('PEXPIRE', key, w.ttl) end
      if w.ended then redis.call('ZADD', KEYS[10], seq, w.id) end
    end
  elseif w.op == 'del' then
    redis.call('DEL', key)
    redis.call('SREM', KEYS[4], w.id)
    redis.call('ZREM', KEYS[10], w.id)
  elseif w.op == 'delif' then
    if redis.call('GET', key) == w.v then redis.call('DEL', key) end
  elseif w.op == 'turn' then
    local m = redis.call('HGET', key, 'messages')
    if m and redis.call('HGET', key, 'last_task_id') ~= ARGV[w.tid] then
      local add = ARGV[w.m]
      local msgs = m
      if add ~= '' then
        if m == '[]' then msgs = '[' .. add .. ']' else msgs = string.sub(m, 1, -2) .. ',' .. add .. ']' end
      end
      local turns = tonumber(redis.call('HGET', key, 'turns')) or 0
      redis.call('HSET', key, 'messages', msgs, 'turns', tostring(turns + 1), 'last_task_id', ARGV[w.tid],
        'updated_at', ARGV[w.at])
      if (w.ttl or 0) > 0 then redis.call('PEXPIRE', key, w.ttl) end
    end
  end
end
-- 5. the finished-task cap: the oldest to end go (their keys are built from the record prefix: same slot)
if (ops.cap or 0) > 0 then
  local over = redis.call('ZCARD', KEYS[10]) - ops.cap
  if over > 0 then
    local gone = redis.call('ZPOPMIN', KEYS[10], over)
    for j = 1, #gone, 2 do
      redis.call('DEL', ops.rp .. gone[j])
      redis.call('SREM', KEYS[4], gone[j])
    end
  end
end
-- 6. work queued, work delivered and now taken or let go, work released
for _, e in ipairs(ops.q or {}) do redis.call('XADD', KEYS[e.s], '*', 'i', e.i) end
for _, a in ipairs(ops.ack or {}) do
  redis.call('XACK', KEYS[a.s], 'w', a.id)
  redis.call('XDEL', KEYS[a.s], a.id)
end
if ops.done then
  -- Released only under the fence this change holds it with (the one taken or checked above, or ops.df): a delivery
  -- let go by an instance that never held the work, or a late write of one that lost it, releases nothing.
  local df = ops.df
  if ops.as and ops.as.i == ops.done then df = fence end
  if df and df ~= 0 and redis.call('HGET', KEYS[6], ops.done) == (df .. '|' .. ops.inst) then
    redis.call('HDEL', KEYS[6], ops.done)
    redis.call('ZREM', KEYS[5], ops.done)
  end
end
-- 7. the feed entry: the records, events numbered here (in the feed's order)
if seq == 0 then return {1, 0, '', 0, fence} end
local ev = 0
if (ops.ne or 0) > 0 then ev = redis.call('INCRBY', KEYS[3], ops.ne) - ops.ne + 1 end
local first = ev
local parts = {}
for _, p in ipairs(ops.f) do
  if p.t then parts[#parts + 1] = ARGV[p.t]
  elseif p.d then parts[#parts + 1] = '{"type":"' .. p.ty .. '","data":' .. ARGV[p.d] .. '}'
  elseif p.e then
    parts[#parts + 1] = '{"type":"event","data":{"id":' .. ev .. ',' .. ARGV[p.e] .. '}'
    ev = ev + 1
  elseif p.b then
    local inner = {}
    for _, j in ipairs(p.b) do
      inner[#inner + 1] = '{"id":' .. ev .. ',' .. ARGV[j]
      ev = ev + 1
    end
    parts[#parts + 1] = '{"type":"events","data":[' .. table.concat(inner, ',') .. ']}'
  end
end
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ops.ml, '*', 's', seq, 'r', '[' .. table.concat(parts, ',') .. ']')
return {1, seq, id, first, fence}`;

/**
 * Takes over work whose lease ran out (its holder stopped renewing: gone, or paused past the lease). KEYS: leases,
 * owners, fence counter. ARGV: this instance, lease ms, how many at most. Returns item, previous owner, new fence...
 */
export const REAP = `${NOW}
local items = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, item in ipairs(items) do
  local prev = redis.call('HGET', KEYS[2], item) or ''
  local fence = redis.call('INCR', KEYS[3])
  redis.call('HSET', KEYS[2], item, fence .. '|' .. ARGV[1])
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), item)
  out[#out + 1] = item
  out[#out + 1] = prev
  out[#out + 1] = fence
end
return out`;

/**
 * Renews this instance's leases: KEYS leases, owners; ARGV this instance, lease ms (0: give them up now), then item,
 * fence pairs. Returns the items whose lease another instance has taken over (lost).
 */
export const RENEW = `${NOW}
local lost = {}
local ms = tonumber(ARGV[2])
for i = 3, #ARGV, 2 do
  local item = ARGV[i]
  if redis.call('HGET', KEYS[2], item) == (ARGV[i + 1] .. '|' .. ARGV[1]) then
    if ms > 0 then redis.call('ZADD', KEYS[1], 'XX', now + ms, item) else redis.call('ZADD', KEYS[1], 'XX', 0, item) end
  else
    lost[#lost + 1] = item
  end
end
return lost`;

/** Where the feed stands: KEYS seq, log. Returns {seq, id of the last entry or ''}. */
export const HEAD = `local e = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local id = ''
if #e > 0 then id = e[1][1] end
return {tonumber(redis.call('GET', KEYS[1]) or '0'), id}`;
