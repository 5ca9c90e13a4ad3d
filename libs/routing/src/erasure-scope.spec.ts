import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entityDigest } from './entity-digest.js';
import { erasureScope, kvSubject, parkedMarkerKey, timerIndexKey } from './erasure-scope.js';
import { InboxKind } from './inbox-kind.js';
import { decodeKeyToken, encodeKeyToken, keyFromText } from './key-token.js';
import { createTopology } from './topology.js';

function subjectMatches(filter: string, subject: string): boolean {
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '>') return s.length > i;
    if (i >= s.length || (f[i] !== '*' && f[i] !== s[i])) return false;
  }
  return f.length === s.length;
}

const topology = createTopology({ partitions: 16 });

/** Every stored subject a key produces, with the stream that stores it. */
function placesOf(token: string, agent: string): [string, string][] {
  const p = topology.partitionOf(token);
  const stateKey = topology.stateKey(agent, token);
  return [
    [topology.streams.ingest.name, topology.events(agent, token)],
    [topology.streams.ingest.name, topology.results(agent, token)],
    [topology.streams.ingest.name, topology.approvals(agent, token)],
    ...Object.values(InboxKind).map((kind): [string, string] => [topology.streams.inbox.name, topology.inbox(p, agent, token, kind)]),
    [topology.streams.output.name, topology.output(agent, token)],
    [topology.streams.intents.name, topology.approvalRequests(agent, token)],
    [topology.streams.journal.name, topology.journal(agent, entityDigest(decodeKeyToken(token)))],
    [`KV_${topology.buckets.state}`, kvSubject(topology.buckets.state, stateKey)],
    [`KV_${topology.buckets.timers}`, kvSubject(topology.buckets.timers, timerIndexKey(p, stateKey))],
    [`KV_${topology.buckets.timers}`, kvSubject(topology.buckets.timers, parkedMarkerKey(p, stateKey))],
  ];
}

function covered(token: string, stream: string, subject: string): boolean {
  const scope = erasureScope(topology, token);
  return [...scope.streamPurges, ...scope.kvPurges].some((f) => f.stream === stream && subjectMatches(f.filter, subject));
}

const token = fc.uint8Array({ minLength: 1, maxLength: 40 }).map(encodeKeyToken);
const agent = fc.stringMatching(/^[a-z][a-z0-9_-]{0,20}$/);

describe('erasureScope', () => {
  it('covers every subject a key is stored under, in every agent', () => {
    fc.assert(
      fc.property(token, agent, (t, a) => {
        for (const [stream, subject] of placesOf(t, a)) expect(covered(t, stream, subject), `${stream} ${subject}`).toBe(true);
      }),
    );
  });

  it('never covers a subject of another key', () => {
    fc.assert(
      fc.property(token, token, agent, (erased, other, a) => {
        fc.pre(erased !== other);
        for (const [stream, subject] of placesOf(other, a)) expect(covered(erased, stream, subject), `${stream} ${subject}`).toBe(false);
      }),
    );
  });

  it('names the key\'s own partition', () => {
    const t = encodeKeyToken(keyFromText('user-7'));
    expect(erasureScope(topology, t).partition).toBe(topology.partitionOf(t));
  });
});

describe('entityDigest', () => {
  it('is the lowercase hex sha256 of the key bytes', () => {
    expect(entityDigest(keyFromText('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
