// The activator's verdict on an element: a pure function of the mode, the keys, the agent, the
// element and its Agents-Auth header. Events pass untouched; answers and timers need a seal.
import { clusterKeys, encodeToolResult, ErrorReason, sealElement, ToolResultStatus, type InboxElement, type ToolResultDoc } from '#core';
import { describe, expect, it } from 'vitest';
import { verifyElement } from './element-verification.js';

const keys = clusterKeys(new Map([['k1', new Uint8Array(32).fill(3)]]), 'k1');
const KEY = new TextEncoder().encode('user-1');
const result: ToolResultDoc = { intentId: 'i-1', entityKey: KEY, seq: 0, status: ToolResultStatus.Ok, payload: new Uint8Array(0), errorMessage: '', completedAtMs: 10 };
const element = (payload: InboxElement['payload']): InboxElement => ({ inboxSeq: 7, entityKey: KEY, eventTimeMs: 1, payload, headers: [], deliveries: 1 });
const resultElement = element({ kind: 'result', result });
const sealed = sealElement(keys, { kind: 'result', agent: 'a', entityKey: KEY, payload: encodeToolResult(result) })!.header;

describe('verifyElement', () => {
  it('accepts a sealed result and any event, and everything when off', () => {
    expect(verifyElement('require', keys, 'a', resultElement, sealed)).toEqual({ kind: 'accept' });
    expect(verifyElement('require', keys, 'a', element({ kind: 'event', event: new Uint8Array(0) }), undefined)).toEqual({ kind: 'accept' });
    expect(verifyElement('off', keys, 'a', resultElement, 'garbage')).toEqual({ kind: 'accept' });
  });

  it('refuses an unsealed answer under require, counts it under permissive', () => {
    expect(verifyElement('require', keys, 'a', resultElement, undefined)).toMatchObject({ kind: 'refuse', reason: ErrorReason.UnsignedElement });
    expect(verifyElement('permissive', keys, 'a', resultElement, undefined)).toEqual({ kind: 'accept_unsigned' });
  });

  it('refuses a seal of another element or agent, and a foreign key id, in every verifying mode', () => {
    const tampered = element({ kind: 'result', result: { ...result, status: ToolResultStatus.Error } });
    expect(verifyElement('permissive', keys, 'a', tampered, sealed)).toMatchObject({ kind: 'refuse', reason: ErrorReason.BadSignature });
    expect(verifyElement('require', keys, 'b', resultElement, sealed)).toMatchObject({ kind: 'refuse', reason: ErrorReason.BadSignature });
    const verdict = verifyElement('require', keys, 'a', resultElement, sealed.replace(' k1 ', ' k7 '));
    expect(verdict).toMatchObject({ kind: 'refuse', reason: ErrorReason.UnknownSigningKey });
    expect(verdict.kind === 'refuse' && verdict.detail).toContain('result for intent "i-1" of inbox message 7');
  });
});
