// The topology is the public subject/stream/bucket contract; pure, so every name and parse rule is pinned here without a broker.
import { ErrorReason } from '#core';
import type { ErrorReason as ErrorReasonType } from '#core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entityDigest } from './entity-digest.js';
import { KeyTokenError, RoutingError } from './errors.js';
import { InboxKind } from './inbox-kind.js';
import type { InboxKind as InboxKindType } from './inbox-kind.js';
import { IngestLane } from './ingest-lane.js';
import { encodeKeyToken, keyFromText } from './key-token.js';
import { partitionOf } from './partition.js';
import { createTopology, UNNAMED_AGENT } from './topology.js';
import type { Topology } from './topology.js';

const topology = createTopology({ partitions: 16 });
const token = encodeKeyToken(keyFromText('user@example.com')); // 'user=40example=2Ecom'
const p = partitionOf(token, 16);

/** NATS subject matching (`*` one token, `>` one or more trailing tokens), as the server applies stream filters. */
function subjectMatches(filter: string, subject: string): boolean {
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '>') return s.length > i;
    if (i >= s.length || (f[i] !== '*' && f[i] !== s[i])) return false;
  }
  return f.length === s.length;
}

function streamsCapturing(t: Topology, subject: string): string[] {
  return Object.values(t.streams)
    .filter((stream) => stream.subjects.some((filter) => subjectMatches(filter, subject)))
    .map((stream) => stream.name);
}

/** The entity digest of `user@example.com`. */
const DIGEST = entityDigest(keyFromText('user@example.com'));

const agentName = fc.stringMatching(/^[a-z][a-z0-9_-]{0,63}$/);
const anyKeyToken = fc.uint8Array({ minLength: 1, maxLength: 64 }).map(encodeKeyToken);
const inboxKind = fc.constantFrom(...Object.values(InboxKind));
const ingestLane = fc.constantFrom(...Object.values(IngestLane));

describe('createTopology', () => {
  it('defaults the prefix to "agents" and names the streams and buckets of the contract', () => {
    expect(topology.prefix).toBe('agents');
    expect(topology.partitions).toBe(16);
    expect(Object.values(topology.streams).map((stream) => stream.name)).toEqual([
      'AGENTS_INGEST',
      'AGENTS_INBOX',
      'AGENTS_OUTPUT',
      'AGENTS_INTENTS',
      'AGENTS_ERRORS',
      'AGENTS_AUDIT',
      'AGENTS_JOURNAL',
    ]);
    expect(topology.buckets).toEqual({
      state: 'AGENTS_STATE',
      leases: 'AGENTS_LEASES',
      members: 'AGENTS_MEMBERS',
      timers: 'AGENTS_TIMERS',
      effects: 'AGENTS_EFFECTS',
      erasures: 'AGENTS_ERASURES',
      budgets: 'AGENTS_BUDGETS',
    });
  });

  it('derives stream and bucket names from a custom prefix, uppercased with "-" as "_"', () => {
    const custom = createTopology({ prefix: 'acme-prod', partitions: 4 });
    expect(custom.streams.inbox.name).toBe('ACME_PROD_INBOX');
    expect(custom.buckets.effects).toBe('ACME_PROD_EFFECTS');
    expect(custom.events('fraud', 'k')).toBe('acme-prod.events.fraud.k');
    expect(custom.streams.ingest.subjects).toEqual(['acme-prod.events.>', 'acme-prod.results.>', 'acme-prod.approvals.>']);
  });

  it.each(['', 'a.b', 'a b', '*', '>', 'agents/x', 'x'.repeat(65)])('rejects the prefix %j, which is not one safe subject token', (prefix) => {
    expect(() => createTopology({ prefix, partitions: 16 })).toThrow(RoutingError);
  });

  it.each([0, 10_001, 3.5])('rejects partition count %d', (partitions) => {
    expect(() => createTopology({ partitions })).toThrow(`got ${partitions}`);
  });

  it('cannot be mutated', () => {
    expect(Object.isFrozen(topology)).toBe(true);
    expect(Object.isFrozen(topology.streams.ingest.subjects)).toBe(true);
  });
});

describe('subject builders', () => {
  it('spell every subject of ARCHITECTURE.md §3', () => {
    expect(topology.events('fraud-triage', token)).toBe('agents.events.fraud-triage.user=40example=2Ecom');
    expect(topology.results('fraud-triage', token)).toBe('agents.results.fraud-triage.user=40example=2Ecom');
    expect(topology.approvals('fraud-triage', token)).toBe('agents.approvals.fraud-triage.user=40example=2Ecom');
    expect(topology.ingest(IngestLane.Results, 'fraud-triage', token)).toBe(topology.results('fraud-triage', token));
    expect(topology.inbox(p, 'fraud-triage', token, InboxKind.Timer)).toBe(`agents.inbox.${p}.fraud-triage.user=40example=2Ecom.timer`);
    expect(topology.inboxPartitionFilter(15)).toBe('agents.inbox.15.>');
    expect(topology.output('fraud-triage', token)).toBe('agents.output.fraud-triage.user=40example=2Ecom');
    expect(topology.intents('fraud-triage', 'http_get')).toBe('agents.intents.fraud-triage.http_get');
    expect(topology.approvalRequests('fraud-triage', token)).toBe('agents.approval-requests.fraud-triage.user=40example=2Ecom');
    expect(topology.errors('fraud-triage', ErrorReason.ActivationTimeout)).toBe('agents.errors.fraud-triage.activation_timeout');
    expect(topology.memory('search')).toBe('agents.memory.search');
    expect(topology.memoryFilter).toBe('agents.memory.*');
    expect(topology.stateKey('fraud-triage', token)).toBe('fraud-triage.user=40example=2Ecom');
    expect(topology.journal('fraud-triage', DIGEST)).toBe(`agents.journal.fraud-triage.${DIGEST}`);
  });

  it('names a key in a journal subject by its digest only, never by a token', () => {
    expect(() => topology.journal('fraud-triage', token)).toThrow(RoutingError);
    expect(() => topology.journal('fraud-triage', DIGEST.toUpperCase())).toThrow(RoutingError);
    expect(() => topology.journal('Bad.Agent', DIGEST)).toThrow(RoutingError);
  });

  it('builds wildcard filters over outputs and error records, narrowing only what is given', () => {
    expect(topology.outputFilter()).toBe('agents.output.*.*');
    expect(topology.outputFilter('fraud-triage')).toBe('agents.output.fraud-triage.*');
    expect(topology.outputFilter('fraud-triage', 'k1')).toBe('agents.output.fraud-triage.k1');
    expect(topology.errorsFilter()).toBe('agents.errors.*.*');
    expect(topology.errorsFilter(undefined, ErrorReason.KeyInvalid)).toBe('agents.errors.*.key_invalid');
    expect(() => topology.outputFilter('*')).toThrow();
  });

  it('addresses error records about an unreadable agent token to the reserved placeholder', () => {
    expect(topology.errors(UNNAMED_AGENT, ErrorReason.MalformedInput)).toBe('agents.errors._.malformed_input');
    expect(() => topology.errors('Bad.Agent', ErrorReason.UnknownAgent)).toThrow();
  });

  it('route every published subject into exactly the stream that owns it', () => {
    const expectations: ReadonlyArray<readonly [string, string]> = [
      [topology.events('a', token), 'AGENTS_INGEST'],
      [topology.results('a', token), 'AGENTS_INGEST'],
      [topology.approvals('a', token), 'AGENTS_INGEST'],
      [topology.inbox(p, 'a', token, InboxKind.Event), 'AGENTS_INBOX'],
      [topology.output('a', token), 'AGENTS_OUTPUT'],
      [topology.intents('a', 'tool'), 'AGENTS_INTENTS'],
      [topology.approvalRequests('a', token), 'AGENTS_INTENTS'],
      [topology.errors('a', ErrorReason.MalformedInput), 'AGENTS_ERRORS'],
      [topology.auditErasure, 'AGENTS_AUDIT'],
      [topology.journal('a', DIGEST), 'AGENTS_JOURNAL'],
    ];
    for (const [subject, stream] of expectations) expect(streamsCapturing(topology, subject)).toEqual([stream]);
    expect(streamsCapturing(topology, topology.memory('load'))).toEqual([]);
    expect(streamsCapturing(topology, topology.admin('erase'))).toEqual([]);
    expect(subjectMatches(topology.inboxPartitionFilter(p), topology.inbox(p, 'a', token, InboxKind.Event))).toBe(true);
    expect(subjectMatches(topology.memoryFilter, topology.memory('load'))).toBe(true);
  });

  it('produce state keys that are valid JetStream KV keys', () => {
    fc.assert(
      fc.property(agentName, anyKeyToken, (agent, keyToken) => {
        expect(topology.stateKey(agent, keyToken)).toMatch(/^[-/=.\w]+$/);
      }),
    );
  });

  it.each(['', 'Fraud', '1agent', 'a.b', 'a*', 'x'.repeat(65)])('reject the agent name %j', (agent) => {
    expect(() => topology.events(agent, token)).toThrow(RoutingError);
    expect(() => topology.stateKey(agent, token)).toThrow(RoutingError);
    expect(() => topology.intents(agent, 'tool')).toThrow(RoutingError);
  });

  it.each(['', 'a.b', 'user=2ecom', '=41', '*'])('reject the non-canonical key token %j', (bad) => {
    expect(() => topology.events('a', bad)).toThrow(KeyTokenError);
    expect(() => topology.output('a', bad)).toThrow(KeyTokenError);
    expect(() => topology.approvalRequests('a', bad)).toThrow(KeyTokenError);
    expect(() => topology.stateKey('a', bad)).toThrow(KeyTokenError);
  });

  it('refuse to put a key on a partition other than its own', () => {
    expect(() => topology.inbox((p + 1) % 16, 'a', token, InboxKind.Event)).toThrow(`belongs to partition ${p}`);
  });

  it.each([-1, 16, 1.5])('reject partition %d outside 0..P-1', (partition) => {
    expect(() => topology.inboxPartitionFilter(partition)).toThrow(RoutingError);
    expect(() => topology.inbox(partition, 'a', token, InboxKind.Event)).toThrow(RoutingError);
  });

  it('reject values outside the closed vocabularies', () => {
    expect(() => topology.inbox(p, 'a', token, 'evt' as InboxKindType)).toThrow(/unknown inbox kind/);
    expect(() => topology.errors('a', 'oops' as ErrorReasonType)).toThrow(/unknown error reason/);
    expect(() => topology.ingest('event' as IngestLane, 'a', token)).toThrow(/unknown ingest lane/);
  });

  it.each(['', 'Http', 'http.get', 'http get', '9tool', 'x'.repeat(65)])('reject the tool or memory operation name %j', (name) => {
    expect(() => topology.intents('a', name)).toThrow(RoutingError);
    expect(() => topology.memory(name)).toThrow(RoutingError);
  });
});

describe('parseInboxSubject', () => {
  it('inverts inbox() for any agent, key and kind', () => {
    fc.assert(
      fc.property(agentName, anyKeyToken, inboxKind, (agent, keyToken, kind) => {
        const partition = topology.partitionOf(keyToken);
        expect(topology.parseInboxSubject(topology.inbox(partition, agent, keyToken, kind))).toEqual({
          partition,
          agent,
          token: keyToken,
          kind,
        });
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ['another prefix', `other.inbox.${p}.a.${token}.event`],
    ['another lane', `agents.output.${p}.a.${token}.event`],
    ['too few tokens', `agents.inbox.${p}.a.${token}`],
    ['too many tokens', `agents.inbox.${p}.a.${token}.event.x`],
    ['an unknown kind', `agents.inbox.${p}.a.${token}.evt`],
    ['a partition out of range', `agents.inbox.16.a.${token}.event`],
    ['a zero-padded partition', `agents.inbox.0${p}.a.${token}.event`],
    ['a negative partition', `agents.inbox.-${p}.a.${token}.event`],
    ['a partition that is not the key\'s', `agents.inbox.${(p + 1) % 16}.a.${token}.event`],
    ['an invalid agent name', `agents.inbox.${p}.Agent.${token}.event`],
    ['a non-canonical token', `agents.inbox.${p}.a.user=40example=2ecom.event`],
    ['an empty string', ''],
  ])('returns undefined for %s', (_why, subject) => {
    expect(topology.parseInboxSubject(subject)).toBeUndefined();
  });
});

describe('parseIngestSubject', () => {
  it('inverts the ingest builders for any lane, agent and key', () => {
    fc.assert(
      fc.property(ingestLane, agentName, anyKeyToken, (lane, agent, keyToken) => {
        expect(topology.parseIngestSubject(topology.ingest(lane, agent, keyToken))).toEqual({ lane, agent, token: keyToken });
      }),
      { numRuns: 500 },
    );
  });

  it('leaves agent and token unvalidated, so ingress can report unknown_agent or key_invalid', () => {
    expect(topology.parseIngestSubject('agents.events.No-Such_Agent.user=2ecom')).toEqual({
      lane: 'events',
      agent: 'No-Such_Agent',
      token: 'user=2ecom',
    });
  });

  it.each([
    ['another prefix', 'acme.events.a.k'],
    ['an unknown lane', 'agents.event.a.k'],
    ['an internal lane', 'agents.inbox.a.k'],
    ['a key with an unencoded dot', 'agents.events.a.user@example.com'],
    ['too few tokens', 'agents.events.a'],
    ['an empty agent token', 'agents.events..k'],
    ['an empty key token', 'agents.events.a.'],
  ])('returns undefined for %s', (_why, subject) => {
    expect(topology.parseIngestSubject(subject)).toBeUndefined();
  });
});
