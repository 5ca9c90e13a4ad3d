// Layer 3: retries that keep order, through a real activator. The flaky fixture agent fails
// retryably a given number of times per activation; the key is held with backoff (floored by the
// error's retry-after) while another key goes on, its own later event waits behind it, the holds
// show on /metrics, and a key that keeps failing past the attempt bound gets an activation_error
// record carrying the attempt count, after which it goes on. A held key's document shows the hold
// (the element, its failed attempts, the next attempt's time) in `nats-agents state`.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeErrorRecord } from '#core';
import { collect, REPO_ROOT, startCluster, type TestCluster } from '../harness/index.js';
import { opsUrl, scrape, value } from '../observability/prometheus-text.js';

const text = new TextDecoder();
const run = promisify(execFile);

describe('retries that keep order', () => {
  let cluster: TestCluster;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'retries-'));
    const config = join(dir, 'agents.yaml');
    await writeFile(config, JSON.stringify({ activator: { maxActivationAttempts: 3 } }));
    cluster = await startCluster({ agentModules: ['test/fixtures/agents/flaky.agent.mjs'], env: { AGENTS_CONFIG: config, AGENTS_OPS_PORT: '0', OTEL_SDK_DISABLED: 'true' } });
  });

  afterAll(async () => {
    await cluster?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('holds a failing key and retries it in order while other keys go on, and shows the holds on /metrics', async () => {
    const held = await collect(cluster.client.nc, 'agents.output.flaky.held');
    const other = await collect(cluster.client.nc, 'agents.output.flaky.other');
    await cluster.client.publishEvent('flaky', 'held', { text: 'first', fail: 2, retryAfterMs: 1_500 });
    await cluster.client.publishEvent('flaky', 'held', { text: 'second' });
    await cluster.client.publishEvent('flaky', 'other', { text: 'free' });
    // The other key is not held: it answers while 'held' waits out at least two 1.5 s holds.
    expect(text.decode((await other.waitForCount(1))[0]!.data)).toBe('free#0');
    expect(held.messages).toHaveLength(0);
    const outputs = await held.waitForCount(2);
    expect(outputs.map((m) => text.decode(m.data))).toEqual(['first#0', 'second#1']);
    const samples = await scrape(await opsUrl(cluster.services.get('activator')!));
    expect(value(samples, 'agents_element_retries_total', { error: 'ActivationRetry' })).toBe(2);
    expect(value(samples, 'agents_retry_delay_seconds_count', { agent: 'flaky', error: 'RetryableError' })).toBe(2);
    expect(value(samples, 'agents_retry_delay_seconds_sum', { agent: 'flaky', error: 'RetryableError' })).toBeGreaterThanOrEqual(3);
  });

  it('records activation_error with the attempt count after the last attempt, and the key goes on', async () => {
    const errors = await collect(cluster.client.nc, 'agents.errors.flaky.activation_error');
    const outputs = await collect(cluster.client.nc, 'agents.output.flaky.stuck');
    await cluster.client.publishEvent('flaky', 'stuck', { text: 'never', fail: 10 });
    await cluster.client.publishEvent('flaky', 'stuck', { text: 'after' });
    const record = decodeErrorRecord((await errors.waitForCount(1))[0]!.data);
    expect(text.decode(record.entityKey)).toBe('stuck');
    expect(record.detail).toMatch(/^RetryableError: downstream busy \(attempt 3\) .* attempts=3$/);
    expect(text.decode((await outputs.waitForCount(1))[0]!.data)).toBe('after#0');
  });

  it('shows the hold in the key\'s state: the element, its failed attempts and bound, and when it runs next', async () => {
    const outputs = await collect(cluster.client.nc, 'agents.output.flaky.waiting');
    const publishedAt = Date.now();
    await cluster.client.publishEvent('flaky', 'waiting', { text: 'later', fail: 1, retryAfterMs: 30_000 });
    const state = async (): Promise<{ hold: { inboxSeq: number; failedAttempts: number; maxAttempts: number; nextAttemptAtMs: number; delayMs: number; error: string } | null }> => {
      const { stdout } = await run(process.execPath, [`${REPO_ROOT}/bin/nats-agents.mjs`, 'state', 'flaky', 'waiting'], {
        env: { ...process.env, NATS_URL: cluster.server.url, AGENTS_PARTITIONS: '4' },
        timeout: 60_000,
      });
      return JSON.parse(stdout) as Awaited<ReturnType<typeof state>>;
    };
    let shown = await state().catch(() => ({ hold: null }));
    for (let tries = 0; shown.hold === null && tries < 20; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      shown = await state().catch(() => ({ hold: null }));
    }
    expect(shown.hold).toMatchObject({ failedAttempts: 1, maxAttempts: 3, error: 'RetryableError: downstream busy (attempt 1)' });
    expect(shown.hold!.inboxSeq).toBeGreaterThan(0);
    expect(shown.hold!.delayMs).toBeGreaterThanOrEqual(30_000);
    expect(shown.hold!.nextAttemptAtMs).toBeGreaterThanOrEqual(publishedAt + 30_000);
    // Still held: nothing was answered yet.
    expect(outputs.messages).toHaveLength(0);
  }, 120_000);
});
