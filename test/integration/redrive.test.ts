// Layer 3: dead letters you can redrive. An agent fails on some events (a bug in its module); the
// module is fixed and the activator restarted; `nats-agents errors redrive` re-publishes the
// original events from the inbox stream the error records name, each missing output appears
// exactly once, per-key order holds for the redriven events, a second redrive publishes nothing,
// and every re-publication has its audit record (who and what, the key only as a digest).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorRecordSource } from '#core';
import { collect, readStream, REPO_ROOT, startCluster, type TestCluster } from '../harness/index.js';

const run = promisify(execFile);
const text = new TextDecoder();

describe('dead-letter redrive', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await startCluster({ agentModules: ['test/fixtures/agents/fragile.agent.mjs'], services: ['ingress'] });
    await cluster.start('activator', { FRAGILE_BROKEN: '1' });
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  const cli = async (...args: string[]): Promise<string> => {
    const { stdout } = await run(process.execPath, [`${REPO_ROOT}/bin/nats-agents.mjs`, ...args], { env: { ...process.env, NATS_URL: cluster.server.url, AGENTS_PARTITIONS: '4', USER: 'ops-ada' }, timeout: 60_000 });
    return stdout;
  };

  it('re-publishes each failed event once, in per-key order, after the fix', async () => {
    const errors = await collect(cluster.client.nc, 'agents.errors.fragile.activation_error');
    const k1 = await collect(cluster.client.nc, 'agents.output.fragile.k1');
    const k2 = await collect(cluster.client.nc, 'agents.output.fragile.k2');
    await cluster.client.publishEvent('fragile', 'k1', { n: 1 });
    await cluster.client.publishEvent('fragile', 'k1', { n: 2, boom: true });
    await cluster.client.publishEvent('fragile', 'k1', { n: 3, boom: true });
    await cluster.client.publishEvent('fragile', 'k2', { n: 4, boom: true });
    const records = await errors.waitForCount(3);
    expect(records.every((r) => errorRecordSource(r.data)?.stream === 'AGENTS_INBOX')).toBe(true);
    expect((await k1.waitForCount(1)).map((m) => text.decode(m.data))).toEqual(['1#0']);

    // The fix: the activator restarts without the bug.
    await cluster.services.get('activator')!.stop();
    await cluster.start('activator');

    const first = JSON.parse(await cli('errors', 'redrive', '--agent', 'fragile', '--reason', 'activation_error', '--json')) as { published: number; alreadyRedriven: number };
    expect(first).toMatchObject({ published: 3, alreadyRedriven: 0, skipped: [] });
    expect((await k1.waitForCount(3)).map((m) => text.decode(m.data))).toEqual(['1#0', '2#1', '3#2']);
    expect((await k2.waitForCount(1)).map((m) => text.decode(m.data))).toEqual(['4#0']);

    const second = JSON.parse(await cli('errors', 'redrive', '--agent', 'fragile', '--reason', 'activation_error', '--json')) as { published: number; alreadyRedriven: number };
    expect(second).toMatchObject({ published: 0, alreadyRedriven: 3 });
    // Exactly once: the stored outputs of both keys, after both runs.
    const stored = (await readStream(cluster.client.nc, 'AGENTS_OUTPUT')).filter((m) => m.subject.startsWith('agents.output.fragile.'));
    expect(stored.map((m) => text.decode(m.data)).sort()).toEqual(['1#0', '2#1', '3#2', '4#0']);

    const audits = (await readStream(cluster.client.nc, 'AGENTS_AUDIT')).filter((m) => m.subject.startsWith('agents.audit.redrive.'));
    expect(audits).toHaveLength(3);
    const written = audits.map((m) => JSON.parse(text.decode(m.data)) as { agent: string; reason: string; requestedBy: string; keyDigest: string });
    const digest = (key: string): string => createHash('sha256').update(key).digest('hex');
    expect(written.map((r) => r.keyDigest).sort()).toEqual([digest('k1'), digest('k1'), digest('k2')].sort());
    for (const record of written) expect(record).toMatchObject({ agent: 'fragile', reason: 'activation_error', requestedBy: 'ops-ada' });
    expect(audits.map((m) => text.decode(m.data)).join()).not.toMatch(/"k[12]"/);
  });
});
