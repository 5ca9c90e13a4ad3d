// Layer 3: every service serves /metrics, /healthz and /readyz on its ops listener. Real ingress,
// activator and effector processes run the refund example (small refunds straight to the tool, a
// large one through an approval) plus inputs that must become error records at each service; the
// suite then scrapes all three and checks the identities the alerts rely on — intents emitted at
// commit = intents published = intents stored, and error records counted across services = records
// in the errors stream — and the counters that describe the run.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeToolIntent, ToolResultStatus } from '#core';
import { collect, readStream, startCluster, type ServiceName, type TestCluster } from '../harness/index.js';
import { eventually, opsUrl, scrape, value, type Sample } from './prometheus-text.js';

const text = new TextDecoder();
const SERVICES: readonly ServiceName[] = ['activator', 'ingress', 'effector'];

describe('metrics, health and readiness', () => {
  let cluster: TestCluster;
  let dir: string;
  const ops = new Map<ServiceName, string>();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'metrics-test-'));
    const config = join(dir, 'agents.yaml');
    await writeFile(config, JSON.stringify({ ops: { lagSampleMs: 300 }, effector: { toolModules: ['dist/examples/refund/refund.tool.js'] } }));
    cluster = await startCluster({
      agentModules: ['dist/examples/refund/refund.agent.js'],
      services: ['activator', 'ingress', 'effector'],
      env: { AGENTS_CONFIG: config, AGENTS_OPS_PORT: '0', OTEL_SDK_DISABLED: 'true' },
    });
    for (const name of SERVICES) ops.set(name, await opsUrl(cluster.services.get(name)!));
  });

  afterAll(async () => {
    await cluster?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('answers /healthz and reports each readiness check on /readyz', async () => {
    const checks: Record<string, string[]> = {
      activator: ['leases', 'membership', 'nats', 'provisioned'],
      ingress: ['consumer', 'http', 'nats', 'provisioned'],
      effector: ['consumer', 'nats', 'provisioned'],
    };
    for (const name of SERVICES) {
      const url = ops.get(name)!;
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const ready = await eventually(
        async () => {
          const response = await fetch(`${url}/readyz`);
          return { status: response.status, body: (await response.json()) as { ready: boolean; checks: Record<string, boolean> } };
        },
        (r) => r.status === 200,
        `${name} ready`,
      );
      expect(ready.body.ready).toBe(true);
      expect(Object.keys(ready.body.checks).sort()).toEqual(checks[name]);
    }
  });

  it('keeps intents emitted = published = stored and error records counted = stored, after the refund example and bad inputs', async () => {
    const client = cluster.client;
    const outputs = await collect(client.nc, 'agents.output.refund.>');
    for (const order of ['o-1', 'o-2', 'o-3']) await client.publishEvent('refund', order, { orderId: order, amount: 40 });
    await client.publishEvent('refund', 'o-4', { orderId: 'o-4', amount: 500, reason: 'damaged' });

    // The large refund waits for a human: approve it the way the CLI does.
    const approvalRequests = await eventually(() => readStream(client.nc, 'AGENTS_INTENTS', 'agents.approval-requests.refund.o-4'), (m) => m.length === 1, 'the approval request');
    const request = decodeToolIntent(approvalRequests[0]!.data);
    await client.publishApproval('refund', 'o-4', { intentId: request.intentId, approved: true, approver: 'ops@example.com', decidedAtMs: Date.now(), reason: '' });

    // One bad input per service: ingress (invalid event, unknown agent), activator (an orphaned result), effector (an unreadable intent).
    await client.publishEvent('refund', 'o-5', { orderId: 5 });
    await client.publishEvent('nobody', 'x-1', { orderId: 'x' });
    await client.publishResult('refund', 'o-6', { intentId: 'no-such-intent', entityKey: new TextEncoder().encode('o-6'), seq: 0, status: ToolResultStatus.Ok, payload: new Uint8Array(0), errorMessage: '', completedAtMs: Date.now() });
    await client.js.publish('agents.intents.refund.refund', new Uint8Array([0xff, 0x01, 0x02]), { msgID: 'garbage-intent-1' });

    const done = await outputs.waitForCount(4, 60_000);
    outputs.close();
    expect(done.map((m) => (JSON.parse(text.decode(m.data)) as { status: string }).status)).toEqual(['refunded', 'refunded', 'refunded', 'refunded']);
    const records = await eventually(() => readStream(client.nc, 'AGENTS_ERRORS'), (m) => m.length >= 4, 'four error records');
    expect(records.map((m) => m.subject).sort()).toEqual(['agents.errors._.malformed_input', 'agents.errors.nobody.unknown_agent', 'agents.errors.refund.malformed_input', 'agents.errors.refund.orphaned_result']);

    // Counters move right after the stream acknowledged what they count: wait for them to catch up, then compare exactly.
    const errorsCounted = (all: ReadonlyMap<ServiceName, Sample[]>): number => SERVICES.reduce((sum, name) => sum + value(all.get(name)!, 'agents_error_records_total'), 0);
    const scraped = await eventually(
      async () => new Map<ServiceName, Sample[]>(await Promise.all(SERVICES.map(async (name) => [name, await scrape(ops.get(name)!)] as const))),
      // An element's duration is observed after its outputs are published, so the last output can arrive before its histogram sample.
      (all) =>
        errorsCounted(all) >= records.length &&
        value(all.get('effector')!, 'agents_effector_results_total') >= 4 &&
        value(all.get('activator')!, 'agents_activation_duration_seconds_count', { agent: 'refund' }) >= 10,
      'the counters to reflect the run',
    );
    const activator = scraped.get('activator')!;
    const ingress = scraped.get('ingress')!;
    const effector = scraped.get('effector')!;

    // Identity 1: intents emitted at commit = intents published = intents the stream stored (3 small refunds, 1 approval request, 1 refund after it).
    const stored = (await readStream(client.nc, 'AGENTS_INTENTS')).filter((m) => m.header('Agents-Agent') === 'refund');
    expect(stored).toHaveLength(5);
    expect(value(activator, 'agents_intents_emitted_total', { agent: 'refund' })).toBe(5);
    expect(value(activator, 'agents_intents_published_total', { agent: 'refund' })).toBe(5);

    // Identity 2: error records counted over every service = error records stored, reason by reason.
    expect(errorsCounted(scraped)).toBe(records.length);
    expect(value(ingress, 'agents_error_records_total', { agent: 'refund', reason: 'malformed_input' })).toBe(1);
    expect(value(ingress, 'agents_error_records_total', { agent: 'nobody', reason: 'unknown_agent' })).toBe(1);
    expect(value(activator, 'agents_error_records_total', { agent: 'refund', reason: 'orphaned_result' })).toBe(1);
    expect(value(effector, 'agents_error_records_total', { agent: '_', reason: 'malformed_input' })).toBe(1);

    // What the run did, as the counters tell it.
    expect(value(activator, 'agents_activations_total', { agent: 'refund', status: 'completed' })).toBe(4);
    expect(value(activator, 'agents_suspensions_total', { agent: 'refund' })).toBe(5);
    expect(value(activator, 'agents_orphaned_results_total', { agent: 'refund' })).toBe(1);
    expect(value(activator, 'agents_model_calls_total')).toBe(0);
    expect(value(activator, 'agents_fenced_total')).toBe(0);
    expect(value(activator, 'agents_activation_duration_seconds_count', { agent: 'refund' })).toBeGreaterThanOrEqual(10);
    expect(value(activator, 'agents_activation_overhead_seconds_count', { agent: 'refund' })).toBe(value(activator, 'agents_activation_duration_seconds_count', { agent: 'refund' }));
    expect(value(activator, 'agents_working_memory_bytes_count', { agent: 'refund' })).toBeGreaterThanOrEqual(9);
    expect(value(activator, 'agents_lease_moves_total', { direction: 'acquired' })).toBe(4);
    expect(value(activator, 'agents_owned_partitions')).toBe(4);
    expect(value(effector, 'agents_effector_results_total', { status: 'ok' })).toBe(4);
    expect(value(ingress, 'agents_ingest_messages_total', { lane: 'events', outcome: 'forwarded' })).toBe(4);
    expect(value(ingress, 'agents_ingest_messages_total', { lane: 'events', outcome: 'refused' })).toBe(2);
    expect(value(ingress, 'agents_ingest_messages_total', { lane: 'results', outcome: 'forwarded' })).toBe(5);
    expect(value(ingress, 'agents_ingest_messages_total', { lane: 'approvals', outcome: 'forwarded' })).toBe(1);
    expect(value(activator, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });

  it('samples consumer lag per partition of the activator and for the ingest and intents consumers', async () => {
    const lag = await eventually(
      async () => Promise.all(SERVICES.map(async (name) => [name, await scrape(ops.get(name)!)] as const)),
      (all) => all.every(([, samples]) => samples.some((s) => s.name === 'agents_consumer_pending_messages')),
      'consumer lag samples from every service',
    );
    const byService = new Map(lag);
    const partitions = byService
      .get('activator')!
      .filter((s) => s.name === 'agents_consumer_pending_messages')
      .map((s) => s.labels.partition)
      .sort();
    expect(partitions).toEqual(['0', '1', '2', '3']);
    expect(byService.get('ingress')!.find((s) => s.name === 'agents_consumer_pending_messages')?.labels).toMatchObject({ stream: 'AGENTS_INGEST', partition: '' });
    expect(byService.get('effector')!.find((s) => s.name === 'agents_consumer_pending_messages')?.labels).toMatchObject({ stream: 'AGENTS_INTENTS', consumer: 'effector' });
    // Everything above was processed: nothing is left pending anywhere.
    for (const [, samples] of byService) expect(value(samples, 'agents_consumer_pending_messages')).toBe(0);
  });
});
