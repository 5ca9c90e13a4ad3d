// Layer 3: bad input through real ingress — each kind becomes an error record with its reason,
// nothing reaches an agent, the service stays up and the next good event on the key runs.
import { headers as natsHeaders } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeErrorRecord, ErrorReason } from '#core';
import { bearer, collect, startCluster, type TestCluster } from '../harness/index.js';

const text = new TextDecoder();

describe('bad input at ingress', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await startCluster({ agentModules: ['test/fixtures/agents/counter.agent.mjs'] });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  async function expectRecord(subject: string, publish: () => Promise<unknown>): Promise<ReturnType<typeof decodeErrorRecord>> {
    const errors = await collect(cluster.client.nc, subject);
    await publish();
    const [msg] = await errors.waitForCount(1, 20_000);
    errors.close();
    return decodeErrorRecord(msg!.data);
  }

  it('turns each kind of bad input into its named error record and keeps serving the key', async () => {
    const js = cluster.client.js;
    const enc = new TextEncoder();

    const notJson = await expectRecord('agents.errors.counter.malformed_input', () => js.publish('agents.events.counter.bad-1', enc.encode('not json')));
    expect(notJson.reason).toBe(ErrorReason.MalformedInput);
    expect(text.decode(notJson.entityKey)).toBe('bad-1');
    expect(notJson.detail).toContain('JSON');

    const badTime = natsHeaders();
    badTime.set('Agents-Event-Time', 'yesterday');
    const time = await expectRecord('agents.errors.counter.malformed_input', () => js.publish('agents.events.counter.bad-1', enc.encode('{}'), { headers: badTime }));
    expect(time.detail).toContain('Agents-Event-Time');

    const unknown = await expectRecord('agents.errors.nobody.unknown_agent', () => js.publish('agents.events.nobody.bad-1', enc.encode('{}')));
    expect(unknown.reason).toBe(ErrorReason.UnknownAgent);

    const badToken = await expectRecord('agents.errors.counter.key_invalid', () => js.publish('agents.events.counter.a=zz', enc.encode('{}')));
    expect(badToken.reason).toBe(ErrorReason.KeyInvalid);

    const longKey = await expectRecord('agents.errors.counter.key_invalid', () => cluster.client.publishEvent('counter', 'k'.repeat(300), {}));
    expect(longKey.detail).toMatch(/256/);

    const large = await expectRecord('agents.errors.counter.payload_too_large', () => js.publish('agents.events.counter.bad-1', new Uint8Array(300 * 1024)));
    expect(large.reason).toBe(ErrorReason.PayloadTooLarge);
    expect(text.decode(large.entityKey)).toBe('bad-1');

    const shape = await expectRecord('agents.errors._.malformed_input', () => js.publish('agents.events.counter', enc.encode('{}')));
    expect(shape.detail).toContain('not an ingest subject');

    const garbageResult = await expectRecord('agents.errors.counter.malformed_input', () => js.publish('agents.results.counter.bad-1', enc.encode('{"intentId": 7}')));
    expect(garbageResult.detail).toContain('intentId');

    // The key was never touched by the bad input: its first good event is activation seq 0.
    const answer = await cluster.client.publishAndWait('counter', 'bad-1', { n: 1 });
    expect(answer.kind).toBe('output');
    if (answer.kind === 'output') expect(JSON.parse(answer.output.text)).toEqual({ n: 1, count: 1, seq: 0 });
    expect(cluster.services.get('ingress')!.process.exitCode).toBeNull();
  });

  it('answers HTTP clients with the reason and a 4xx instead of storing bad input', async () => {
    const base = cluster.httpBase();
    const headers = bearer(undefined, { 'content-type': 'application/json' });
    const unknown = await fetch(`${base}/v1/agents/nobody/events/k`, { method: 'POST', headers, body: '{}' });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await unknown.json()) as { reason: string }).reason).toBe('unknown_agent');
    const malformed = await fetch(`${base}/v1/agents/counter/events/k`, { method: 'POST', headers, body: 'nope' });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { reason: string }).reason).toBe('malformed_input');
    const large = await fetch(`${base}/v1/agents/counter/events/k`, { method: 'POST', headers, body: new Uint8Array(300 * 1024) });
    expect(large.status).toBe(413);
    expect(((await large.json()) as { reason: string }).reason).toBe('payload_too_large');
  });
});
