// Layer 3: supersede, history and restore through real processes (seed 004). The facts agent
// (examples/facts) saves each extracted fact to the long-term tier and every third extraction asks
// the scripted demo model which active facts duplicate or contradict each other, then retires the
// losers: duplicates keep the higher confidence, conflicts keep the newer fact. Retired facts stay
// stored, hidden from retrieval unless asked for, their chain queryable as history, and an
// operator can reverse a retirement.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NatsLongTermStore, restore } from '#longterm';
import { encodeKeyToken, keyFromText } from '#routing';
import { collect, REPO_ROOT, startCluster, type TestCluster } from '../harness/index.js';

const run = promisify(execFile);

const text = new TextDecoder();
const KEY = 'shopper-1';
const scope = { entityKey: keyFromText(KEY), agent: 'facts' };
const fact = (subject: string, seq: number): string => `fact/${subject}/${String(seq).padStart(6, '0')}`;

describe('reconciliation: supersede, history, restore', () => {
  let cluster: TestCluster;
  let store: NatsLongTermStore;
  const outputs: { retired: { key: string; by: string; why: string }[] }[] = [];

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'facts-'));
    cluster = await startCluster({
      agentModules: ['dist/examples/facts/facts.agent.js'],
      modelScript: 'dist/examples/models/demo-model.js',
      services: ['memory-store', 'activator', 'ingress'],
      env: { AGENTS_LONGTERM_URI: `sqlite://${join(dir, 'longterm.db')}` },
    });
    store = new NatsLongTermStore(cluster.client.nc, cluster.client.topology);
    const out = await collect(cluster.client.nc, `agents.output.facts.${encodeKeyToken(keyFromText(KEY))}`);
    const events = [
      { subject: 'light_runtime_hours', value: '8 hours', confidence: 0.9 },
      { subject: 'light_runtime_hours', value: '8', confidence: 0.6 },
      { subject: 'color', value: 'red', confidence: 0.5 },
      { subject: 'light_runtime_hours', value: '12', confidence: 0.4 },
      { subject: 'color', value: 'Red', confidence: 0.7 },
      { subject: 'weight', value: '2 kg', confidence: 0.8 },
    ];
    for (const event of events) await cluster.client.publishEvent('facts', KEY, event);
    for (const msg of await out.waitForCount(events.length)) outputs.push(JSON.parse(text.decode(msg.data)) as (typeof outputs)[number]);
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('retires duplicates by confidence and conflicts by recency', () => {
    expect(outputs[2]!.retired).toEqual([{ key: fact('light_runtime_hours', 1), by: fact('light_runtime_hours', 0), why: 'duplicate' }]);
    expect(outputs[5]!.retired).toEqual([
      { key: fact('color', 2), by: fact('color', 4), why: 'duplicate' },
      { key: fact('light_runtime_hours', 0), by: fact('light_runtime_hours', 3), why: 'conflict' },
    ]);
  });

  it('hides retired facts from retrieval by default and shows them when asked', async () => {
    const active = await store.search(scope, 'fact/', Date.now(), { limit: 50 });
    expect(active.map((r) => r.key)).toEqual([fact('color', 4), fact('light_runtime_hours', 3), fact('weight', 5)]);
    const all = await store.search(scope, 'fact/', Date.now(), { limit: 50, includeSuperseded: true });
    expect(all).toHaveLength(6);
    expect(all.find((r) => r.key === fact('light_runtime_hours', 0))).toMatchObject({ supersededBy: fact('light_runtime_hours', 3) });
  });

  it('answers how a belief changed: the chain through the current fact, oldest first', async () => {
    const chain = await store.history(scope, fact('light_runtime_hours', 3), Date.now());
    expect(chain.map((r) => [r.key, text.decode(r.value)])).toEqual([
      [fact('light_runtime_hours', 1), '8'],
      [fact('light_runtime_hours', 0), '8 hours'],
      [fact('light_runtime_hours', 3), '12'],
    ]);
  });

  it('reverses a bad retirement', async () => {
    const retired = (await store.load(scope, fact('light_runtime_hours', 0), Date.now())) ?? (await store.search(scope, fact('light_runtime_hours', 0), Date.now(), { limit: 1, includeSuperseded: true }))[0];
    expect(retired?.supersededBy).toBe(fact('light_runtime_hours', 3));
    await store.upsert([restore(retired!)]);
    const active = await store.search(scope, 'fact/light_runtime_hours/', Date.now(), { limit: 50 });
    expect(active.map((r) => r.key)).toEqual([fact('light_runtime_hours', 0), fact('light_runtime_hours', 3)]);
  });

  it('lets an operator curate from the CLI: supersede, history, restore', async () => {
    const cli = async (...args: string[]): Promise<unknown> => {
      const { stdout } = await run(process.execPath, [`${REPO_ROOT}/bin/nats-agents.mjs`, 'memory', ...args], { env: { ...process.env, NATS_URL: cluster.server.url } });
      return JSON.parse(stdout) as unknown;
    };
    await cli('supersede', 'facts', KEY, fact('weight', 5), fact('color', 4));
    expect(((await cli('search', 'facts', KEY, 'fact/weight/')) as unknown[]).length).toBe(0);
    const chain = (await cli('history', 'facts', KEY, fact('weight', 5))) as { key: string; value: string }[];
    expect(chain.map((r) => r.key)).toEqual([fact('weight', 5), fact('color', 4)]);
    await cli('restore', 'facts', KEY, fact('weight', 5));
    expect(((await cli('search', 'facts', KEY, 'fact/weight/')) as { value: string }[]).map((r) => r.value)).toEqual(['2 kg']);
  });
});
