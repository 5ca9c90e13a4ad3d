import { describe, expect, it } from 'vitest';
import { encodeKeyToken } from '#routing';
import { agentFromSegment, keyOfRequest, segmentText } from './request-key.js';

const latin1OfUtf8 = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');
const tokenOf = (result: ReturnType<typeof keyOfRequest>): string => (result.ok ? encodeKeyToken(result.value) : `refused: ${result.problem}`);

describe('the key of an HTTP request', () => {
  it('reads percent-escapes and raw bytes of a path segment as UTF-8', () => {
    expect(segmentText('caf%C3%A9')).toEqual({ ok: true, value: 'café' });
    expect(segmentText(latin1OfUtf8('café'))).toEqual({ ok: true, value: 'café' });
    expect(segmentText('%E9').ok).toBe(false);
    expect(segmentText('%zz').ok).toBe(false);
  });

  it('gives café and user@example.com one token whichever way they are spelled', () => {
    for (const [key, token] of [
      ['café', 'caf=C3=A9'],
      ['user@example.com', 'user=40example=2Ecom'],
    ] as const) {
      expect(tokenOf(keyOfRequest(encodeURIComponent(key), {}))).toBe(token);
      expect(tokenOf(keyOfRequest(latin1OfUtf8(key), {}))).toBe(token);
      expect(tokenOf(keyOfRequest('_', { 'agents-key': latin1OfUtf8(key) }))).toBe(token);
      expect(tokenOf(keyOfRequest('_', { 'agents-key': Buffer.from(key).toString('base64'), 'agents-key-encoding': 'base64' }))).toBe(token);
      expect(tokenOf(keyOfRequest(encodeURIComponent(key.normalize('NFD')), {}))).toBe(token);
      expect(tokenOf(keyOfRequest(encodeURIComponent(key), { 'agents-key': latin1OfUtf8(key) }))).toBe(token);
    }
  });

  it('takes a path segment as text, never as a key token', () => {
    expect(tokenOf(keyOfRequest('user=40example=2Ecom', {}))).toBe('user=3D40example=3D2Ecom');
  });

  it('refuses a header key that is not UTF-8, a path naming another key, and an empty key', () => {
    expect(keyOfRequest('_', { 'agents-key': 'caf\u00e9' })).toMatchObject({ ok: false, problem: expect.stringContaining('base64') });
    expect(keyOfRequest('other', { 'agents-key': 'mine' })).toMatchObject({ ok: false, problem: expect.stringContaining("use '_'") });
    expect(keyOfRequest('', {}).ok).toBe(false);
    expect(keyOfRequest('_', { 'agents-key': 'x', 'agents-key-encoding': 'hex' })).toMatchObject({ ok: false, problem: expect.stringContaining('hex') });
  });
});

describe('the agent of an HTTP request', () => {
  it('refuses names that break the rule, naming the rule', () => {
    for (const raw of ['Counter', 'a.b', '..%2Fecho', '%C3%A9cho', '', '9lives']) {
      const result = agentFromSegment(raw);
      expect(result.ok, raw).toBe(false);
      if (!result.ok) expect(result.problem).toContain('[a-z0-9_-]');
    }
    expect(agentFromSegment('refund')).toEqual({ ok: true, value: 'refund' });
  });
});
