// Layer 3: erasure completeness (seed 004) through real processes. Two entities, A and B, each with
// actor state in two agents (working memory, a continuation waiting for approval, a deadline timer),
// long-term rows (SQLite), a completed tool call (effector record, result, intent), outputs,
// approval requests, error records and a replay journal message (a completed model call whose
// answer names the key, decision 0073). Erasing A must leave no byte of A anywhere — every stream
// and bucket of the account read message by message, subjects and headers included, and the
// SQLite files on disk — while B is intact, an audit record without A's key exists, a repeat
// finds nothing, and A starts afresh afterwards.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErasureReport } from '#client';
import { NatsLongTermStore } from '#longterm';
import { v1 } from '#proto';
import { createTopology, encodeKeyToken, entityDigest, keyFromText } from '#routing';
import { collect, readStream, REPO_ROOT, startCluster, type TestCluster } from '../harness/index.js';

const run = promisify(execFile);

const text = new TextDecoder();
const A = 'erase-me-alice-7f3';
const B = 'keep-me-bob-9c1';
const secretOf = (key: string): string => `SECRET-OF-${key.toUpperCase()}`;

/** Every place a needle occurs in the account's streams (KV buckets are streams too). */
async function occurrences(nc: NatsConnection, needles: readonly string[]): Promise<string[]> {
  const jsm = await jetstreamManager(nc);
  const found: string[] = [];
  const bytes = needles.map((n) => Buffer.from(n));
  for await (const name of jsm.streams.names()) {
    const { state } = await jsm.streams.info(name);
    if (state.messages === 0) continue;
    for (let seq = state.first_seq; seq <= state.last_seq; seq += 1) {
      const msg = await jsm.streams.getMessage(name, { seq }).catch(() => null);
      if (msg === null) continue;
      const headers = msg.header === undefined ? [] : [...msg.header.keys()].flatMap((k) => msg.header!.values(k));
      for (const [i, needle] of needles.entries()) {
        if (msg.subject.includes(needle) || Buffer.from(msg.data).includes(bytes[i]!) || headers.some((h) => h.includes(needle))) {
          found.push(`${name}#${seq} ${msg.subject}: ${needle}`);
        }
      }
    }
  }
  return found;
}

function fileContains(path: string, needle: string): boolean {
  return existsSync(path) && readFileSync(path).includes(Buffer.from(needle));
}

describe('erasure', () => {
  let cluster: TestCluster;
  const dir = mkdtempSync(join(tmpdir(), 'erasure-'));
  const dbFile = join(dir, 'longterm.db');

  beforeAll(async () => {
    cluster = await startCluster({
      agentModules: ['test/fixtures/agents/archivist.agent.mjs', 'test/fixtures/agents/e2e.agent.mjs', 'test/fixtures/agents/counter.agent.mjs', 'dist/examples/hello/hello.agent.js'],
      // The demo model greets the key by name, so the journaled answer carries the key's text.
      modelScript: 'dist/examples/models/demo-model.js',
      services: ['memory-store', 'activator', 'ingress', 'effector'],
      env: { AGENTS_LONGTERM_URI: `sqlite://${dbFile}`, AGENTS_TOOL_MODULES: 'test/fixtures/tools/ledger.tools.mjs' },
    });
    const { client } = cluster;
    for (const key of [A, B]) {
      const archived = await collect(client.nc, `agents.output.archivist.${encodeKeyToken(keyFromText(key))}`);
      const e2e = await collect(client.nc, `agents.output.e2e.${encodeKeyToken(keyFromText(key))}`);
      const requests = await collect(client.nc, `agents.approval-requests.e2e.${encodeKeyToken(keyFromText(key))}`);
      const refused = await collect(client.nc, 'agents.errors.>');
      const greeted = await collect(client.nc, `agents.output.hello.${encodeKeyToken(keyFromText(key))}`);
      await client.publishEvent('hello', key, '');
      await greeted.waitForCount(1);
      await client.publishEvent('archivist', key, `${secretOf(key)} first`);
      await client.publishEvent('archivist', key, `${secretOf(key)} second`);
      await archived.waitForCount(2);
      // A charge through the effector (intent, claim record, result), then an approval left pending.
      await client.publishEvent('e2e', key, { n: 1, approval: false, note: secretOf(key) });
      await e2e.waitForCount(1);
      // An error record naming the key (the agent cannot parse the event), and a refused event
      // stored on the ingest lane of an agent nobody runs.
      await client.publishEvent('e2e', key, `${secretOf(key)} is not JSON`);
      await refused.waitFor((m) => m.subject === 'agents.errors.e2e.activation_error' && Buffer.from(m.data).includes(Buffer.from(key)));
      await client.publishEvent('nobody', key, secretOf(key));
      await refused.waitFor((m) => m.subject === 'agents.errors.nobody.unknown_agent');
      await client.publishEvent('e2e', key, { n: 2, approval: true, note: secretOf(key) });
      await requests.waitForCount(1);
      for (const c of [archived, e2e, requests, refused, greeted]) c.close();
    }
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  let report: ErasureReport;

  it('erases every trace of the entity from every stream, bucket and the long-term store', async () => {
    const { nc } = cluster.client;
    expect(await occurrences(nc, [A, secretOf(A)])).not.toEqual([]);
    const topology = createTopology({ partitions: 4 });
    const journalOf = (key: string): string => topology.journal('hello', entityDigest(keyFromText(key)));
    expect(await readStream(nc, 'AGENTS_JOURNAL', journalOf(A))).toHaveLength(1);
    report = await cluster.client.erase(A, { requestedBy: 'erasure-test' });
    expect(report.entityKeySha256).toBe(entityDigest(keyFromText(A)));
    expect(Object.keys(report.erased)).toEqual(
      expect.arrayContaining(['AGENTS_INGEST', 'AGENTS_INBOX', 'AGENTS_OUTPUT', 'AGENTS_INTENTS', 'AGENTS_ERRORS', 'AGENTS_JOURNAL', 'KV_AGENTS_STATE', 'KV_AGENTS_TIMERS', 'KV_AGENTS_EFFECTS', 'longterm:sqlite']),
    );
    expect(report.erased['AGENTS_JOURNAL']).toBe(1);
    expect(await occurrences(nc, [A, secretOf(A)])).toEqual([]);
    expect(await readStream(nc, 'AGENTS_JOURNAL', journalOf(A))).toEqual([]);
    // B's journal is untouched.
    expect(await readStream(nc, 'AGENTS_JOURNAL', journalOf(B))).toHaveLength(1);

    const store = new NatsLongTermStore(nc, cluster.client.topology);
    for (const agent of ['archivist', 'e2e']) {
      expect(await store.search({ entityKey: keyFromText(A), agent }, '', Date.now(), { limit: 100 })).toEqual([]);
    }
    for (const file of [dbFile, `${dbFile}-wal`]) expect(fileContains(file, secretOf(A)), file).toBe(false);
  });

  it('leaves every other entity intact', async () => {
    const { nc } = cluster.client;
    expect((await occurrences(nc, [secretOf(B)])).length).toBeGreaterThan(0);
    const state = await new Kvm(nc).open(cluster.client.topology.buckets.state);
    for (const agent of ['archivist', 'e2e']) {
      const entry = await state.get(cluster.client.topology.stateKey(agent, encodeKeyToken(keyFromText(B))));
      expect(entry?.operation, agent).toBe('PUT');
    }
    const store = new NatsLongTermStore(nc, cluster.client.topology);
    expect((await store.search({ entityKey: keyFromText(B), agent: 'archivist' }, 'case/', Date.now(), { limit: 100 })).length).toBe(2);
    // B's pending approval still resumes it.
    const out = await collect(nc, `agents.output.e2e.${encodeKeyToken(keyFromText(B))}`);
    const [request] = await readStream(nc, 'AGENTS_INTENTS', `agents.approval-requests.e2e.${encodeKeyToken(keyFromText(B))}`);
    const intentId = v1.ToolIntent.decode(request!.data).intentId;
    await cluster.client.publishApproval('e2e', B, { intentId, approved: true, approver: 'test', decidedAtMs: Date.now(), reason: '' });
    const [resumed] = await out.waitForCount(1);
    expect(JSON.parse(text.decode(resumed!.data))).toMatchObject({ key: B, n: 2, decision: 'approved' });
  });

  it('writes an audit record that names the request and the key digest, never the key', async () => {
    const audits = await readStream(cluster.client.nc, 'AGENTS_AUDIT');
    expect(audits).toHaveLength(1);
    const audit = v1.ErasureAudit.decode(audits[0]!.data);
    expect(audit.requestId).toBe(report.requestId);
    expect(audit.entityKeySha256).toBe(entityDigest(keyFromText(A)));
    expect(audit.requestedBy).toBe('erasure-test');
    expect(audit.erased).toContain(`longterm:sqlite=${report.erased['longterm:sqlite']}`);
    expect(Number(audit.completedAtMs)).toBeGreaterThanOrEqual(Number(audit.requestedAtMs));
    expect(Buffer.from(audits[0]!.data).includes(Buffer.from(A))).toBe(false);
  });

  it('waits for an activation in flight, so nothing it commits survives the erasure', async () => {
    const C = 'erase-me-carol-55';
    const { nc } = cluster.client;
    const jsm = await jetstreamManager(nc);
    await cluster.client.publishEvent('counter', C, { n: 1, sleepMs: 2_000, note: secretOf(C) });
    // Erase only once the activator holds the element (delivered, unacknowledged): mid-activation.
    for (let held = 0; held === 0; ) {
      held = 0;
      for await (const consumer of jsm.consumers.list('AGENTS_INBOX')) held += consumer.num_ack_pending;
      if (held === 0) await new Promise((r) => setTimeout(r, 20));
    }
    const erased = await cluster.client.erase(C);
    expect(erased.erased['KV_AGENTS_STATE']).toBe(1);
    expect(await occurrences(nc, [C, secretOf(C)])).toEqual([]);
  });

  it('finds nothing on a repeat (from the CLI), and the entity starts afresh afterwards', async () => {
    const { stdout } = await run(process.execPath, [`${REPO_ROOT}/bin/nats-agents.mjs`, 'erase', A, '--json'], { env: { ...process.env, NATS_URL: cluster.server.url } });
    const again = JSON.parse(stdout) as ErasureReport;
    expect(again.entityKeySha256).toBe(entityDigest(keyFromText(A)));
    expect(again.erased).toEqual({});
    const out = await collect(cluster.client.nc, `agents.output.archivist.${encodeKeyToken(keyFromText(A))}`);
    await cluster.client.publishEvent('archivist', A, 'a new life');
    const [fresh] = await out.waitForCount(1);
    expect(JSON.parse(text.decode(fresh!.data))).toMatchObject({ recent: ['a new life'], archived: ['a new life'], seq: 0 });
  });
});
