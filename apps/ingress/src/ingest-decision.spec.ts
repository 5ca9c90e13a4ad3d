// decideIngest is the pure heart of ingress; here its sharding and its shared admission rules are pinned without a broker.
import { describe, expect, it } from 'vitest';
import { decodeInboxEnvelope, encodeToolResult, ToolResultStatus, type AgentDefinition } from '#core';
import { createTopology, encodeKeyToken, keyFromText, screenEvent, shardKey } from '#routing';
import { decideIngest, type IngestDecision } from './ingest-decision.js';

const utf8 = new TextEncoder();
const topology = createTopology({ partitions: 8 });
const limits = { maxEventBytes: 1_024, maxKeyBytes: 32 };
const handler = (): never => {
  throw new Error('never runs');
};
const hot: AgentDefinition = { name: 'hot', handler, shards: 4, validateEvent: (e) => (e[0] === 0x7b ? undefined : 'JSON objects only') };
const plain: AgentDefinition = { name: 'plain', handler };
const agents = new Map([hot, plain].map((a) => [a.name, a]));

function decide(subject: string, data: Uint8Array): IngestDecision {
  return decideIngest({ subject, data, headers: [], ingestTimeMs: 1_700_000_000_000 }, agents, topology, limits);
}

function forwarded(decision: IngestDecision): Extract<IngestDecision, { kind: 'forward' }> {
  if (decision.kind !== 'forward') throw new Error(`expected a forward, got ${decision.reason}: ${decision.detail}`);
  return decision;
}

describe('decideIngest', () => {
  it('forwards an event of a sharded agent to the shard its bytes choose, in the envelope and the subject', () => {
    const event = utf8.encode('{"n":1}');
    const decision = forwarded(decide('agents.events.hot.user-1', event));
    const shard = shardKey(keyFromText('user-1'), 4, event);
    expect(decision.token).toBe(encodeKeyToken(shard));
    expect(decision.inboxSubject).toBe(topology.inbox(topology.partitionOf(decision.token), 'hot', decision.token, 'event'));
    expect(Buffer.from(decodeInboxEnvelope(decision.envelope).entityKey).equals(Buffer.from(shard))).toBe(true);
  });

  it('sends the same event bytes to the same shard on every redelivery', () => {
    const event = utf8.encode('{"n":2}');
    expect(forwarded(decide('agents.events.hot.user-1', event)).inboxSubject).toBe(forwarded(decide('agents.events.hot.user-1', event)).inboxSubject);
  });

  it('passes tool results through unchanged: they already address the shard their intent was minted on', () => {
    const key = keyFromText('user-1#2');
    const result = encodeToolResult({ intentId: 'i-1', entityKey: key, seq: 0, status: ToolResultStatus.Ok, payload: new Uint8Array(0), errorMessage: '', completedAtMs: 0 });
    const decision = forwarded(decide(`agents.results.hot.${encodeKeyToken(key)}`, result));
    expect(decision.token).toBe('user-1=232');
    expect(decision.inboxSubject.endsWith('.hot.user-1=232.result')).toBe(true);
  });

  it('stamps the activation clock from the ingest stream, keeping a back-dated client time only as an attribute', () => {
    const backDated = String(1_700_000_000_000 - 3_600_000);
    const decision = forwarded(decideIngest({ subject: 'agents.approvals.plain.k', data: utf8.encode('{"intentId":"i-1","approved":true}'), headers: [{ name: 'Agents-Event-Time', value: backDated }], ingestTimeMs: 1_700_000_000_000 }, agents, topology, limits));
    expect(decodeInboxEnvelope(decision.envelope).eventTimeMs).toBe(1_700_000_000_000);
    expect(decision.headers).toEqual(expect.arrayContaining([{ name: 'Agents-Event-Time', value: '1700000000000' }, { name: 'Agents-Client-Time', value: backDated }]));
  });

  it('leaves the key of an agent without shards as published', () => {
    expect(forwarded(decide('agents.events.plain.user-1', utf8.encode('x'))).token).toBe('user-1');
  });

  it("refuses with exactly the shared admission rules' reason and detail, naming the logical key", () => {
    const cases: [string, string, Uint8Array][] = [
      ['hot', 'user-1', utf8.encode('not json')],
      ['hot', 'user-1', new Uint8Array(2_000)],
      ['hot', 'k'.repeat(40), utf8.encode('{}')],
      ['nobody', 'user-1', utf8.encode('{}')],
    ];
    for (const [agent, key, event] of cases) {
      const decision = decide(`agents.events.${agent}.${encodeKeyToken(keyFromText(key))}`, event);
      const expected = screenEvent({ agent, entityKey: keyFromText(key), event }, agents, limits);
      expect(decision).toMatchObject({ kind: 'reject', reason: expected?.reason, detail: expected?.detail });
    }
    const tooLarge = decide('agents.events.hot.user-1', new Uint8Array(2_000));
    expect(tooLarge.kind === 'reject' && new TextDecoder().decode(tooLarge.entityKey)).toBe('user-1');
    // An unknown agent's record still names the key it was published for.
    const unknown = decide('agents.events.nobody.user-1', utf8.encode('{}'));
    expect(unknown).toMatchObject({ kind: 'reject', reason: 'unknown_agent' });
    expect(unknown.kind === 'reject' && new TextDecoder().decode(unknown.entityKey)).toBe('user-1');
  });

  it('names the lane its subject named, forwarded or refused, and unknown for a subject that is no ingest subject', () => {
    expect(decide('agents.events.plain.user-1', utf8.encode('x')).lane).toBe('events');
    expect(decide('agents.approvals.plain.k', utf8.encode('{"intentId":"i-1","approved":true}')).lane).toBe('approvals');
    expect(decide('agents.results.plain.k', utf8.encode('not a result'))).toMatchObject({ kind: 'reject', lane: 'results' });
    expect(decide('agents.events.nobody.user-1', utf8.encode('{}'))).toMatchObject({ kind: 'reject', lane: 'events' });
    expect(decide('agents.nowhere', utf8.encode('{}'))).toMatchObject({ kind: 'reject', lane: 'unknown' });
  });
});
