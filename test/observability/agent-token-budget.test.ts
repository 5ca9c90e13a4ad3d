// Layer 3: the per-agent token budget through real activators on a real nats-server. The budgeted
// fixture agent calls a metered fake model (25 tokens a call); the configuration gives the agent
// 60 tokens per window of event time, shared by all its keys. One key spends 50, the next key's
// second call is refused before the provider is paid; a fresh activator process (nothing of the
// first in memory) refuses a third key's very first call, because the count lives in KV
// AGENTS_BUDGETS, not in a process.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kvm } from '@nats-io/kv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeErrorRecord } from '#core';
import { collect, startCluster, type TestCluster } from '../harness/index.js';
import { opsUrl, scrape, value } from './prometheus-text.js';

const text = new TextDecoder();
/** Ten years: event times of one test run fall into one window whatever the hour. */
const WINDOW_MS = 315_360_000_000;

describe('per-agent token budget', () => {
  let cluster: TestCluster;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-budget-'));
    const config = join(dir, 'agents.yaml');
    await writeFile(config, JSON.stringify({ budgets: { budgeted: { tokensPerAgent: { tokens: 60, windowMs: WINDOW_MS } } } }));
    cluster = await startCluster({
      agentModules: ['test/fixtures/agents/budgeted.agent.mjs'],
      modelScript: 'test/fixtures/models/metered-model.mjs',
      env: { AGENTS_CONFIG: config, AGENTS_OPS_PORT: '0', OTEL_SDK_DISABLED: 'true' },
    });
  }, 180_000);

  afterAll(async () => {
    await cluster?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('counts all keys of the agent against one window, refuses the call that would exceed it before paying, and keeps the count across activator processes', async () => {
    const errors = await collect(cluster.client.nc, 'agents.errors.budgeted.budget_exceeded');
    const outputs = await collect(cluster.client.nc, 'agents.output.budgeted.>');

    await cluster.client.publishEvent('budgeted', 'first', { rounds: 2 });
    expect(text.decode((await outputs.waitForCount(1))[0]!.data)).toBe('rounds:2');

    // 50 charged: the second key's first call (50 < 60) is paid, its second (75 >= 60) is refused.
    await cluster.client.publishEvent('budgeted', 'second', { rounds: 2 });
    const refused = decodeErrorRecord((await errors.waitForCount(1))[0]!.data);
    expect(refused).toMatchObject({ reason: 'budget_exceeded', detail: 'token budget per agent exceeded: 75 used + 0 requested > 60' });
    expect(text.decode(refused.entityKey)).toBe('second');
    const ops = await opsUrl(cluster.services.get('activator')!);
    expect(value(await scrape(ops), 'gen_ai_client_operation_duration_seconds_count', { agent: 'budgeted' })).toBe(3);

    const entry = await (await new Kvm(cluster.client.nc).open('AGENTS_BUDGETS', { bindOnly: true })).get('budgeted');
    expect(JSON.parse(text.decode(entry!.value))).toMatchObject({ windows: [{ windowMs: WINDOW_MS, tokens: 75 }] });

    // A new activator process: its first call for a third key is refused, the provider never asked.
    await cluster.services.get('activator')!.stop();
    const restarted = await cluster.start('activator');
    await cluster.client.publishEvent('budgeted', 'third', { rounds: 1 });
    const again = decodeErrorRecord((await errors.waitForCount(2))[1]!.data);
    expect(again).toMatchObject({ reason: 'budget_exceeded', detail: 'token budget per agent exceeded: 75 used + 0 requested > 60' });
    expect(text.decode(again.entityKey)).toBe('third');
    expect(value(await scrape(await opsUrl(restarted)), 'gen_ai_client_operation_duration_seconds_count', { agent: 'budgeted' })).toBe(0);
    expect(outputs.messages).toHaveLength(1);
  }, 240_000);
});
