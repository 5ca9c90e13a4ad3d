// Layer 3: the long-term tier through real processes — the activator flushes staged saves through
// the memory-store service (SQLite backend) before committing, reads see them in later
// activations, an idle key's working memory is demoted to the tier before the wipe (and only wiped
// without onExpire), an outage during that flush holds the key intact until the tier is back, and
// an outage of the tier fails an activation closed without stopping the key.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kvm } from '@nats-io/kv';
import { decodeActorDocument, decodeErrorRecord, decodeMemoryBlob } from '#core';
import { NatsLongTermStore } from '#longterm';
import { encodeKeyToken, keyFromText } from '#routing';
import { collect, startCluster, type TestCluster } from '../harness/index.js';

const text = new TextDecoder();

describe('the long-term tier', () => {
  let cluster: TestCluster;
  const dir = mkdtempSync(join(tmpdir(), 'lt-'));

  beforeAll(async () => {
    cluster = await startCluster({
      agentModules: ['test/fixtures/agents/archivist.agent.mjs', 'test/fixtures/agents/forgetful.agent.mjs'],
      services: ['memory-store', 'ingress'],
      env: { AGENTS_LONGTERM_URI: `sqlite://${join(dir, 'longterm.db')}` },
    });
    // As the chart runs it: the activator is told the tier is on, and never sees the store's URI.
    // Idle keys expire 2 s after their last event (the clock is the server's: no back-dating).
    await cluster.start('activator', { AGENTS_LONGTERM_URI: '', AGENTS_LONGTERM_ENABLED: 'true', FIXTURE_IDLE_TTL_MS: '2000' });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  const outputs = (key: string, agent = 'archivist') => collect(cluster.client.nc, `agents.output.${agent}.${key}`);
  /** The working-memory keys of a committed actor, or undefined when the key has no state. */
  const committedMemory = async (agent: string, key: string): Promise<string[] | undefined> => {
    const kv = await new Kvm(cluster.client.nc).open('AGENTS_STATE', { bindOnly: true });
    const entry = await kv.get(`${agent}.${encodeKeyToken(keyFromText(key))}`);
    return entry === null || entry.operation !== 'PUT' ? undefined : decodeActorDocument(entry.value).memory.entries.map((e) => e.key);
  };
  const demotedRecord = async (agent: string, key: string, timeoutMs: number) => {
    const store = new NatsLongTermStore(cluster.client.nc, cluster.client.topology);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const record = await store.load({ entityKey: keyFromText(key), agent }, 'working_memory', Date.now()).catch(() => undefined);
      if (record !== undefined || Date.now() > deadline) return record;
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  it('flushes saves before each commit so later activations read them', async () => {
    const out = await outputs('ada');
    for (const event of ['one', 'two', 'three']) await cluster.client.publishEvent('archivist', 'ada', event);
    const got = await out.waitForCount(3);
    expect(got.map((m) => JSON.parse(text.decode(m.data)) as { archived: string[] }).map((o) => o.archived)).toEqual([['one'], ['one', 'two'], ['one', 'two', 'three']]);
  });

  it('demotes an idle key\'s working memory to the tier before wiping it', async () => {
    const out = await outputs('bob');
    // The idle TTL counts from the event time: this key expires ~2 s from now.
    await cluster.client.publishEvent('archivist', 'bob', 'old news');
    await out.waitForCount(1);
    const store = new NatsLongTermStore(cluster.client.nc, cluster.client.topology);
    const scope = { entityKey: keyFromText('bob'), agent: 'archivist' };
    let demoted;
    for (let i = 0; i < 100 && demoted === undefined; i += 1) {
      demoted = await store.load(scope, 'working_memory', Date.now());
      if (demoted === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    expect(demoted).toBeDefined();
    expect(decodeMemoryBlob(demoted!.value).entries.map((e) => e.key)).toEqual(['recent']);
    await cluster.client.publishEvent('archivist', 'bob', 'fresh');
    const [, after] = await out.waitForCount(2);
    expect(JSON.parse(text.decode(after!.data))).toMatchObject({ recent: ['fresh'], archived: ['old news', 'fresh'] });
  });

  it('wipes an idle key without onExpire and demotes nothing', async () => {
    const out = await outputs('eve', 'forgetful');
    await cluster.client.publishEvent('forgetful', 'eve', 'old news');
    await out.waitForCount(1);
    const deadline = Date.now() + 15_000;
    while ((await committedMemory('forgetful', 'eve'))?.length !== 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await committedMemory('forgetful', 'eve')).toEqual([]);
    expect(await demotedRecord('forgetful', 'eve', 0)).toBeUndefined();
    await cluster.client.publishEvent('forgetful', 'eve', 'fresh');
    const [first, after] = await out.waitForCount(2);
    expect(JSON.parse(text.decode(first!.data))).toMatchObject({ recent: ['old news'], seq: 0 });
    // Memory starts afresh, seq carries on (so ids derived from it never repeat).
    expect(JSON.parse(text.decode(after!.data))).toMatchObject({ recent: ['fresh'], seq: 1 });
  });

  it('holds an idle key intact through a tier outage during its expiry flush, and demotes it once the tier is back', async () => {
    const out = await outputs('fay');
    // Expires ~2 s from now; the tier goes down before that and stays down past the deadline.
    await cluster.client.publishEvent('archivist', 'fay', 'kept through the outage');
    await out.waitForCount(1);
    await cluster.services.get('memory-store')!.stop();
    await new Promise((r) => setTimeout(r, 4_000));
    // The expiry fired and could not flush: nothing was wiped (fail-closed), nothing demoted yet.
    expect(await committedMemory('archivist', 'fay')).toEqual(['recent']);
    await cluster.start('memory-store');
    const demoted = await demotedRecord('archivist', 'fay', 45_000);
    expect(demoted).toBeDefined();
    expect(decodeMemoryBlob(demoted!.value).entries.map((e) => e.key)).toEqual(['recent']);
    const deadline = Date.now() + 15_000;
    while ((await committedMemory('archivist', 'fay'))?.length !== 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await committedMemory('archivist', 'fay')).toEqual([]);
  });

  it('fails an activation closed while the tier is down, and keeps the key going once it is back', async () => {
    const errors = await collect(cluster.client.nc, 'agents.errors.archivist.activation_error');
    const out = await outputs('cid');
    await cluster.services.get('memory-store')!.stop();
    await cluster.client.publishEvent('archivist', 'cid', 'lost');
    const [record] = await errors.waitForCount(1, 30_000);
    expect(decodeErrorRecord(record!.data).detail).toMatch(/LongTermUnavailable|LongTermFlushFailed/);
    await cluster.start('memory-store');
    await cluster.client.publishEvent('archivist', 'cid', 'kept');
    const [done] = await out.waitForCount(1, 30_000);
    expect(JSON.parse(text.decode(done!.data))).toMatchObject({ recent: ['kept'], archived: ['kept'] });
  });
});
