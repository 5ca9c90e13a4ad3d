// The cache key is persisted identity (invariant 3): pin the exact formula here, independently of the cache that stores it.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CanonicalJsonError } from '../json/canonical-json.js';
import type { ModelRequest } from '../model/model-request.js';
import { replayCacheKey } from './replay-cache-key.js';

const sha256Hex = (text: string): string => createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');
const KEY = new TextEncoder().encode('k1');
const REQUEST: ModelRequest = { model: 'fake-1', messages: [{ role: 'user', content: 'hi' }] };

describe('replayCacheKey', () => {
  it('is the sha256 of the sorted-key, whitespace-free JSON of model, messages, tools, params, hex key and seq', () => {
    const request: ModelRequest = {
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'lookup' }],
      params: { temperature: 0, max_tokens: 5 },
    };
    const document =
      '{"key":"6b31","messages":[{"content":"hi","role":"user"}],"model":"gpt-4o-mini",' +
      '"params":{"max_tokens":5,"temperature":0},"seq":3,"tools":[{"name":"lookup"}]}';
    expect(replayCacheKey(request, KEY, 3)).toBe(sha256Hex(document));
  });

  it('hashes absent tools and params as null', () => {
    const document = '{"key":"6b31","messages":[{"content":"hi","role":"user"}],"model":"fake-1","params":null,"seq":0,"tools":null}';
    expect(replayCacheKey(REQUEST, KEY, 0)).toBe(sha256Hex(document));
    expect(replayCacheKey({ ...REQUEST, tools: null }, KEY, 0)).toBe(replayCacheKey(REQUEST, KEY, 0));
  });

  it('stays fixed across releases for a pinned request', () => {
    expect(replayCacheKey(REQUEST, KEY, 0)).toBe('9b78a228558b4dfdd86820777f24d53d3fb1217c4b9a998f58dc8d012e0a2d8d');
  });

  it('hashes non-ASCII text as raw UTF-8, not as \\u escapes', () => {
    const request: ModelRequest = { model: 'm', messages: ['héllo 👋'] };
    const document = '{"key":"","messages":["héllo 👋"],"model":"m","params":null,"seq":0,"tools":null}';
    expect(replayCacheKey(request, new Uint8Array(0), 0)).toBe(sha256Hex(document));
  });

  it('is lowercase hex of 64 characters', () => {
    expect(replayCacheKey(REQUEST, KEY, 7)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not depend on the insertion order of object keys', () => {
    const a: ModelRequest = { model: 'm', messages: [{ role: 'user', content: 'x' }], params: { top_p: 1, temperature: 0.5 } };
    const b: ModelRequest = { params: { temperature: 0.5, top_p: 1 }, messages: [{ content: 'x', role: 'user' }], model: 'm' };
    expect(replayCacheKey(a, KEY, 1)).toBe(replayCacheKey(b, KEY, 1));
  });

  it('gives byte-identical requests in one (key, seq) scope the same key, so the second call is a hit', () => {
    expect(replayCacheKey({ ...REQUEST }, Uint8Array.from(KEY), 4)).toBe(replayCacheKey(REQUEST, KEY, 4));
  });

  it.each<[string, ModelRequest, Uint8Array, number, ModelRequest]>([
    ['seq', REQUEST, KEY, 1, REQUEST],
    ['entity key', REQUEST, new TextEncoder().encode('k2'), 0, REQUEST],
    ['model', { ...REQUEST, model: 'fake-2' }, KEY, 0, REQUEST],
    ['messages', { ...REQUEST, messages: [{ role: 'user', content: 'ho' }] }, KEY, 0, REQUEST],
    ['message order', { ...REQUEST, messages: ['a', 'b'] }, KEY, 0, { ...REQUEST, messages: ['b', 'a'] }],
    ['tools', { ...REQUEST, tools: [] }, KEY, 0, REQUEST],
    ['params', { ...REQUEST, params: {} }, KEY, 0, REQUEST],
  ])('changes when only the %s changes', (_label, request, key, seq, base) => {
    expect(replayCacheKey(request, key, seq)).not.toBe(replayCacheKey(base, KEY, 0));
  });

  it('refuses values canonical JSON cannot carry', () => {
    expect(() => replayCacheKey({ ...REQUEST, params: { temperature: Number.NaN } }, KEY, 0)).toThrow(CanonicalJsonError);
  });

  it.each([-1, 1.5, Number.NaN])('refuses seq %s', (seq) => {
    expect(() => replayCacheKey(REQUEST, KEY, seq)).toThrow(/seq/);
  });
});
