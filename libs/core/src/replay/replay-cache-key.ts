/**
 * The replay-cache key of one model call (invariant 3): a pure function of the request and its
 * activation scope, so a retried, replayed or resumed activation re-issuing a request finds the
 * committed answer. Changing the formula orphans every cached entry (a miss, never a wrong hit).
 */
import { hash } from 'node:crypto';
import { entityKeyHex } from '../ids/entity-key-hex.js';
import { canonicalJson } from '../json/canonical-json.js';
import type { ModelRequest } from '../model/model-request.js';

/**
 * Lowercase hex sha256 of the UTF-8 canonical JSON (RFC 8785) of
 * `{ model, messages, tools, params, key: hex(key), seq }`, with absent `tools`/`params` as
 * `null`. There is deliberately no step index: two byte-identical requests in one (key, seq)
 * scope share one entry, and a resume (which keeps its start's seq) re-issuing an earlier request
 * hits the cache instead of paying the provider again. A new seq is a new scope and misses.
 *
 * Throws a TypeError when `seq` is not a non-negative safe integer, and `CanonicalJsonError` for
 * request values JSON cannot carry (NaN, Infinity, bigint, functions).
 *
 * @example
 * const cacheKey = replayCacheKey({ model: 'fake-1', messages: [{ role: 'user', content: 'hi' }] }, key, seq);
 */
export function replayCacheKey(request: ModelRequest, key: Uint8Array, seq: number): string {
  if (!Number.isSafeInteger(seq) || seq < 0) throw new TypeError(`seq must be a non-negative safe integer, got ${String(seq)}`);
  const material = canonicalJson({
    model: request.model,
    messages: request.messages,
    tools: request.tools ?? null,
    params: request.params ?? null,
    key: entityKeyHex(key),
    seq,
  });
  return hash('sha256', material, 'hex');
}
