// One trace per (agent, key, seq) joins a retry, a replay and a resume to the same trace (C06); the ids are derived, so they are pinned here against an independent RFC 4122 v5 derivation.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { IdNamespace } from './namespaces.js';
import { spanId, traceId } from './trace-id.js';

const TRACE_NS = 'b1d7c4e2-93a6-5f08-8c31-7e5a9d0f2b46';
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

function rfc4122v5Bytes(name: string, namespace: string): Buffer {
  const hash = createHash('sha1').update(Buffer.from(namespace.replaceAll('-', ''), 'hex')).update(name, 'utf8').digest().subarray(0, 16);
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  return hash;
}

describe('traceId (C06)', () => {
  it('uses the beam-agents trace namespace', () => {
    expect(IdNamespace.Trace).toBe(TRACE_NS);
  });

  it('is the 16 bytes of uuidv5(TRACE_NS, "<agent>|<hex key>|<seq>")', () => {
    const id = traceId('triage', utf8('order-42'), 3);
    expect(id).toBeInstanceOf(Uint8Array);
    expect(id).toHaveLength(16);
    expect(hex(id)).toBe(rfc4122v5Bytes('triage|6f726465722d3432|3', TRACE_NS).toString('hex'));
  });

  it('is a function of (agent, key, seq) only', () => {
    expect(hex(traceId('a', utf8('k'), 1))).toBe(hex(traceId('a', utf8('k'), 1)));
    expect(hex(traceId('a', utf8('k'), 1))).not.toBe(hex(traceId('a', utf8('k'), 2)));
    expect(hex(traceId('a', utf8('k'), 1))).not.toBe(hex(traceId('a', utf8('j'), 1)));
    expect(hex(traceId('a', utf8('k'), 1))).not.toBe(hex(traceId('b', utf8('k'), 1)));
  });
});

describe('spanId (C06)', () => {
  it('is the first 8 bytes of uuidv5(TRACE_NS, "<agent>|<hex key>|<seq>|<role>|<index>")', () => {
    const id = spanId('triage', utf8('order-42'), 3, 'step', 1);
    expect(id).toHaveLength(8);
    expect(hex(id)).toBe(rfc4122v5Bytes('triage|6f726465722d3432|3|step|1', TRACE_NS).subarray(0, 8).toString('hex'));
  });

  it('is deterministic and separates roles, so timer spans never collide with activation steps', () => {
    const key = utf8('k');
    expect(hex(spanId('a', key, 0, 'step', 0))).toBe(hex(spanId('a', key, 0, 'step', 0)));
    const ids = new Set([spanId('a', key, 0, 'step', 0), spanId('a', key, 0, 'timer', 0), spanId('a', key, 0, 'step', 1), spanId('a', key, 1, 'step', 0)].map(hex));
    expect(ids.size).toBe(4);
  });

  it('never equals a prefix of the trace id of its own scope', () => {
    const key = utf8('k');
    expect(hex(spanId('a', key, 0, 'start', 0))).not.toBe(hex(traceId('a', key, 0).subarray(0, 8)));
  });
});
