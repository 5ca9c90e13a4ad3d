// Intent ids are the effector's dedup key and the intent's Nats-Msg-Id (invariant 2, C01); a change to the formula or the namespace would re-execute effects after an upgrade, so the formula is re-derived here from RFC 4122 with node:crypto and pinned to literal values.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entityKeyHex } from './entity-key-hex.js';
import { intentId } from './intent-id.js';
import { IdNamespace } from './namespaces.js';

const INTENT_NS = '6f3e9d2a-1c47-5b8e-9a10-2d4f6b8c0e11';
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** RFC 4122 §4.3 name-based UUID, version 5 (SHA-1), written out independently of the uuid package. */
function rfc4122v5(name: string, namespace: string): string {
  const hash = createHash('sha1').update(Buffer.from(namespace.replaceAll('-', ''), 'hex')).update(name, 'utf8').digest().subarray(0, 16);
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const h = hash.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

describe('entityKeyHex', () => {
  it('is the lowercase hex of the key bytes, including a view into a larger buffer', () => {
    expect(entityKeyHex(utf8('order-42'))).toBe('6f726465722d3432');
    const backing = Uint8Array.from([0xaa, 0x00, 0xff, 0x10, 0xbb]);
    expect(entityKeyHex(backing.subarray(1, 4))).toBe('00ff10');
    expect(entityKeyHex(new Uint8Array(0))).toBe('');
  });
});

describe('intentId (C01)', () => {
  it('uses the beam-agents intent namespace', () => {
    expect(IdNamespace.Intent).toBe(INTENT_NS);
  });

  it('is uuidv5(INTENT_NS, "<agent>|<hex key>|<seq>|<step>") — pinned reference values', () => {
    expect(intentId('triage', utf8('order-42'), 0, 0)).toBe('9e3f4231-f34a-5ea6-8b43-50ae5e5dba50');
    expect(intentId('triage', utf8('order-42'), 3, 1)).toBe('c9281b8b-5f1f-59a5-bab0-878a5bcf7997');
    expect(intentId('refund', Uint8Array.from([0x00, 0xff, 0x10]), 7, 2)).toBe('24e07bf8-088e-52fc-ae01-0223720c33ec');
  });

  it('agrees with an independent RFC 4122 v5 derivation for any agent, key, seq and step', () => {
    expect(rfc4122v5('triage|6f726465722d3432|0|0', INTENT_NS)).toBe('9e3f4231-f34a-5ea6-8b43-50ae5e5dba50');
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z][a-z0-9_-]{0,20}$/), fc.uint8Array({ maxLength: 40 }), fc.nat(), fc.nat(1_000), (agent, key, seq, step) => {
        expect(intentId(agent, key, seq, step)).toBe(rfc4122v5(`${agent}|${Buffer.from(key).toString('hex')}|${seq}|${step}`, INTENT_NS));
      }),
      { seed: 7, numRuns: 200 },
    );
  });

  it('changes when any input changes — the agent included, so two agents on one key never share an intent', () => {
    const base = intentId('a', utf8('k'), 1, 1);
    expect(intentId('a', utf8('k'), 1, 1)).toBe(base);
    expect(new Set([base, intentId('b', utf8('k'), 1, 1), intentId('a', utf8('j'), 1, 1), intentId('a', utf8('k'), 2, 1), intentId('a', utf8('k'), 1, 2)]).size).toBe(5);
  });

  it('cannot confuse seq and step boundaries ("1|23" vs "12|3")', () => {
    expect(intentId('a', utf8('k'), 1, 23)).not.toBe(intentId('a', utf8('k'), 12, 3));
  });
});
