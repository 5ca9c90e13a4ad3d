// Seals bind an element's kind, agent, key and payload to a cluster key; the message id derived from
// the MAC is deterministic for the key holder and differs for anyone else.
import { describe, expect, it } from 'vitest';
import { encodeApproval } from '../actor/inbox-codec.js';
import { clusterKeys } from './cluster-keys.js';
import { keyedMessageId, sealElement, sealedPayloadBytes, verifySeal, type SealInput } from './element-seal.js';

const SECRET = new Uint8Array(32).fill(7);
const keys = clusterKeys(new Map([['k1', SECRET]]), 'k1');
const KEY = new TextEncoder().encode('order-42');
const approval = { intentId: 'i-1', approved: true, approver: 'alice', decidedAtMs: 1_700_000_000_000, reason: '' };
const input: SealInput = { kind: 'approval', agent: 'refund', entityKey: KEY, payload: encodeApproval(approval) };

describe('sealElement / verifySeal', () => {
  it('verifies what it sealed, and seals identically every time (replay, another replica with the same key)', () => {
    const seal = sealElement(keys, input)!;
    expect(seal.header).toMatch(/^hmac-sha256 k1 [A-Za-z0-9_-]{43}$/);
    expect(seal.msgId).toMatch(/^approval-[0-9a-f]{32}$/);
    expect(sealElement(clusterKeys(new Map([['k1', SECRET]]), 'k1'), input)).toEqual(seal);
    expect(verifySeal(keys, input, seal.header)).toEqual({ kind: 'ok' });
  });

  it('refuses a seal moved to another approver, key, agent or kind', () => {
    const { header } = sealElement(keys, input)!;
    const other = encodeApproval({ ...approval, approver: 'ceo' });
    expect(verifySeal(keys, { ...input, payload: other }, header)).toEqual({ kind: 'bad_signature' });
    expect(verifySeal(keys, { ...input, entityKey: new TextEncoder().encode('order-43') }, header)).toEqual({ kind: 'bad_signature' });
    expect(verifySeal(keys, { ...input, agent: 'other' }, header)).toEqual({ kind: 'bad_signature' });
    expect(verifySeal(keys, { ...input, kind: 'result' }, header)).toEqual({ kind: 'bad_signature' });
  });

  it('tells unsigned, unknown key ids and garbage apart, without throwing', () => {
    expect(verifySeal(keys, input, undefined)).toEqual({ kind: 'unsigned' });
    expect(verifySeal(keys, input, '')).toEqual({ kind: 'unsigned' });
    expect(verifySeal(keys, input, 'hmac-sha256 k9 AAAA')).toEqual({ kind: 'unknown_signing_key', keyId: 'k9' });
    expect(verifySeal(keys, input, 'rsa k1 AAAA')).toEqual({ kind: 'bad_signature' });
    expect(verifySeal(keys, input, 'hmac-sha256 k1 !!!')).toEqual({ kind: 'bad_signature' });
  });

  it('verifies with every keyring key during a rotation, signs with the active one', () => {
    const old = sealElement(keys, input)!;
    const rotated = clusterKeys(new Map([['k1', SECRET], ['k2', new Uint8Array(32).fill(9)]]), 'k2');
    const fresh = sealElement(rotated, input)!;
    expect(fresh.header.split(' ')[1]).toBe('k2');
    expect(fresh.msgId).not.toBe(old.msgId);
    expect(verifySeal(rotated, input, old.header)).toEqual({ kind: 'ok' });
    expect(verifySeal(keys, input, fresh.header)).toEqual({ kind: 'unknown_signing_key', keyId: 'k2' });
  });

  it('gives a forger with another secret other message ids, and a keyless process none', () => {
    const forger = clusterKeys(new Map([['k1', new Uint8Array(32).fill(8)]]), 'k1');
    expect(sealElement(forger, input)!.msgId).not.toBe(sealElement(keys, input)!.msgId);
    expect(keyedMessageId(forger, 'http:a')).not.toBe(keyedMessageId(keys, 'http:a'));
    expect(keyedMessageId(keys, 'http:a')).toBe(keyedMessageId(keys, 'http:a'));
    expect(sealElement(clusterKeys(new Map()), input)).toBeUndefined();
  });

  it('seals results, approvals and timers, never events', () => {
    expect(sealedPayloadBytes({ kind: 'event', event: new Uint8Array(1) })).toBeUndefined();
    expect(sealedPayloadBytes({ kind: 'timer', timer: { timerId: 't', kind: 1, dueAtMs: 5 } })?.kind).toBe('timer');
    expect(sealedPayloadBytes({ kind: 'approval', approval })).toEqual({ kind: 'approval', payload: input.payload });
  });

  it('refuses short secrets and an active key id it has no secret for', () => {
    expect(() => clusterKeys(new Map([['k1', new Uint8Array(8)]]))).toThrow(/shorter than 16 bytes/);
    expect(() => clusterKeys(new Map([['k1', SECRET]]), 'k2')).toThrow(/'k2' is not in the keyring/);
  });
});
