// Layer 3: a consumer deleted from under its owner (an operator's `nats consumer rm`, a restore
// that dropped it). The client only keeps asking for it: a partition resets itself (its elements
// are deduplicated by inbox sequence), while ingress stops and says so (re-forwarding its stream
// from the start would apply old events again). Against a real nats-server 2.9 and real services.
import { DeliverPolicy, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeKeyToken, keyFromText } from '#routing';
import { collect, startCluster, type TestCluster, until } from '../harness/index.js';

const text = new TextDecoder();

describe('a consumer deleted from under its owner', () => {
  let cluster: TestCluster;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    cluster = await startCluster({ agentModules: ['test/fixtures/agents/counter.agent.mjs'] });
    jsm = await jetstreamManager(cluster.client.nc);
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  async function count(key: string, n: number): Promise<unknown> {
    const answer = await cluster.client.publishAndWait('counter', key, { n }, { timeoutMs: 30_000 });
    return answer.kind === 'output' ? (JSON.parse(answer.output.text) as { count: number }).count : answer;
  }

  async function consumersOf(stream: string, filter?: string): Promise<string[]> {
    const names: string[] = [];
    for await (const info of jsm.consumers.list(stream)) if (filter === undefined || info.config.filter_subject === filter) names.push(info.name);
    return names;
  }

  it('resets the partition under a new consumer, and its keys are served again with nothing applied twice', async () => {
    const key = 'deleted-consumer';
    const partition = cluster.client.topology.partitionOf(encodeKeyToken(keyFromText(key)));
    expect(await count(key, 1)).toBe(1);
    const [before] = await consumersOf('AGENTS_INBOX', cluster.client.topology.inboxPartitionFilter(partition));
    expect(before).toBeDefined();
    await jsm.consumers.delete('AGENTS_INBOX', before!);

    // The new consumer replays the partition from its start (the deleted one's floor is gone): the
    // first event comes back as a duplicate (its output may be published again, under the same
    // message id), and the count goes on from 1.
    const outputs = await collect(cluster.client.nc, `agents.output.counter.${encodeKeyToken(keyFromText(key))}`);
    await cluster.client.publishEvent('counter', key, { n: 2 });
    const second = await outputs.waitFor((m) => (JSON.parse(text.decode(m.data)) as { n: number }).n === 2, 30_000);
    outputs.close();
    expect(JSON.parse(text.decode(second.data))).toMatchObject({ n: 2, count: 2 });
    expect(outputs.messages.map((m) => JSON.parse(text.decode(m.data)) as { count: number }).filter((o) => o.count > 2)).toEqual([]);
    const after = await consumersOf('AGENTS_INBOX', cluster.client.topology.inboxPartitionFilter(partition));
    expect(after).toHaveLength(1);
    expect(after).not.toContain(before);
    const activator = cluster.services.get('activator')!;
    expect(activator.lines.some((l) => l.includes(`consumer ${before!}:`) && l.includes('resetting the partition'))).toBe(true);
  }, 120_000);

  it('stops ingress with an error naming the consumer instead of re-forwarding the stream, and resumes once it is re-created', async () => {
    expect(await count('before-ingest-delete', 1)).toBe(1);
    const [name] = await consumersOf('AGENTS_INGEST');
    expect(name).toBeDefined();
    const { config } = await jsm.consumers.info('AGENTS_INGEST', name!);
    await jsm.consumers.delete('AGENTS_INGEST', name!);

    const outputs = await collect(cluster.client.nc, `agents.output.counter.${encodeKeyToken(keyFromText('while-ingest-gone'))}`);
    const { seq } = await cluster.client.publishEvent('counter', 'while-ingest-gone', { n: 1 });
    const ingress = cluster.services.get('ingress')!;
    await until(() => ingress.lines.some((l) => l.includes(`consumer ${name!}:`) && l.includes('ingest has stopped')), 30_000, "ingress's error line");
    // Nothing was re-forwarded from the stream's start, and the new event waits.
    expect(await consumersOf('AGENTS_INGEST')).toEqual([]);
    expect(outputs.messages).toHaveLength(0);

    // The operator re-creates the consumer where forwarding stopped: ingress finds it again.
    await jsm.consumers.add('AGENTS_INGEST', { ...config, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: seq });
    const [resumed] = await outputs.waitForCount(1, 30_000);
    outputs.close();
    expect(JSON.parse(text.decode(resumed!.data))).toMatchObject({ n: 1, count: 1 });
    // The event before the deletion was not forwarded again: its key's count goes on from 1.
    expect(await count('before-ingest-delete', 2)).toBe(2);
  }, 120_000);
});
