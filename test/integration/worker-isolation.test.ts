// Layer 3: an agent with `isolation: 'worker'` against a real activator and nats-server. Its handler
// runs in a worker thread; a synchronous busy loop past the timeout is ended by terminating the
// thread, only its activation_timeout record commits, and the activator keeps serving other keys
// meanwhile (issue 12, defect 3; docs/decisions/0070).
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeErrorRecord, ErrorReason } from '#core';
import { collect, startCluster, type TestCluster } from '../harness/index.js';
import { answerTool, storedIntents } from '../harness/intents.js';
import { eventually, opsUrl, scrape, value } from '../observability/prometheus-text.js';

const text = new TextDecoder();
const json = (data: Uint8Array): unknown => JSON.parse(text.decode(data));

/** CPU seconds (user + system) the process has used so far, from /proc (Linux clock ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The share of one core the process used over `ms` of wall time. */
async function cpuShare(pid: number, ms: number): Promise<number> {
  const before = cpuSeconds(pid);
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  return (cpuSeconds(pid) - before) / ((performance.now() - started) / 1000);
}

describe('worker-isolated agents', () => {
  let cluster: TestCluster;
  let activatorPid: number;
  let dir: string;
  const metrics = async (): ReturnType<typeof scrape> => scrape(await opsUrl(cluster.services.get('activator')!));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'worker-isolation-'));
    const config = join(dir, 'agents.yaml');
    // flaky's definition says nothing about isolation: the configuration puts it in workers.
    await writeFile(config, JSON.stringify({ activator: { maxActivationAttempts: 2 }, isolation: { flaky: 'worker' } }));
    cluster = await startCluster({
      agentModules: ['test/fixtures/agents/grinder.agent.mjs', 'test/fixtures/agents/ring.agent.mjs', 'test/fixtures/agents/flaky.agent.mjs'],
      modelScript: 'test/fixtures/models/echo-model.mjs',
      env: { AGENTS_CONFIG: config, AGENTS_OPS_PORT: '0' },
    });
    activatorPid = cluster.services.get('activator')!.process.pid!;
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('runs a normal handler in a worker: its output, memory, model call and tool intent commit, the tool result resumes it, and the replay cache answers its repeated request', async () => {
    const outputs = await collect(cluster.client.nc, 'agents.output.grinder.calm');
    await cluster.client.publishEvent('grinder', 'calm', JSON.stringify({ text: 'hello' }));
    const [first] = await outputs.waitForCount(1);
    expect(json(first!.data)).toEqual({ key: 'calm', seq: 0, count: 1, spun: 'no' });
    let intents = await storedIntents(cluster.client, 'grinder', 'calm');
    for (let tries = 0; intents.length === 0 && tries < 100; tries++) intents = await storedIntents(cluster.client, 'grinder', 'calm');
    expect(intents.map((i) => [i.toolName, i.argsJson, i.seq, i.stepIndex])).toEqual([['lookup', '{"text":"hello"}', 0, 1]]);
    await answerTool(cluster.client, intents[0]!, { found: 42 });
    const [, final] = await outputs.waitForCount(2);
    expect(json(final!.data)).toEqual({ answer: 'echo:hello', again: 'echo:hello', lookup: { found: 42 } });
    // A commit is counted once its outbox went out, so the count may land just after the output.
    const samples = await eventually(metrics, (now) => value(now, 'agents_model_calls_total', { agent: 'grinder', cache: 'hit' }) >= 1, 'the resume counted');
    expect(value(samples, 'agents_model_calls_total', { agent: 'grinder', cache: 'miss' })).toBe(1);
    expect(value(samples, 'agents_model_calls_total', { agent: 'grinder', cache: 'hit' })).toBe(1);
  });

  it('terminates a handler that busy-loops past its timeout: other keys go on meanwhile, only its activation_timeout record commits, and the CPU goes idle', async () => {
    const spinner = await collect(cluster.client.nc, 'agents.output.grinder.spinner');
    const neighbour = await collect(cluster.client.nc, 'agents.output.grinder.neighbour');
    const onTheLoop = await collect(cluster.client.nc, 'agents.output.ring.side');
    const timeouts = await collect(cluster.client.nc, 'agents.errors.grinder.activation_timeout');

    const activator = cluster.services.get('activator')!;
    await cluster.client.publishEvent('grinder', 'spinner', JSON.stringify({ spin: true }));
    // The handler announces the loop it enters next (its read-only tool prints on the activator's
    // thread); while it loops, the activator still serves other keys: another key of the same agent
    // (on the pool's second worker) and a key of an agent on the event loop.
    await activator.waitForLine(/grinder mark: spinner spins/);
    const busy = await cpuShare(activatorPid, 300);
    expect(timeouts.messages).toHaveLength(0);
    await cluster.client.publishEvent('grinder', 'neighbour', JSON.stringify({ text: 'meanwhile' }));
    await cluster.client.publishEvent('ring', 'side', 'meanwhile');
    const [served] = await neighbour.waitForCount(1);
    const [ringServed] = await onTheLoop.waitForCount(1);
    expect(timeouts.messages).toHaveLength(0);
    expect(json(served!.data)).toEqual({ key: 'neighbour', seq: 0, count: 1, spun: 'no' });
    expect(text.decode(ringServed!.data)).toBe('meanwhile#0');

    const [timeout] = await timeouts.waitForCount(1);
    const record = decodeErrorRecord(timeout!.data);
    expect(record.reason).toBe(ErrorReason.ActivationTimeout);
    expect(text.decode(record.entityKey)).toBe('spinner');
    await activator.waitForLine(/terminated a worker of agent 'grinder'/);
    expect(value(await metrics(), 'agents_worker_terminations_total', { agent: 'grinder', cause: 'timeout' })).toBe(1);
    // The thread is gone: the process is back to (nearly) idle, far below what the loop burnt.
    const idle = await cpuShare(activatorPid, 1000);
    expect(idle).toBeLessThan(Math.min(0.4, busy / 2));

    // The key goes on, on the state before the loop: no staged output, no memory write, same seq.
    await cluster.client.publishEvent('grinder', 'spinner', JSON.stringify({ text: 'after' }));
    const [after] = await spinner.waitForCount(1);
    expect(json(after!.data)).toEqual({ key: 'spinner', seq: 0, count: 1, spun: 'no' });
    expect(spinner.messages.map((m) => text.decode(m.data))).not.toContain('staged before the loop');
  });

  it('fails an attempt whose worker thread dies with an activation_error naming it, replaces the worker, and the key goes on', async () => {
    const errors = await collect(cluster.client.nc, 'agents.errors.grinder.activation_error');
    const outputs = await collect(cluster.client.nc, 'agents.output.grinder.crasher');
    await cluster.client.publishEvent('grinder', 'crasher', JSON.stringify({ crash: true }));
    await cluster.client.publishEvent('grinder', 'crasher', JSON.stringify({ text: 'next' }));
    const record = decodeErrorRecord((await errors.waitForCount(1))[0]!.data);
    expect(text.decode(record.entityKey)).toBe('crasher');
    expect(record.detail).toMatch(/^AgentWorkerError: the worker of agent 'grinder' crashed: stray failure in the worker failed_at_step=0 /);
    const [next] = await outputs.waitForCount(1);
    expect(json(next!.data)).toEqual({ key: 'crasher', seq: 0, count: 1, spun: 'no' });
    // Counted once the dead thread is reaped, which may follow the record.
    await eventually(metrics, (samples) => value(samples, 'agents_worker_terminations_total', { agent: 'grinder', cause: 'crash' }) === 1, 'the crash counted');
  });

  it('runs an agent the configuration isolates in workers, and its RetryableError stays retryable across the thread boundary', async () => {
    const errors = await collect(cluster.client.nc, 'agents.errors.flaky.activation_error');
    await cluster.client.publishEvent('flaky', 'busy', { text: 'never', fail: 10 });
    const record = decodeErrorRecord((await errors.waitForCount(1))[0]!.data);
    expect(record.detail).toMatch(/^RetryableError: downstream busy \(attempt \d+\) .* attempts=2$/);
    const samples = await metrics();
    expect(value(samples, 'agents_agent_workers', { agent: 'flaky' })).toBeGreaterThanOrEqual(1);
    expect(value(samples, 'agents_agent_workers', { agent: 'grinder' })).toBeGreaterThanOrEqual(1);
    expect(value(samples, 'agents_agent_workers', { agent: 'ring' })).toBe(0);
  });
});
