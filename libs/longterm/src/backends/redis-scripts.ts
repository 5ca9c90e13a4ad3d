/**
 * The Lua scripts of the Redis backend. Each runs atomically on the server, so the seq guard and
 * the indexes it maintains never disagree, whatever the client does between calls.
 *
 * Layout under the namespace `ns` (`<hex>` = lowercase hex of the entity key):
 * - `ns:e:<hex>:agents` — SET of agents with rows for the entity (erasure walks it);
 * - `ns:e:<hex>:a:<agent>:rec` — HASH key → record bytes (verbatim);
 * - `ns:e:<hex>:a:<agent>:meta` — HASH key → `<seq>|<expiresAtMs>|<supersededBy>` (guard and filters);
 * - `ns:e:<hex>:a:<agent>:keys` — ZSET of keys at score 0 (ordered prefix scans with ZRANGEBYLEX);
 * - `ns:e:<hex>:a:<agent>:sup` — ZSET of `<supersededBy>\0<key>` at score 0 (history's predecessors);
 * - `ns:expiry` — ZSET of `<hex>|<agent>|<key>` scored by expiresAtMs (the background sweep).
 *
 * Seqs are compared as Lua numbers (exact below 2^53, like every seq the runtime mints). Erase and
 * sweep derive key names inside the script: standalone Redis (or one shard) only.
 */

/** Shared by every script: splits a meta value into seq, expiry and supersededBy. */
const PARSE_META = `
local function parse_meta(meta)
  local p1 = string.find(meta, '|', 1, true)
  local p2 = string.find(meta, '|', p1 + 1, true)
  return tonumber(string.sub(meta, 1, p1 - 1)), tonumber(string.sub(meta, p1 + 1, p2 - 1)), string.sub(meta, p2 + 1)
end
`;

/**
 * Seq-guarded batch upsert. KEYS[1] = expiry; per row i: KEYS[2+5i..6+5i] = agents, rec, meta,
 * keys, sup. ARGV[1] = row count; per row: ARGV[2+7i..8+7i] = agent, key, seq, expiresAtMs,
 * supersededBy, bytes, expiry member. Returns 1 (applied) or 0 (stale) per row.
 */
export const UPSERT_SCRIPT = `${PARSE_META}
local verdicts = {}
for i = 0, tonumber(ARGV[1]) - 1 do
  local k = 1 + i * 5
  local a = 1 + i * 7
  local agent, key, seq, exp, sup, bytes, member = ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6], ARGV[a + 7]
  local old = redis.call('HGET', KEYS[k + 3], key)
  local old_sup = ''
  local apply = true
  if old then
    local old_seq, _, s = parse_meta(old)
    old_sup = s
    if tonumber(seq) < old_seq then apply = false end
  end
  if apply then
    redis.call('HSET', KEYS[k + 2], key, bytes)
    redis.call('HSET', KEYS[k + 3], key, seq .. '|' .. exp .. '|' .. sup)
    redis.call('ZADD', KEYS[k + 4], 0, key)
    redis.call('SADD', KEYS[k + 1], agent)
    if old_sup ~= '' then redis.call('ZREM', KEYS[k + 5], old_sup .. '\\0' .. key) end
    if sup ~= '' then redis.call('ZADD', KEYS[k + 5], 0, sup .. '\\0' .. key) end
    if tonumber(exp) > 0 then redis.call('ZADD', KEYS[1], exp, member) else redis.call('ZREM', KEYS[1], member) end
    verdicts[#verdicts + 1] = 1
  else
    verdicts[#verdicts + 1] = 0
  end
end
return verdicts
`;

/**
 * Bounded prefix scan. KEYS = keys, meta, rec. ARGV = lex min, lex max, nowMs, limit,
 * includeSuperseded ('1'/'0'). Returns up to `limit` record byte strings in key order, skipping
 * expired (and, unless asked, superseded) rows.
 */
export const SEARCH_SCRIPT = `${PARSE_META}
local out = {}
local now, limit, include = tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5] == '1'
local chunk = math.max(limit, 64)
local offset = 0
while #out < limit do
  local keys = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[1], ARGV[2], 'LIMIT', offset, chunk)
  for _, key in ipairs(keys) do
    local meta = redis.call('HGET', KEYS[2], key)
    if meta then
      local _, exp, sup = parse_meta(meta)
      if (exp == 0 or exp > now) and (include or sup == '') then
        out[#out + 1] = redis.call('HGET', KEYS[3], key)
        if #out >= limit then break end
      end
    end
  end
  if #keys < chunk then break end
  offset = offset + #keys
end
return out
`;

/**
 * Erases one entity. KEYS[1] = expiry, KEYS[2] = the entity's agents set. ARGV[1] = the entity's
 * agent key prefix (`ns:e:<hex>:a:`), ARGV[2] = its expiry member prefix (`<hex>|`). Returns the
 * number of rows erased.
 */
export const ERASE_SCRIPT = `
local erased = 0
for _, agent in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  local base = ARGV[1] .. agent
  local keys = redis.call('HKEYS', base .. ':rec')
  erased = erased + #keys
  for _, key in ipairs(keys) do redis.call('ZREM', KEYS[1], ARGV[2] .. agent .. '|' .. key) end
  redis.call('DEL', base .. ':rec', base .. ':meta', base .. ':keys', base .. ':sup')
end
redis.call('DEL', KEYS[2])
return erased
`;

/**
 * Deletes up to ARGV[3] rows expired at ARGV[2]. KEYS[1] = expiry; ARGV[1] = namespace. Returns
 * the number of rows deleted.
 */
export const SWEEP_SCRIPT = `${PARSE_META}
local now = tonumber(ARGV[2])
local swept = 0
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], 1, now, 'LIMIT', 0, tonumber(ARGV[3]))) do
  local p1 = string.find(member, '|', 1, true)
  local p2 = string.find(member, '|', p1 + 1, true)
  local hex, agent, key = string.sub(member, 1, p1 - 1), string.sub(member, p1 + 1, p2 - 1), string.sub(member, p2 + 1)
  local base = ARGV[1] .. ':e:' .. hex .. ':a:' .. agent
  local meta = redis.call('HGET', base .. ':meta', key)
  local gone = true
  if meta then
    local _, exp, sup = parse_meta(meta)
    if exp > 0 and exp <= now then
      redis.call('HDEL', base .. ':rec', key)
      redis.call('HDEL', base .. ':meta', key)
      redis.call('ZREM', base .. ':keys', key)
      if sup ~= '' then redis.call('ZREM', base .. ':sup', sup .. '\\0' .. key) end
      if redis.call('HLEN', base .. ':rec') == 0 then redis.call('SREM', ARGV[1] .. ':e:' .. hex .. ':agents', agent) end
      swept = swept + 1
    else
      gone = false
    end
  end
  if gone then redis.call('ZREM', KEYS[1], member) end
end
return swept
`;
