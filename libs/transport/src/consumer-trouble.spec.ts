import { describe, expect, it } from 'vitest';
import { consumerTrouble } from './consumer-trouble.js';

describe('consumerTrouble', () => {
  it('passes over the routine notifications of an idle or busy pull', () => {
    expect(consumerTrouble({ type: 'next', options: { batch: 10, no_wait: false, expires: 5_000, max_bytes: 0, idle_heartbeat: 2_500 } })).toBeUndefined();
    expect(consumerTrouble({ type: 'heartbeat', lastConsumerSequence: 3, lastStreamSequence: 9 })).toBeUndefined();
    expect(consumerTrouble({ type: 'discard', messagesLeft: 10, bytesLeft: 0 })).toBeUndefined();
    expect(consumerTrouble({ type: 'debug', code: 408, description: 'Request Timeout' })).toBeUndefined();
  });

  it('reports missed heartbeats and refused pulls as delays the client recovers from', () => {
    expect(consumerTrouble({ type: 'heartbeats_missed', count: 2 })).toEqual({ gone: false, detail: 'missed 2 idle heartbeats from the server: pulling again' });
    expect(consumerTrouble({ type: 'exceeded_limits', code: 409, description: 'Exceeded MaxWaiting' })?.gone).toBe(false);
    expect(consumerTrouble({ type: 'no_responders', code: 503 })?.gone).toBe(false);
  });

  it('reports a deleted or missing consumer, or a missing stream, as gone', () => {
    expect(consumerTrouble({ type: 'consumer_not_found', name: 'activator-p0003-e7', stream: 'AGENTS_INBOX', count: 1 })).toEqual({
      gone: true,
      detail: 'consumer activator-p0003-e7 of stream AGENTS_INBOX not found (1 times in a row)',
    });
    expect(consumerTrouble({ type: 'consumer_deleted', code: 409, description: 'Consumer Deleted' })?.gone).toBe(true);
    expect(consumerTrouble({ type: 'stream_not_found', name: 'AGENTS_INBOX' })?.gone).toBe(true);
  });
});
