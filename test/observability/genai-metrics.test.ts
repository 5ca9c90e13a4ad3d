// Layer 3: token budgets, cost and the OpenTelemetry GenAI metrics through a real activator. The
// budgeted fixture agent calls a metered fake model (25 tokens a call); the configuration prices
// the model and lowers the agent's budget to 60 tokens per activation. The suite reads the GenAI
// histograms and the cost counter from /metrics, and sees a runaway activation refused with a
// budget_exceeded record after the call that spent the budget, its provider calls counted.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeErrorRecord } from '#core';
import { collect, startCluster, type TestCluster } from '../harness/index.js';
import { eventually, opsUrl, scrape, value } from './prometheus-text.js';

const text = new TextDecoder();

describe('token budgets, cost and GenAI metrics', () => {
  let cluster: TestCluster;
  let dir: string;
  let ops: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'genai-metrics-'));
    const config = join(dir, 'agents.yaml');
    await writeFile(config, JSON.stringify({ prices: { metered: { inputPerMillionUsd: 1_000, outputPerMillionUsd: 2_000 } }, budgets: { budgeted: { tokensPerActivation: 60 } } }));
    cluster = await startCluster({
      agentModules: ['test/fixtures/agents/budgeted.agent.mjs'],
      modelScript: 'test/fixtures/models/metered-model.mjs',
      env: { AGENTS_CONFIG: config, AGENTS_OPS_PORT: '0', OTEL_SDK_DISABLED: 'true' },
    });
    ops = await opsUrl(cluster.services.get('activator')!);
  });

  afterAll(async () => {
    await cluster?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('exports gen_ai.client.token.usage and gen_ai.client.operation.duration per provider call, and the cost of the activation', async () => {
    const outputs = await collect(cluster.client.nc, 'agents.output.budgeted.within');
    await cluster.client.publishEvent('budgeted', 'within', { rounds: 2 });
    expect(text.decode((await outputs.waitForCount(1))[0]!.data)).toBe('rounds:2');
    const labels = { agent: 'budgeted', gen_ai_request_model: 'metered', gen_ai_operation_name: 'chat' };
    const samples = await eventually(() => scrape(ops), (s) => value(s, 'agents_model_cost_usd_total', { agent: 'budgeted' }) > 0, 'the cost counter');
    expect(value(samples, 'gen_ai_client_token_usage_count', { ...labels, gen_ai_token_type: 'input' })).toBe(2);
    expect(value(samples, 'gen_ai_client_token_usage_sum', { ...labels, gen_ai_token_type: 'input' })).toBe(40);
    expect(value(samples, 'gen_ai_client_token_usage_sum', { ...labels, gen_ai_token_type: 'output' })).toBe(10);
    expect(value(samples, 'gen_ai_client_operation_duration_seconds_count', labels)).toBe(2);
    // 2 calls × (20 × 1000 + 5 × 2000) / 1e6 USD
    expect(value(samples, 'agents_model_cost_usd_total', { agent: 'budgeted', model: 'metered' })).toBeCloseTo(0.06, 9);
  });

  it('refuses the call that would exceed the budget before paying the provider, and fails the activation closed with budget_exceeded', async () => {
    const errors = await collect(cluster.client.nc, 'agents.errors.budgeted.budget_exceeded');
    const outputs = await collect(cluster.client.nc, 'agents.output.budgeted.runaway');
    await cluster.client.publishEvent('budgeted', 'runaway', { rounds: 10 });
    const record = decodeErrorRecord((await errors.waitForCount(1))[0]!.data);
    expect(record).toMatchObject({ reason: 'budget_exceeded', detail: 'token budget per activation exceeded: 75 used + 0 requested > 60' });
    expect(text.decode(record.entityKey)).toBe('runaway');
    // Three calls were paid (25, 50, then 75 tokens); the fourth was refused before the provider.
    // The record's count lands once its commit's outbox went out, so it may trail the record itself.
    const samples = await eventually(() => scrape(ops), (now) => value(now, 'agents_error_records_total', { agent: 'budgeted', reason: 'budget_exceeded' }) >= 1, 'the record counted');
    expect(value(samples, 'gen_ai_client_operation_duration_seconds_count', { agent: 'budgeted' })).toBe(2 + 3);
    expect(value(samples, 'agents_error_records_total', { agent: 'budgeted', reason: 'budget_exceeded' })).toBe(1);
    expect(outputs.messages).toHaveLength(0);
  });
});
