// Outbox entries are what a commit owes the world and what a redelivery republishes; their subjects, ids and headers must be pure functions of the element, which is checked here.
import { describe, expect, it } from 'vitest';
import { errorMessageId, outputMessageId } from '../ids/message-id.js';
import { T0, utf8Bytes } from '../testing/inbox-elements.js';
import { testAddressing } from '../testing/test-addressing.js';
import { decodeErrorRecord, encodeErrorRecord, errorRecordSource } from './error-record.js';
import { errorEntry, outputEntries, traceHeaders } from './outbox-entries.js';

const KEY = utf8Bytes('k');
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

describe('outbox entries', () => {
  it('carries only the W3C trace headers of the element', () => {
    const carried = traceHeaders([
      { name: 'traceparent', value: 'tp' },
      { name: 'Nats-Msg-Id', value: 'x' },
      { name: 'tracestate', value: 'ts' },
      { name: 'Traceparent', value: 'wrong case' },
      { name: 'Agents-Event-Time', value: '1' },
    ]);
    expect(carried).toEqual([
      { name: 'traceparent', value: 'tp' },
      { name: 'tracestate', value: 'ts' },
    ]);
  });

  it('addresses outputs to the key with ids from (agent, key, seq, index) and seq/event-time headers', () => {
    const entries = outputEntries(testAddressing, 'triage', KEY, 4, T0, [utf8Bytes('a'), utf8Bytes('b')], [{ name: 'traceparent', value: 'tp' }]);
    expect(entries.map((e) => [e.subject, e.msgId, hex(e.payload)])).toEqual([
      ['agents.output.triage.6b', outputMessageId('triage', KEY, 4, 0), '61'],
      ['agents.output.triage.6b', outputMessageId('triage', KEY, 4, 1), '62'],
    ]);
    expect(entries[0]?.headers).toEqual([
      { name: 'Agents-Seq', value: '4' },
      { name: 'Agents-Event-Time', value: String(T0) },
      { name: 'traceparent', value: 'tp' },
    ]);
  });

  it('addresses an error record to its reason with an id keyed by the inbox seq', () => {
    const record = { agent: 'triage', entityKey: KEY, reason: 'orphaned_result' as const, detail: 'no_continuation:x', eventTimeMs: T0 };
    const entry = errorEntry(testAddressing, record, 17, []);
    expect(entry.subject).toBe('agents.errors.triage.orphaned_result');
    expect(entry.msgId).toBe(errorMessageId('triage', KEY, 17));
    expect(entry.headers).toEqual([
      { name: 'Agents-Reason', value: 'orphaned_result' },
      { name: 'Agents-Agent', value: 'triage' },
      { name: 'Agents-Event-Time', value: String(T0) },
    ]);
    // The record names the element it is about: the inbox stream and the element's sequence (redrive reads it back).
    expect(hex(entry.payload)).toBe(hex(encodeErrorRecord({ ...record, source: { stream: 'AGENTS_INBOX', seq: 17 } })));
    expect(errorRecordSource(entry.payload)).toEqual({ stream: 'AGENTS_INBOX', seq: 17 });
    expect(errorRecordSource(encodeErrorRecord(record))).toBeUndefined();
  });
});

describe('error records', () => {
  it('round-trip and encode identically every time', () => {
    const record = { agent: 'triage', entityKey: KEY, reason: 'activation_timeout' as const, detail: '', eventTimeMs: T0 };
    const bytes = encodeErrorRecord(record);
    expect(hex(encodeErrorRecord({ ...record }))).toBe(hex(bytes));
    expect(decodeErrorRecord(Uint8Array.from(bytes))).toEqual(record);
  });
});
