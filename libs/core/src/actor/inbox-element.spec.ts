// Layer 1: every element is built by one constructor; re-heading an element (the tracing runtime's re-parenting) changes its headers and nothing else.
import { describe, expect, it } from 'vitest';
import { inboxElement, withElementHeaders } from './inbox-element.js';

const key = new Uint8Array([1, 2]);
const payload = { kind: 'event', event: new Uint8Array([3]) } as const;

describe('inboxElement', () => {
  it('builds an element with direct and deliveries present only when set, in one property order', () => {
    expect(Object.keys(inboxElement(7, key, 1_000, payload, [], false, 2))).toEqual(['inboxSeq', 'entityKey', 'eventTimeMs', 'payload', 'headers', 'deliveries']);
    expect(Object.keys(inboxElement(7, key, 1_000, payload, [], true, undefined))).toEqual(['inboxSeq', 'entityKey', 'eventTimeMs', 'payload', 'headers', 'direct']);
    expect(inboxElement(7, key, 1_000, payload, [], true, 3)).toEqual({ inboxSeq: 7, entityKey: key, eventTimeMs: 1_000, payload, headers: [], direct: true, deliveries: 3 });
  });

  it('re-heads an element: new headers, every other field and its property order as they were', () => {
    const headers = [{ name: 'traceparent', value: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }];
    for (const element of [inboxElement(7, key, 1_000, payload, [], false, 1), inboxElement(8, key, 2_000, payload, [], true, undefined)]) {
      const reheaded = withElementHeaders(element, headers);
      expect(reheaded).toEqual({ ...element, headers });
      expect(Object.keys(reheaded)).toEqual(Object.keys(element));
      expect(element.headers).toEqual([]);
    }
  });
});
