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

  it('is uuidv5(INTENT_NS, "<hex key>|<seq>|<step>") — pinned reference values', () => {
    expect(intentId(utf8('order-42'), 0, 0)).toBe('3fcb7602-e2c9-5750-b9ab-4fa61c125e6f');
    expect(intentId(utf8('order-42'), 3, 1)).toBe('2611fac1-0d0e-5177-b809-f54260a93de4');
    expect(intentId(Uint8Array.from([0x00, 0xff, 0x10]), 7, 2)).toBe('053b2f6e-0d44-5654-a54b-bb22120a351c');
  });

  it('agrees with an independent RFC 4122 v5 derivation for any key, seq and step', () => {
    expect(rfc4122v5('6f726465722d3432|0|0', INTENT_NS)).toBe('3fcb7602-e2c9-5750-b9ab-4fa61c125e6f');
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.nat(), fc.nat(1_000), (key, seq, step) => {
        expect(intentId(key, seq, step)).toBe(rfc4122v5(`${Buffer.from(key).toString('hex')}|${seq}|${step}`, INTENT_NS));
      }),
      { seed: 7, numRuns: 200 },
    );
  });

  it('changes when any input changes and is stable otherwise', () => {
    const base = intentId(utf8('k'), 1, 1);
    expect(intentId(utf8('k'), 1, 1)).toBe(base);
    expect(new Set([base, intentId(utf8('j'), 1, 1), intentId(utf8('k'), 2, 1), intentId(utf8('k'), 1, 2)]).size).toBe(4);
  });

  it('cannot confuse seq and step boundaries ("1|23" vs "12|3")', () => {
    expect(intentId(utf8('k'), 1, 23)).not.toBe(intentId(utf8('k'), 12, 3));
  });
});
