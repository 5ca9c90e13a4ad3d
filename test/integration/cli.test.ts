// Layer 3: the operator CLI (`bin/nats-agents.mjs`) drives the refund example end to end against
// real services: publish and wait, tail approval requests, approve, tail outputs, inspect state,
// erase — every command with `--json` output a script can parse, and clear exit codes.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, startCluster, type TestCluster } from '../harness/index.js';

const run = promisify(execFile);

describe('the nats-agents CLI', () => {
  let cluster: TestCluster;
  const cli = async (...args: string[]): Promise<string> => {
    const { stdout } = await run(process.execPath, [`${REPO_ROOT}/bin/nats-agents.mjs`, ...args], { env: { ...process.env, NATS_URL: cluster.server.url, AGENTS_PARTITIONS: '4' }, timeout: 60_000 });
    return stdout;
  };
  const json = (line: string): Record<string, unknown> => JSON.parse(line) as Record<string, unknown>;

  beforeAll(async () => {
    cluster = await startCluster({
      agentModules: ['dist/examples/refund/refund.agent.js'],
      modelScript: 'dist/examples/models/demo-model.js',
      services: ['memory-store', 'activator', 'ingress', 'effector'],
      env: { AGENTS_TOOL_MODULES: 'dist/examples/refund/refund.tool.js' },
    });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('refunds a small order straight away', async () => {
    const answer = json(await cli('publish', 'refund', 'order-7', '{"orderId":"o-7","amount":40}', '--wait', '--json'));
    expect(answer.kind).toBe('output');
    expect(json(answer.output as string)).toMatchObject({ status: 'refunded', orderId: 'o-7', amount: 40 });
  });

  it('waits for a human on a large one, then refunds it once approved', async () => {
    const ack = json(await cli('publish', 'refund', 'order-8', '{"orderId":"o-8","amount":400}'));
    expect(ack).toMatchObject({ stream: 'AGENTS_INGEST', duplicate: false });
    const request = json((await cli('tail', 'approval-requests', '--all', '--json', '--agent', 'refund', '--count', '1')).trim());
    expect(request).toMatchObject({ key: 'order-8', tool: 'approval' });
    const decision = json(await cli('approve', 'refund', 'order-8', request.intentId as string, '--approver', 'ada'));
    expect(decision).toMatchObject({ decision: 'approve', duplicate: false });
    const output = json((await cli('tail', 'outputs', '--all', '--json', '--agent', 'refund', '--key', 'order-8', '--count', '1')).trim());
    expect(json(output.output as string)).toMatchObject({ status: 'refunded', orderId: 'o-8' });
    const state = json(await cli('state', 'refund', 'order-8'));
    expect(state).toMatchObject({ key: 'order-8', continuation: null });
  });

  it('answers a bad event with its reason and exit code 2', async () => {
    const failed = await run(process.execPath, [`${REPO_ROOT}/bin/nats-agents.mjs`, 'publish', 'refund', 'order-9', 'not json', '--wait', '--json'], {
      env: { ...process.env, NATS_URL: cluster.server.url },
    }).then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failed?.code).toBe(2);
    expect(json(failed!.stdout)).toMatchObject({ kind: 'error', reason: 'malformed_input' });
  });

  it('loads the running deployment through the tool round trip and reports every answer', async () => {
    // Small refunds go event → intent → effector → result → resumed activation → output.
    const report = json(await cli('bench', 'refund', '--events', '60', '--keys', '12', '--concurrency', '6', '--key-prefix', 'load', '--payload', '{"orderId":"{{key}}-{{n}}","amount":5}', '--json'));
    expect(report).toMatchObject({ agent: 'refund', events: 60, keys: 12, completed: 60, errors: {}, timedOut: 0, skipped: 0 });
    const latency = report.latencyMs as { p50: number; p99: number; max: number };
    expect(latency.p50).toBeGreaterThan(0);
    expect(latency.p99).toBeLessThanOrEqual(latency.max);
    // Each key's five events ran as five activations resuming on the tool result: the state says so.
    const state = json(await cli('state', 'refund', 'load-3'));
    expect(state).toMatchObject({ key: 'load-3', continuation: null });
  });

  it('counts error records by reason when the agent refuses the load', async () => {
    const failed = await run(process.execPath, [`${REPO_ROOT}/bin/nats-agents.mjs`, 'bench', 'refund', '--events', '8', '--keys', '4', '--payload', 'not json', '--json'], {
      env: { ...process.env, NATS_URL: cluster.server.url, AGENTS_PARTITIONS: '4' },
    }).then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failed?.code).toBe(2);
    expect(json(failed!.stdout)).toMatchObject({ completed: 0, errors: { malformed_input: 8 }, timedOut: 0 });
  });

  it('erases a key and reports what went', async () => {
    const report = json(await cli('erase', 'order-8', '--json'));
    expect(report.erased).toMatchObject({ KV_AGENTS_STATE: 1 });
    expect((await cli('state', 'refund', 'order-8')).trim()).toBe('no committed state');
  });
});
