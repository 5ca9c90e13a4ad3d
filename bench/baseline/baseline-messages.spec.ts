// Pure spec: the baseline's round trip correlates a result with the suspension it answers by
// intent id alone, so the codec must carry it unchanged and refuse anything else.
import { describe, expect, it } from 'vitest';
import { decodeBaselineIntent, decodeBaselineResult, encodeBaselineIntent, encodeBaselineResult } from './baseline-messages.js';

describe('baseline intent and result bodies', () => {
  it('carry the intent id, agent, key and tool through a round trip', () => {
    const intent = { intentId: 'bench-tool.rt-07.42', agent: 'bench-tool', key: 'rt-07', tool: 'bench-noop-tool' };
    expect(decodeBaselineIntent(encodeBaselineIntent(intent))).toEqual(intent);
  });

  it("carry the result's intent id and value bytes through a round trip", () => {
    const decoded = decodeBaselineResult(encodeBaselineResult({ intentId: 'bench-tool.rt-07.42', status: 'ok', value: new TextEncoder().encode('{}') }));
    expect(decoded.intentId).toBe('bench-tool.rt-07.42');
    expect(new TextDecoder().decode(decoded.value)).toBe('{}');
  });

  it('refuses a body that is not a baseline result', () => {
    expect(() => decodeBaselineResult(new TextEncoder().encode('{"id":"run/1/2"}'))).toThrow(/not a baseline tool result/);
  });
});
