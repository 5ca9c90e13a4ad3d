import { headers as clientHeaders, Match, type MsgHdrsImpl } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { OutgoingHeaders } from './outgoing-headers.js';

const list = [
  { name: 'Agents-Agent', value: 'fraud-triage' },
  { name: 'Agents-Seq', value: '12' },
  { name: 'traceparent', value: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
  { name: 'Agents-Event-Time', value: '  1700000000000 ' },
];

/** The client's encoding of `entries`, appended in order. */
function clientEncoding(entries: readonly { name: string; value: string }[]): Uint8Array {
  const h = clientHeaders();
  for (const { name, value } of entries) h.append(name, value);
  return (h as MsgHdrsImpl).encode();
}

describe('OutgoingHeaders', () => {
  it('encodes the same header block as the client for the same headers in the same order (values trimmed)', () => {
    const ours = new OutgoingHeaders(list);
    ours.set('Nats-Msg-Id', 'a1b2');
    expect(Buffer.from(ours.encode()).toString()).toBe(Buffer.from(clientEncoding([...list, { name: 'Nats-Msg-Id', value: 'a1b2' }])).toString());
    expect(ours.get('Agents-Event-Time')).toBe('1700000000000');
  });

  it('writes no header block without headers, as the client', () => {
    expect(new OutgoingHeaders().encode()).toEqual(clientEncoding([]));
    expect(new OutgoingHeaders().encode().length).toBe(0);
  });

  it('re-encodes after a change, and set replaces every value under the name', () => {
    const h = new OutgoingHeaders([{ name: 'Nats-Msg-Id', value: 'one' }]);
    const first = Buffer.from(h.encode()).toString();
    h.set('Nats-Msg-Id', 'two');
    expect(Buffer.from(h.encode()).toString()).not.toBe(first);
    expect(h.values('Nats-Msg-Id')).toEqual(['two']);
  });

  it('refuses what the client refuses: a colon or a space in a name, a line break in a value', () => {
    expect(() => new OutgoingHeaders([{ name: 'Bad:Name', value: 'x' }])).toThrow(/not a valid character in a header name/);
    expect(() => new OutgoingHeaders([{ name: 'Bad Name', value: 'x' }])).toThrow(/not a valid character in a header name/);
    expect(() => new OutgoingHeaders([{ name: 'Ok', value: 'a\r\nInjected: yes' }])).toThrow(/cannot contain/);
    expect(() => clientHeaders().append('Bad:Name', 'x')).toThrow(/not a valid character in a header name/);
  });

  it('reads like the client: exact names by default, canonical MIME and case-insensitive on request, iterated by name', () => {
    const h = new OutgoingHeaders([
      { name: 'x-trace', value: 'a' },
      { name: 'x-trace', value: 'b' },
      { name: 'Other', value: 'c' },
    ]);
    expect(h.has('X-Trace')).toBe(false);
    expect(h.has('X-Trace', Match.IgnoreCase)).toBe(true);
    expect(h.get('x-trace')).toBe('a');
    expect(h.last('x-trace')).toBe('b');
    expect(h.keys()).toEqual(['x-trace', 'Other']);
    expect([...h]).toEqual([
      ['x-trace', ['a', 'b']],
      ['Other', ['c']],
    ]);
    h.append('content-type', 'json', Match.CanonicalMIME);
    expect(h.has('Content-Type')).toBe(true);
    h.delete('X-TRACE', Match.IgnoreCase);
    expect(h.keys()).toEqual(['Other', 'Content-Type']);
  });
});
