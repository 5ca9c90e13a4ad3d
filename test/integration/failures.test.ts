// Layer 3: failed and timed-out activations against real services — an error record, zero
// mutation, and the key goes on with its next element (beam-agents A05, A06, A07).
import { headers as natsHeaders } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeErrorRecord, ErrorReason } from '#core';
import { collect, startCluster, type TestCluster } from '../harness/index.js';

const text = new TextDecoder();

describe('failed activations', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await startCluster({
      agentModules: ['test/fixtures/agents/ring.agent.mjs'],
      env: { AGENTS_ACTIVATION_TIMEOUT_MS: '400' },
    });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('commits nothing but an activation_error record when the agent throws, then runs the next event on the old state', async () => {
    const outputs = await collect(cluster.client.nc, 'agents.output.ring.fails');
    const errors = await collect(cluster.client.nc, 'agents.errors.ring.activation_error');
    const at = natsHeaders();
    at.set('Agents-Event-Time', '1700000000000');
    await cluster.client.publishEvent('ring', 'fails', 'a');
    const sentAt = Date.now();
    await cluster.client.js.publish('agents.events.ring.fails', new TextEncoder().encode('boom'), { headers: at });
    await cluster.client.publishEvent('ring', 'fails', 'b');
    await outputs.waitForCount(2);
    const [error] = await errors.waitForCount(1);
    expect(outputs.messages.map((m) => text.decode(m.data))).toEqual(['a#0', 'a,b#1']);
    const record = decodeErrorRecord(error!.data);
    expect(record.reason).toBe(ErrorReason.ActivationError);
    expect(record.detail).toMatch(/^Error: boom requested failed_at_step=0 after=activation_start$/);
    // The record carries the server's stamp, never the publisher's claimed (back-dated) time.
    expect(record.eventTimeMs).toBeGreaterThanOrEqual(sentAt - 5);
    expect(text.decode(record.entityKey)).toBe('fails');
  });

  it('abandons an activation that outruns its timeout with an activation_timeout record and zero mutation', async () => {
    const outputs = await collect(cluster.client.nc, 'agents.output.ring.slowpoke');
    const timeouts = await collect(cluster.client.nc, 'agents.errors.ring.activation_timeout');
    await cluster.client.publishEvent('ring', 'slowpoke', 'x');
    await cluster.client.publishEvent('ring', 'slowpoke', 'slow');
    await cluster.client.publishEvent('ring', 'slowpoke', 'y');
    await outputs.waitForCount(2);
    const [timeout] = await timeouts.waitForCount(1);
    expect(outputs.messages.map((m) => text.decode(m.data))).toEqual(['x#0', 'x,y#1']);
    expect(decodeErrorRecord(timeout!.data).detail).toBe('');
  });
});
