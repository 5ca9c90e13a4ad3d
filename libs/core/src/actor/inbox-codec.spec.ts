// The inbox envelope is what ingress, the effector and timers publish into a key's lane; its decode rules (terminal errors, empty payloads, oneof exclusivity) are checked here, its byte layout in golden/.
import { describe, expect, it } from 'vitest';
import { TerminalError } from '../errors/runtime-error.js';
import { T0, utf8Bytes } from '../testing/inbox-elements.js';
import { decodeApproval, decodeInboxEnvelope, decodeToolResult, encodeInboxEnvelope, InboxDecodeError } from './inbox-codec.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
/** A field 1 (entity_key) that claims 100 bytes but carries 2: truncated. */
const TRUNCATED = Uint8Array.from([0x0a, 0x64, 0x01, 0x02]);

describe('inbox codec', () => {
  it('round-trips an event, including an empty one', () => {
    for (const event of [utf8Bytes('{"a":1}'), new Uint8Array(0)]) {
      const fields = { entityKey: utf8Bytes('k'), eventTimeMs: T0, payload: { kind: 'event' as const, event } };
      const decoded = decodeInboxEnvelope(Uint8Array.from(encodeInboxEnvelope(fields)));
      expect(decoded.payload.kind).toBe('event');
      expect(decoded.payload.kind === 'event' && hex(decoded.payload.event)).toBe(hex(event));
      expect(decoded.eventTimeMs).toBe(T0);
    }
  });

  it('reads an envelope without any payload as an empty event', () => {
    const decoded = decodeInboxEnvelope(Uint8Array.from([0x0a, 0x01, 0x6b]));
    expect(decoded.payload).toEqual({ kind: 'event', event: new Uint8Array(0) });
    expect(hex(decoded.entityKey)).toBe('6b');
    expect(decoded.eventTimeMs).toBe(0);
  });

  it('keeps the payload oneof exclusive: the last payload on the wire wins', () => {
    const event = encodeInboxEnvelope({ entityKey: utf8Bytes('k'), eventTimeMs: T0, payload: { kind: 'event', event: utf8Bytes('e') } });
    const timer = encodeInboxEnvelope({ entityKey: utf8Bytes('k'), eventTimeMs: T0, payload: { kind: 'timer', timer: { timerId: 't', kind: 1, dueAtMs: T0 } } });
    const decoded = decodeInboxEnvelope(Uint8Array.from(Buffer.concat([event, timer])));
    expect(decoded.payload).toEqual({ kind: 'timer', timer: { timerId: 't', kind: 1, dueAtMs: T0 } });
  });

  it('refuses bytes that are not an envelope with a terminal InboxDecodeError', () => {
    expect(() => decodeInboxEnvelope(TRUNCATED)).toThrow(InboxDecodeError);
    expect(() => decodeInboxEnvelope(TRUNCATED)).toThrow(TerminalError);
    expect(() => decodeToolResult(TRUNCATED)).toThrow(InboxDecodeError);
    expect(() => decodeApproval(TRUNCATED)).toThrow(/approval does not decode/);
  });
});
