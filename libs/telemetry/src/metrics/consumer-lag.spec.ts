// Layer 1: lag gauges are replaced whole by each sample, so a partition handed to another activator stops being reported here instead of freezing at its last value.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ConsumerLagMetrics, ConsumerLagSampler } from './consumer-lag.js';

describe('ConsumerLagMetrics', () => {
  it('reports num_pending and num_ack_pending per partition and forgets partitions absent from the next sample', async () => {
    const registry = new Registry();
    const lag = new ConsumerLagMetrics(registry);
    lag.record([
      { stream: 'AGENTS_INBOX', consumer: 'activator-p0000-e3', partition: 0, pending: 12, ackPending: 2 },
      { stream: 'AGENTS_INBOX', consumer: 'activator-p0001-e4', partition: 1, pending: 0, ackPending: 0 },
    ]);
    expect(await registry.metrics()).toContain('agents_consumer_pending_messages{stream="AGENTS_INBOX",consumer="activator-p0000-e3",partition="0"} 12');
    lag.record([{ stream: 'AGENTS_INBOX', consumer: 'activator-p0001-e4', partition: 1, pending: 5, ackPending: 1 }]);
    const text = await registry.metrics();
    expect(text).not.toContain('partition="0"');
    expect(text).toContain('agents_consumer_ack_pending_messages{stream="AGENTS_INBOX",consumer="activator-p0001-e4",partition="1"} 1');
  });
});

describe('ConsumerLagSampler', () => {
  it('keeps the last values when a sample fails and reports the error', async () => {
    const registry = new Registry();
    const errors: string[] = [];
    let calls = 0;
    const sampler = new ConsumerLagSampler(
      new ConsumerLagMetrics(registry),
      () => {
        calls += 1;
        return calls === 1 ? Promise.resolve([{ stream: 'AGENTS_INGEST', consumer: 'ingress-e1', pending: 3, ackPending: 0 }]) : Promise.reject(new Error('timeout'));
      },
      100,
      (error) => errors.push(error.message),
    );
    sampler.start();
    while (errors.length === 0) await new Promise((r) => setTimeout(r, 20));
    await sampler.stop();
    expect(await registry.metrics()).toContain('agents_consumer_pending_messages{stream="AGENTS_INGEST",consumer="ingress-e1",partition=""} 3');
    expect(errors[0]).toBe('timeout');
  });
});
